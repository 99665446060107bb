// SPDX-License-Identifier: MIT
// What the collectives take as buffers (doc/collectives.md), shared by every family header.
#pragma once

#include "fieldsync/mpi/callOptions.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "fieldsync/mpi/detail/describe.hpp"
#include "fieldsync/mpi/request.hpp"

#include <concepts>
#include <source_location>
#include <span>
#include <type_traits>

namespace fieldsync::mpi
{

/** @brief A std::span, std::vector or contiguous Kokkos::View (any rank, any memory space). */
template<typename B>
concept CollectiveBuffer = detail::BufferLike<B>;

/** @brief A buffer, or inPlace where MPI_IN_PLACE goes in the send position. */
template<typename S>
concept SendArgument = CollectiveBuffer<S> || std::same_as<std::remove_cvref_t<S>, InPlace>;

/** @brief A buffer, or inPlace (scatter and scatterV only). */
template<typename R>
concept ReceiveArgument = CollectiveBuffer<R> || std::same_as<std::remove_cvref_t<R>, InPlace>;

} // namespace fieldsync::mpi
