// SPDX-License-Identifier: MIT
// Internal: the exchange back-end interface (doc/architecture.md, "Back ends").
#pragma once

#include "fieldsync/halo/commBufferCore.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <source_location>
#include <span>
#include <string>
#include <string_view>

#include <mpi.h>

namespace fieldsync::halo
{

/**
 * @brief An exchange back end: moves the messages of one direction (sends or receives) of one
 * exchange. The buffers and the Communicator's engine call only this interface: post, test,
 * cancel; the one wait (mpi/wait.hpp) loops over test(). Implementations: PointToPoint
 * (persistent or reissued MPI_Isend/MPI_Irecv).
 */
class Transport
{
public:
    virtual ~Transport() = default;

    /**
     * @brief Starts @p messages with @p tag; persistent requests (set up once, restarted) when
     * @p persistent. Nothing may be pending. @p unchanged: the caller guarantees @p messages
     * equal those of its last successful post (same peers, memory and sizes), so the transport
     * need not compare them again.
     */
    virtual void post(
        std::span<const Message> messages,
        int tag,
        bool persistent,
        bool unchanged,
        const std::source_location& where
    ) = 0;

    /**
     * @brief Completes what has arrived; true when nothing is pending. A receive of another size
     * than posted throws an Error naming @p name, the peer and both sizes; the direction is done
     * then (nothing pending).
     */
    virtual bool test(std::string_view name, const std::source_location& where) = 0;

    /** @brief The messages still pending, e.g. "receive from rank 3 (4096 B)", comma separated. */
    [[nodiscard]] virtual std::string describePending(const std::source_location& where) = 0;

    /**
     * @brief Cancels every pending message and completes it (under the time-out) before
     * returning, so its memory may be freed; frees persistent requests. Returns false when a
     * message could not be completed: its memory must then stay allocated.
     */
    virtual bool cancel(std::string_view name) noexcept = 0;

    /**
     * @brief After a failed check (check mode): cancels the pending receives whose entry in
     * @p cancel is non-zero (their message will never come), waits for every other pending
     * message (its peer sends or takes it; an error such as a truncation is ignored), each under
     * the time-out, and drops the requests as cancel() does. The entries follow the messages of
     * the last post; missing entries cancel nothing. Returns false when a message could not be
     * completed: its memory must then stay allocated.
     */
    virtual bool settle(std::span<const char> cancel, std::string_view name) noexcept = 0;
};

/**
 * @brief Waits (mpi::waitWithTimeout, time-out of the environment, action error) until @p test
 * is true for a message that is dropped in flight; logs and returns false when it is not, so
 * the caller keeps the memory MPI may still touch. Never throws.
 */
[[nodiscard]] bool completeDropped(
    const std::function<bool()>& test, const char* what, std::string_view name
) noexcept;

/** @brief The point-to-point back end for sends (@p isSend) or receives on @p comm. */
[[nodiscard]] std::unique_ptr<Transport> makePointToPoint(MPI_Comm comm, bool isSend);

/**
 * @brief The neighbourhood-collective back end on the distributed graph communicator @p graph
 * (sources: the ranks received from; destinations: the ranks sent to; both ascending, without
 * this rank and without empty lists): the send and the receive direction of one buffer, sharing
 * one MPI_Ineighbor_alltoallv. Messages must lie in one buffer per direction (no in-place
 * slots).
 *
 * Not the persistent MPI-4 form (MPI_Neighbor_alltoallv_init): a persistent collective must be
 * set up again on every rank together, while a buffer's layout can change on one rank alone
 * (its storage grows, or it is staged), which would leave the ranks' operations unmatched.
 */
[[nodiscard]] std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>>
makeNeighbourCollective(MPI_Comm graph);

} // namespace fieldsync::halo
