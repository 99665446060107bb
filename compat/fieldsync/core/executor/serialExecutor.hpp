// SPDX-License-Identifier: MIT
// NeoN's header NeoN/core/executor/serialExecutor.hpp at the path a rename of NeoN to fieldsync
// gives: SerialExecutor, the executor of a compat Vector in host memory. See
// fieldsync/compat.hpp and doc/porting.md.
#pragma once

#include <string>

namespace fieldsync
{

/**
 * @brief NeoN's SerialExecutor as far as the compat Vector needs it: where a Vector lives (host
 * memory, Kokkos::HostSpace). NeoN's CPU and GPU executors are not provided: fieldsync's
 * Communicator exchanges Kokkos views in any memory space directly.
 */
struct SerialExecutor
{
    /** @brief NeoN's name of this executor. */
    [[nodiscard]] std::string name() const { return "SerialExecutor"; }
};

} // namespace fieldsync
