// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/halo/commBufferCore.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

namespace fieldsync::halo::detail
{

/**
 * @brief The compiled engine of FullDuplexCommBuffer (and of each buffer in the Communicator's
 * pool): a send and a receive CommBufferCore in one memory space, run through the seed's seven
 * steps with one tag and one wait policy. Typed access is added by FullDuplexCommBuffer.
 */
class DuplexBuffer
{
public:
    /** @brief An empty buffer for memory of @p space. */
    explicit DuplexBuffer(const mpi::detail::SpaceOps& space);

    /** @brief Seed form: @p sendSize[r] values to and @p receiveSize[r] values from each rank r. */
    DuplexBuffer(
        const mpi::detail::SpaceOps& space,
        MPIEnvironment env,
        std::vector<std::size_t> sendSize,
        std::vector<std::size_t> receiveSize
    );

    /** @brief Sparse form: sizes per neighbour (ascending ranks) in each direction. */
    DuplexBuffer(
        const mpi::detail::SpaceOps& space,
        MPIEnvironment env,
        std::vector<int> sendRanks,
        std::vector<std::size_t> sendCounts,
        std::vector<int> receiveRanks,
        std::vector<std::size_t> receiveCounts
    );

    /** @brief Step 1: claims both directions under @p name for @p entryBytes per entry. */
    void initComm(
        std::string_view name,
        const std::type_info& type,
        std::size_t entryBytes,
        const std::source_location& where
    );

    /** @brief Whether the buffer is claimed. */
    [[nodiscard]] bool isCommInit() const noexcept { return send_.isCommInit(); }

    /**
     * @brief Whether startComm() posted some of the claim's messages (either direction in
     * flight or complete; a startComm that failed half way counts as started).
     */
    [[nodiscard]] bool started() const noexcept
    {
        const auto posted = [](BufferState state)
        {
            return state == BufferState::InFlight || state == BufferState::Complete;
        };
        return posted(send_.state()) || posted(receive_.state());
    }

    /** @brief The name of the claim. */
    [[nodiscard]] const std::string& name() const noexcept { return send_.name(); }

    /** @brief Throws unless claimed and not started (slices may be filled). */
    void checkNotStarted(std::string_view call, const std::source_location& where) const;

    /** @brief Throws unless the receives completed (received slices may be read). */
    void checkReceived(const std::source_location& where) const;

    /** @brief The first half of startComm: posts the receives (before packing). */
    void startReceives(const std::source_location& where);

    /** @brief The second half of startComm: posts the sends and copies the self message. */
    void startSends(const std::source_location& where);

    /** @brief Step 5: whether everything arrived and was sent (never blocks). */
    bool isComplete(const std::source_location& where);

    /**
     * @brief Step 5: waits (mpi::waitWithTimeout), naming @p what in the time-out report;
     * @p listen (optional) is the wait's listener for peers' notices (mpi::waitWithTimeout).
     */
    void waitComplete(
        std::string_view what,
        const std::source_location& where,
        const std::function<void()>& listen = {}
    );

    /** @brief Step 7: releases the buffer; an error while messages are in flight. */
    void finaliseComm(const std::source_location& where)
    {
        if (send_.state() != BufferState::Complete || receive_.state() != BufferState::Complete)
        {
            checkFinalise(where); // a claim never started finalises too
        }
        send_.finaliseComm(where);
        receive_.finaliseComm(where);
    }

    /**
     * @brief After a receive of the wrong size (an Error from isComplete or waitComplete):
     * waits for the sends (the peers take them) and releases the buffer. Returns false, doing
     * nothing, when no receive failed.
     */
    bool releaseAfterFailure(std::string_view what, const std::source_location& where);

    /** @brief Uses @p tag instead of the name's hash (the Communicator's checked tags). */
    void setTag(int tag) noexcept
    {
        tag_ = tag;
        tagSet_ = true;
    }

    /** @brief The tag of the messages. */
    [[nodiscard]] int tag() const noexcept { return tag_; }

    /** @brief Overrides the environment's wait policy for this buffer. */
    void setWaitPolicy(mpi::WaitPolicy policy) noexcept { policy_ = policy; }

    /** @brief Persistent requests on (MPI_Send_init/Recv_init once, then MPI_Startall). */
    void setPersistent(bool persistent) noexcept
    {
        send_.setPersistent(persistent);
        receive_.setPersistent(persistent);
    }

    /** @brief Forces (or lifts) host staging in both directions. */
    void setStaging(bool staging) noexcept
    {
        send_.setStaging(staging);
        receive_.setStaging(staging);
    }

    /** @brief Uses @p send and @p receive as the back ends of the two directions. */
    void setTransports(
        std::unique_ptr<Transport> send,
        std::unique_ptr<Transport> receive,
        const std::source_location& where
    );

    /** @brief The send half. */
    [[nodiscard]] CommBufferCore& sendHalf() noexcept { return send_; }

    /** @brief The receive half. */
    [[nodiscard]] CommBufferCore& receiveHalf() noexcept { return receive_; }

private:
    /** @brief The wait policy: this buffer's, else the environment's (read once). */
    mpi::WaitPolicy policy()
    {
        if (!policy_)
        {
            policy_ = mpi::WaitPolicy::fromEnvironment();
        }
        return *policy_;
    }
    [[noreturn]] void
    failState(std::string_view call, BufferState state, const std::source_location& where) const;
    /** @brief Throws unless started (in flight or complete in both directions). */
    void checkStarted(std::string_view call, const std::source_location& where) const
    {
        if (send_.state() == BufferState::Free || send_.state() == BufferState::Claimed ||
            receive_.state() == BufferState::Claimed)
        {
            failStarted(call, where);
        }
    }
    /** @brief The Error of checkStarted. */
    [[noreturn]] void failStarted(std::string_view call, const std::source_location& where) const;
    /** @brief finaliseComm's checks when a direction is not complete: in flight or not claimed. */
    void checkFinalise(const std::source_location& where) const;
    /**
     * @brief One test of both directions (in one MPI call where the back end keeps them
     * together, else the sends, then the receives); true when both are done.
     */
    bool testHalves(const std::source_location& where);
    void copySelf(const std::source_location& where);

    CommBufferCore send_;             /**< send direction */
    CommBufferCore receive_;          /**< receive direction */
    MPI_Comm comm_ { MPI_COMM_NULL }; /**< communicator of the messages */
    int tag_ { 0 };                   /**< tag of the messages */
    bool tagSet_ { false };           /**< tag_ chosen by setTag */
    bool together_ { false };         /**< the halves' transports are a pair that tests together */
    std::optional<mpi::WaitPolicy> policy_; /**< time-out policy, from the environment by default */
};

} // namespace fieldsync::halo::detail
