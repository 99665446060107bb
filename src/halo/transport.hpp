// SPDX-License-Identifier: MIT
// Internal: the exchange back-end interface (doc/architecture.md, "Back ends").
#pragma once

#include "engineNames.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
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
 * exchange. The buffers and the Communicator's engine call only this interface: post, test
 * (or testTogether, both directions of one buffer at once), cancel; the one wait
 * (mpi/wait.hpp) loops over these tests. Implementations: PointToPoint
 * (persistent or reissued MPI_Isend/MPI_Irecv), NeighbourCollective (MPI_Ineighbor_alltoallv)
 * and PersistentNeighbour (MPI_Neighbor_alltoallv_init, restarted with MPI_Start).
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

    /**
     * @brief Tests this direction (the receives) and @p sends, the other direction of the same
     * buffer, in one MPI call, where the back end keeps both directions' messages together (a
     * pair made by makePointToPointPair): true when both are done, a receive of another size
     * throws as test() does. std::nullopt, testing nothing, where it does not keep them together
     * (the caller tests each direction).
     */
    [[nodiscard]] virtual std::optional<bool>
    testTogether(Transport& sends, std::string_view name, const std::source_location& where)
    {
        static_cast<void>(sends);
        static_cast<void>(name);
        static_cast<void>(where);
        return std::nullopt;
    }

    /** @brief The messages still pending, e.g. "receive from rank 3 (4096 B)", comma separated. */
    [[nodiscard]] virtual std::string describePending(const std::source_location& where) = 0;

    /**
     * @brief Whether a message with @p rank may still be pending (true when the back end cannot
     * tell one peer from another: a collective in flight). Never throws.
     */
    [[nodiscard]] virtual bool awaits(int rank) noexcept = 0;

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

/**
 * @brief "<what> (sends to ranks 1 2; receives from ranks 1 3)": a neighbourhood collective
 * in flight, for time-out reports.
 */
[[nodiscard]] std::string describeNeighbourhood(
    std::string_view what, std::span<const int> sendRanks, std::span<const int> receiveRanks
);

/** @brief The point-to-point back end for sends (@p isSend) or receives on @p comm. */
[[nodiscard]] std::unique_ptr<Transport> makePointToPoint(MPI_Comm comm, bool isSend);

/**
 * @brief The point-to-point back end for both directions of one buffer on @p comm (send,
 * receive): each direction posts, tests and cancels its own messages as makePointToPoint's do,
 * but their requests lie in one array, so that the receive side's testTogether completes both
 * directions with one MPI_Testall (one call into MPI, one progress of its engine, per test).
 */
[[nodiscard]] std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>>
makePointToPointPair(MPI_Comm comm);

} // namespace fieldsync::halo
