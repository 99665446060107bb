// SPDX-License-Identifier: MIT
// Every collective, blocking and non-blocking, on pointers, std::span, std::vector and
// Kokkos::View: one header per family (doc/collectives.md).
#pragma once

#include "fieldsync/mpi/allToAll.hpp"
#include "fieldsync/mpi/broadcast.hpp"
#include "fieldsync/mpi/gathers.hpp"
#include "fieldsync/mpi/reductionBatch.hpp"
#include "fieldsync/mpi/reductions.hpp"
#include "fieldsync/mpi/scans.hpp"
#include "fieldsync/mpi/scatters.hpp"
