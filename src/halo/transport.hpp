// SPDX-License-Identifier: MIT
// Internal: the exchange back-end interface (doc/architecture.md, "Back ends").
#pragma once

#include "fieldsync/halo/commBufferCore.hpp"

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

/**
 * @brief The neighbourhood-collective back end on the distributed graph communicator @p graph
 * (sources: the ranks received from; destinations: the ranks sent to; both ascending, without
 * this rank and without empty lists): the send and the receive direction of one buffer, sharing
 * one MPI_Ineighbor_alltoallv. Messages must lie in one buffer per direction (no in-place
 * slots).
 */
[[nodiscard]] std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>>
makeNeighbourCollective(MPI_Comm graph);

/**
 * @brief The persistent collectives of one key (one Exchange) on the graph communicator
 * @p graph: one MPI_Neighbor_alltoallv_init per layout (peers and bytes per peer, that is, per
 * cell size) the key's exchanges had, each bound to send and receive memory of its own (host
 * memory, pinned in CUDA builds) of exactly that layout, so nothing a rank changes alone (its
 * buffer's storage grows, it is staged, the key moves to another pool buffer) touches what MPI
 * was given. A layout's collective is made at the key's first exchange with it: a collective
 * call, which every rank makes at the same exchange because on a neighbourhood back end every
 * rank starts its exchanges in the same order, and a key carries the same cell size on every
 * rank. Destroyed with the last transport or Exchange holding it: the collective in flight is
 * completed under the time-out (a persistent collective cannot be cancelled), then each request
 * is freed (MPI_Request_free); when it cannot be completed, memory and requests are kept.
 */
class PersistentNeighbourOps;

/** @brief The persistent collectives of one key on @p graph (none made yet). */
[[nodiscard]] std::shared_ptr<PersistentNeighbourOps>
makePersistentNeighbourOps(const mpi::MPIEnvironment& graph);

/**
 * @brief The persistent neighbourhood back end, the send and the receive direction of one
 * buffer, bound to the key's @p ops: the receive post records the receives, the send post
 * copies the sends into the collective's own memory and starts it (MPI_Start), a test that
 * completes it copies the receives out. The messages lie in host memory (@p hostMessages) or
 * in memory of @p space. One copy per direction per exchange is the price of a fixed layout.
 */
[[nodiscard]] std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>>
makePersistentNeighbour(
    std::shared_ptr<PersistentNeighbourOps> ops, const mpi::SpaceOps& space, bool hostMessages
);

} // namespace fieldsync::halo
