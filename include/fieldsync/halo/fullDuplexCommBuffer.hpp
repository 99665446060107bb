// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/detail/privateComm.hpp"

#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/halo/duplexBuffer.hpp"
#include "fieldsync/halo/halfDuplexCommBuffer.hpp"

#include <optional>
#include <source_location>
#include <string_view>
#include <utility>
#include <vector>

namespace fieldsync::halo
{

/**
 * @brief Two-way non-blocking communication: a send and a receive direction run through the
 * seed's seven steps.
 *
 * 1. initComm<T>(name) claims the buffer for values of T; 2. getSendBuffer<T>(rank) gives that
 * rank's send slice to fill; 3. startComm() posts the receives and the sends; 4. other work;
 * 5. isComplete() tests, waitComplete() waits (never a hot spin, with the time-out of
 * mpi::WaitPolicy); 6. getReceiveBuffer<T>(rank) reads what came; 7. finaliseComm() releases.
 *
 * Messages travel on the library's private duplicate of the environment's communicator
 * (collective over it the first time: MPIInit makes MPI_COMM_WORLD's), with the tag derived from
 * the name (mpi::tagFromHash) unless setTag() chose one. A rank that is its own neighbour gets
 * a local copy, not an MPI message. Every misuse is a fieldsync::Error naming the buffer.
 *
 * Each received message must have the size the receive side expects: a shorter one, or a longer
 * one (which MPI truncates), is a fieldsync::Error from isComplete() or waitComplete() naming
 * the buffer, the call site, the peer rank and both byte counts (the two sides' sizes
 * disagree). The receive is complete then; waitComplete() again finishes the sends, and
 * finaliseComm() releases the buffer (releaseAfterFailure() does both).
 *
 * A buffer made with an environment is in the live-object registry (core/liveObjects.hpp) while
 * it lives: one that outlives MPIInit (held in a static) is named at MPIInit's end with its
 * creation call site, and its destruction then frees nothing that MPI or Kokkos own.
 *
 * The steps are compiled once in DuplexBuffer; this template adds typed slices in @p MemSpace.
 */
template<typename MemSpace = Kokkos::HostSpace>
class FullDuplexCommBuffer
{
public:
    using memory_space = MemSpace; /**< where the bytes live */

    /** @brief What the slice getters return (span on host, unmanaged view on a device). */
    template<typename T>
    using Slice = typename HalfDuplexCommBuffer<MemSpace>::template Slice<T>;

    /** @brief An empty buffer. */
    FullDuplexCommBuffer() : core_(mpi::detail::spaceOps<MemSpace>()) {}

    /**
     * @brief Seed form: @p sendSize[r] values to and @p receiveSize[r] values from each rank r
     * of @p env (vectors of the communicator's size); @p where is the creation call site (for
     * the live-object registry).
     */
    FullDuplexCommBuffer(
        MPIEnvironment env,
        std::vector<std::size_t> sendSize,
        std::vector<std::size_t> receiveSize,
        std::source_location where = std::source_location::current()
    )
        : core_(
              mpi::detail::spaceOps<MemSpace>(),
              mpi::detail::privateEnvironment(env, where),
              std::move(sendSize),
              std::move(receiveSize)
          ),
          live_(std::in_place, "fieldsync::halo::FullDuplexCommBuffer", "", where)
    {
    }

    /**
     * @brief Sparse form: sizes per neighbour (ascending ranks) in each direction; @p where is
     * the creation call site (for the live-object registry).
     */
    FullDuplexCommBuffer(
        MPIEnvironment env,
        std::vector<int> sendRanks,
        std::vector<std::size_t> sendCounts,
        std::vector<int> receiveRanks,
        std::vector<std::size_t> receiveCounts,
        std::source_location where = std::source_location::current()
    )
        : core_(
              mpi::detail::spaceOps<MemSpace>(),
              mpi::detail::privateEnvironment(env, where),
              std::move(sendRanks),
              std::move(sendCounts),
              std::move(receiveRanks),
              std::move(receiveCounts)
          ),
          live_(std::in_place, "fieldsync::halo::FullDuplexCommBuffer", "", where)
    {
    }

    // Not copyable (NeoN's buffer is): a copy would share or duplicate MPI requests and claims in
    // flight. Make a second buffer from the same sizes instead (doc/porting.md).
    FullDuplexCommBuffer(const FullDuplexCommBuffer&) = delete; // NeoN copies: doc/porting.md
    FullDuplexCommBuffer& operator=(const FullDuplexCommBuffer&) = delete; // doc/porting.md

