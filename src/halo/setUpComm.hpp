// SPDX-License-Identifier: MIT
// Internal: a private duplicate of a communicator for collective set-up messages, made once and
// cached on the communicator (as PetscCommDuplicate does), so a set-up pays no MPI_Comm_dup.
#pragma once

#include <mpi.h>

#include <source_location>

namespace fieldsync::halo
{

/**
 * @brief Collective on @p comm the first time: a duplicate of @p comm kept as an attribute of
 * @p comm (freed when @p comm is freed) and returned by later calls without communication. Only
 * collective set-up steps use it (one at a time on every rank, in the same order), so its tags
 * never meet the application's nor a Communicator's.
 */
[[nodiscard]] MPI_Comm setUpComm(MPI_Comm comm, const std::source_location& where);

} // namespace fieldsync::halo
