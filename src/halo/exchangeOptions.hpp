// SPDX-License-Identifier: MIT
// Internal: the knobs of a Communicator's exchanges.
#pragma once

#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <cstddef>

namespace fieldsync::halo
{

/**
 * @brief How a Communicator's exchanges run: set at construction (from the environment and the
 * context), changed by the Communicator's setters between exchanges, read by the steps.
 */
struct ExchangeOptions
{
    static constexpr std::size_t noPersistent = static_cast<std::size_t>(-1); /**< never */

    mpi::WaitPolicy policy; /**< the environment's at construction, or setWaitPolicy's */
    std::size_t persistentFrom { 512 };          /**< persistent from this message size */
    mpi::Staging staging { mpi::Staging::Auto }; /**< forced staging */
    bool inPlace { true };                       /**< in-place contiguous neighbours */
    bool timing { true };                        /**< telemetry reads the clock */
    bool tsc { false };                          /**< stamps read the time-stamp counter */
    bool profiling { false }; /**< a Kokkos tool was loaded at construction: name regions */
};

} // namespace fieldsync::halo