    /** @brief Step 1: claims the buffer under @p name for values of @p T. */
    template<typename T>
    void initComm(
        std::string_view name,
        std::size_t entriesPerCount = 1,
        std::source_location where = std::source_location::current()
    )
    {
        static_assert(
            std::is_trivially_copyable_v<T>, "communication buffers hold trivially copyable types"
        );
        core_.initComm(name, typeid(T), entriesPerCount * sizeof(T), where);
    }

    /** @brief Whether the buffer is claimed. */
    [[nodiscard]] bool isCommInit() const noexcept { return core_.isCommInit(); }

    /** @brief The name of the claim. */
    [[nodiscard]] const std::string& name() const noexcept { return core_.name(); }

    /** @brief Step 2: the send slice of @p rank (only before startComm). */
    template<typename T>
    [[nodiscard]] Slice<T>
    getSendBuffer(int rank, std::source_location where = std::source_location::current())
    {
        core_.checkNotStarted("getSendBuffer", where);
        return sliceOf<T>(core_.sendHalf(), rank, where);
    }

    /** @brief NeoN's name of getSendBuffer. */
    template<typename T>
    [[nodiscard]] Slice<T>
    getSend(int rank, std::source_location where = std::source_location::current())
    {
        return getSendBuffer<T>(rank, where);
    }

    /** @brief Step 3: posts the receives, then the sends (and copies the self message). */
    void startComm(std::source_location where = std::source_location::current())
    {
        core_.startReceives(where);
        core_.startSends(where);
    }

    /**
     * @brief Step 5: whether everything arrived and was sent (never blocks); true while nothing
     * was started (free, or claimed before startComm), as NeoN answers.
     */
    bool isComplete(std::source_location where = std::source_location::current())
    {
        return !core_.started() || core_.isComplete(where);
    }

    /** @brief Step 5: waits for completion without hot-spinning, with the time-out policy. */
    void waitComplete(std::source_location where = std::source_location::current())
    {
        core_.waitComplete(name(), where);
    }

    /** @brief Step 6: the receive slice of @p rank (only after completion). */
    template<typename T>
    [[nodiscard]] Slice<T>
    getReceiveBuffer(int rank, std::source_location where = std::source_location::current())
    {
        core_.checkReceived(where);
        return sliceOf<T>(core_.receiveHalf(), rank, where);
    }

    /** @brief NeoN's name of getReceiveBuffer. */
    template<typename T>
    [[nodiscard]] Slice<T>
    getReceive(int rank, std::source_location where = std::source_location::current())
    {
        return getReceiveBuffer<T>(rank, where);
    }

    /** @brief Step 7: releases the buffer; an error while messages are in flight. */
    void finaliseComm(std::source_location where = std::source_location::current())
    {
        core_.finaliseComm(where);
    }

    /** @brief See DuplexBuffer::releaseAfterFailure. */
    bool releaseAfterFailure(std::string_view what, const std::source_location& where)
    {
        return core_.releaseAfterFailure(what, where);
    }

    /** @brief Uses @p tag instead of the name's hash. */
    void setTag(int tag) noexcept { core_.setTag(tag); }

    /** @brief The tag of the messages. */
    [[nodiscard]] int tag() const noexcept { return core_.tag(); }

    /** @brief Overrides the environment's wait policy for this buffer. */
    void setWaitPolicy(mpi::WaitPolicy policy) noexcept { core_.setWaitPolicy(policy); }

    /** @brief Persistent requests on (MPI_Send_init/Recv_init once, then MPI_Startall). */
    void setPersistent(bool persistent) noexcept { core_.setPersistent(persistent); }

    /** @brief Forces (or lifts) host staging in both directions. */
    void setStaging(bool staging) noexcept { core_.setStaging(staging); }

private:
    /** @brief The typed slice of @p rank in @p half (as HalfDuplexCommBuffer::get). */
    template<typename T>
    static Slice<T>
    sliceOf(detail::CommBufferCore& half, int rank, const std::source_location& where)
    {
        return HalfDuplexCommBuffer<MemSpace>::template typedSlice<T>(half, rank, where);
    }

    detail::DuplexBuffer core_; /**< the compiled steps */
    std::optional<fieldsync::detail::LiveObject>
        live_; /**< registered while it lives (not when made empty) */
};

} // namespace fieldsync::halo
