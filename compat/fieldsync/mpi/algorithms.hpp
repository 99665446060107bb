// SPDX-License-Identifier: MIT
/**
 * @file algorithms.hpp
 * @brief The old place of fieldsync's own collective algorithms (mpi::algorithms::Schedule,
 * Context and the type-erased functions), internal since issue #31: their declarations are in
 * the library's sources (src/mpi/algorithms.hpp). An application chooses an algorithm per call
 * with CallOptions::algorithm (doc/algorithms.md), which runs the same code on any buffer the
 * collectives take. No alias is possible for types the installed headers no longer declare, so
 * including this header stops the build with that advice instead of "file not found".
 */
#pragma once

#error "fieldsync/mpi/algorithms.hpp is internal since issue #31: choose an algorithm with \
fieldsync::mpi::CallOptions::algorithm (doc/algorithms.md), for example \
allReduce(view, ReduceOp::Sum, comm, {.algorithm = Algorithm::Ring})"
