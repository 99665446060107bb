// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

#include <mpi.h>

namespace fieldsync::mpi
{

/** @brief The MPI tag for a 32-bit key hash on @p comm: hash modulo the real MPI_TAG_UB. */
[[nodiscard]] int tagFromHash(std::uint32_t hash, MPI_Comm comm);

} // namespace fieldsync::mpi
