// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

#include <mpi.h>

namespace fieldsync::mpi
{

/**
 * @brief The MPI tag of a buffer whose name hashes to @p hash, on @p comm, a private duplicate
 * (mpi/detail/privateComm.hpp): the hash reduced into the range of its tags kept for named
 * buffers (mpi/detail/tagWindow.hpp), which no other library message uses.
 */
[[nodiscard]] int tagFromHash(std::uint32_t hash, MPI_Comm comm);

} // namespace fieldsync::mpi
