// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/wait.hpp"

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include <mpi.h>

namespace fieldsync::mpi
{

/** @brief One message of a sparse data exchange: the peer rank and the payload. */
struct SparseMessage
{
    int rank { 0 };                 /**< destination (outgoing) or source (incoming) */
    std::vector<std::int64_t> data; /**< payload */
};

/**
 * @brief Collective sparse data exchange with the NBX scheme (Hoefler, Siebert, Lumsdaine 2010):
 * each rank sends its messages with MPI_Issend, receives whatever arrives (MPI_Iprobe on
 * @p tag), enters MPI_Ibarrier once its own sends have been matched, and stops when the barrier
 * completes. No rank learns or stores anything about ranks it does not talk to: memory and
 * messages grow with the number of neighbours, never with the size of @p comm.
 *
 * Messages to oneself are copied locally. The loop waits through mpi::waitWithTimeout with
 * mpi::WaitPolicy::fromEnvironment() (no hot spin): past FIELDSYNC_WAIT_TIMEOUT it warns with
 * back-off, or with FIELDSYNC_WAIT_TIMEOUT_ACTION=error throws a fieldsync::Error naming the call
 * site, @p what, @p tag and what it still waits for (its messages to which ranks, or the
 * barrier). An exchange that ended in that error cannot be resumed: its barrier, and any of its
 * sends not yet received, stay in flight, so keep @p outgoing alive and use @p comm for nothing
 * else afterwards.
 *
 * A rank leaves when its barrier completes, possibly while another still probes for messages:
 * two consecutive calls on one communicator with no blocking collective between them must use
 * different tags, or the second call's early messages can be taken by the first.
 *
 * @param comm the communicator (use a private duplicate: @p tag must not meet other traffic)
 * @param tag the tag of this exchange
 * @param outgoing at most one message per destination rank
 * @param what a name for log messages
 * @return the incoming messages, ordered by source rank
 */
[[nodiscard]] std::vector<SparseMessage> sparseExchange(
    MPI_Comm comm,
    int tag,
    const std::vector<SparseMessage>& outgoing,
    const std::string& what,
    std::source_location where = std::source_location::current()
);

/**
 * @brief The same exchange under @p policy instead of the environment's (for a set-up that reads
 * the environment once for all its waits).
 */
[[nodiscard]] std::vector<SparseMessage> sparseExchange(
    MPI_Comm comm,
    int tag,
    const std::vector<SparseMessage>& outgoing,
    const std::string& what,
    const WaitPolicy& policy,
    std::source_location where = std::source_location::current()
);

/**
 * @brief Collective: makes an error seen on some ranks an error on all of them, so that a rank
 * that found bad input never leaves the others waiting in the next collective. Throws
 * fieldsync::Error on every rank when any rank passes a non-empty @p localError: with that
 * message on the ranks that have one, and naming the lowest failing rank on the others.
 */
void raiseIfAnyFailed(
    MPI_Comm comm,
    const std::string& localError,
    std::source_location where = std::source_location::current()
);

} // namespace fieldsync::mpi
