// SPDX-License-Identifier: MIT
// Private to src/mpi: the timed agreement that check mode runs before a collective
// (collectiveCheck.cpp) and before a blocking collective set-up call (setUpAgreement.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <source_location>
#include <span>
#include <string_view>
#include <vector>

namespace fieldsync::mpi::detail
{

/** @brief Where a timed all-gather runs and how its wait names itself. */
struct TimedAllGather
{
    MPI_Comm comm { MPI_COMM_NULL }; /**< the communicator of the all-gather and of the notices */
    int arrivalTag { 0 };            /**< tag of the arrival notices on comm */
    std::int64_t serial { 0 };       /**< carried by the arrival notices; others are stale */
    std::string_view kind;           /**< the wait's kind ("fieldsync::mpi check mode") */
    std::string_view name;           /**< the call's name, for the wait's report */
    std::source_location where;      /**< the caller's call site */
};

/**
 * @brief Sends @p value to every other rank of @p comm on @p tag and frees the requests at once
 * (the value is left allocated, 8 bytes: MPI reads it after the free). Only on error paths.
 */
void notifyOthers(MPI_Comm comm, int tag, std::int64_t value) noexcept;

/**
 * @brief Every rank's @p mine (the same length on every rank), in rank order, through an
 * MPI_Iallgather completed by the library's one wait: a rank that never calls ends, past
 * FIELDSYNC_WAIT_TIMEOUT, in a warning or an Error naming the call site and the ranks that have
 * not arrived. Who arrived is learnt only at the time-out: each waiting rank sends an arrival
 * notice (the serial, 8 bytes) to every other rank on @p how.arrivalTag and listens 0.2 s for
 * theirs; a rank still waiting answers a notice of this agreement at once. So a rank is named
 * absent only when it comes more than the time-out and 0.2 s after the first rank that timed
 * out arrived. After an Error the all-gather stays in flight (MPI forbids freeing or cancelling
 * it), so its buffers are left allocated on purpose: a late rank may still complete it.
 */
[[nodiscard]] std::vector<std::int64_t>
timedAllGather(const TimedAllGather& how, std::span<const std::int64_t> mine);

} // namespace fieldsync::mpi::detail
