// SPDX-License-Identifier: MIT
// NeoN's header NeoN/core/mpi/operators.hpp at the path a rename of NeoN to fieldsync gives:
// ReduceOp, getOp, getType, allReduce, isend, irecv, test, and the scalar and Vec3 NeoN's header
// brings along. See fieldsync/compat.hpp and doc/porting.md.
#pragma once

#include "fieldsync/core/primitives/vec3.hpp"
#include "fieldsync/mpi/operators.hpp"
