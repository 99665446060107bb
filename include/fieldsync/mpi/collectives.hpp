// SPDX-License-Identifier: MIT
// Every collective, blocking and non-blocking, on std::span, std::vector and Kokkos::View: one
// header per family (doc/collectives.md). The pointer-and-count forms are in compat/
// (fieldsync/mpi/pointerCollectives.hpp, through fieldsync/compat.hpp).
#pragma once

#include "fieldsync/mpi/allToAll.hpp"
#include "fieldsync/mpi/broadcast.hpp"
#include "fieldsync/mpi/gathers.hpp"
#include "fieldsync/mpi/reductionBatch.hpp"
#include "fieldsync/mpi/reductions.hpp"
#include "fieldsync/mpi/scans.hpp"
#include "fieldsync/mpi/scatters.hpp"
