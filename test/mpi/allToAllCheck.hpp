// SPDX-License-Identifier: MIT
// One all-to-all exchange through a FullDuplexCommBuffer, checked against the value each rank
// computes for itself (shared by the Kokkos ownership programs).
#pragma once

#include "fieldsync/compat.hpp"

#include <string_view>

namespace fieldsync_test
{
/**
 * Every rank sends 100 * source + destination to every rank (itself included) through
 * @p buffer, one int per rank, under @p name; true when every value arrived.
 */
inline bool allToAllThrough(
    const fieldsync::mpi::MPIEnvironment& env,
    fieldsync::mpi::FullDuplexCommBuffer<>& buffer,
    std::string_view name
)
{
    buffer.initComm<int>(name);
    for (int r = 0; r < env.sizeRank(); ++r)
    {
        buffer.getSendBuffer<int>(r)[0] = 100 * env.rank() + r;
    }
    buffer.startComm();
    buffer.waitComplete();
    bool right { true };
    for (int r = 0; r < env.sizeRank(); ++r)
    {
        right = right && buffer.getReceiveBuffer<int>(r)[0] == 100 * r + env.rank();
    }
    buffer.finaliseComm();
    return right;
}
} // namespace fieldsync_test
