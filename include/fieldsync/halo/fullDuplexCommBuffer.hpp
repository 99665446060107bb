// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/commKey.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/halo/halfDuplexCommBuffer.hpp"
#include "fieldsync/mpi/tag.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <cstring>
#include <optional>

namespace fieldsync::mpi
{

/**
 * @brief Two-way non-blocking communication: a send and a receive HalfDuplexCommBuffer run
 * through the seed's seven steps.
 *
 * 1. initComm<T>(name) claims the buffer for values of T; 2. getSendBuffer<T>(rank) gives that
 * rank's send slice to fill; 3. startComm() posts the receives and the sends; 4. other work;
 * 5. isComplete() tests, waitComplete() waits (never a hot spin, with the time-out of
 * WaitPolicy); 6. getReceiveBuffer<T>(rank) reads what came; 7. finaliseComm() releases.
 *
 * Messages use the environment's communicator as given, with the tag derived from the name
 * (FNV-1a modulo MPI_TAG_UB) unless setTag() chose one. A rank that is its own neighbour gets
 * a local copy, not an MPI message. Every misuse is a fieldsync::Error naming the buffer.
 *
 * Each received message must have the size the receive side expects: a shorter one, or a longer
 * one (which MPI truncates), is a fieldsync::Error from isComplete() or waitComplete() naming
 * the buffer, the call site, the peer rank and both byte counts (the two sides' sizes
 * disagree). The receive is complete then; waitComplete() again finishes the sends, and
 * finaliseComm() releases the buffer (releaseAfterFailure() does both).
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
    FullDuplexCommBuffer() = default;

    /**
     * @brief Seed form: @p sendSize[r] values to and @p receiveSize[r] values from each rank r
     * of @p env (vectors of the communicator's size).
     */
    FullDuplexCommBuffer(
        MPIEnvironment env, std::vector<std::size_t> sendSize, std::vector<std::size_t> receiveSize
    )
        : send_(env, std::move(sendSize)), receive_(env, std::move(receiveSize)), comm_(env.comm())
    {
    }

    /** @brief Sparse form: sizes per neighbour (ascending ranks) in each direction. */
    FullDuplexCommBuffer(
        MPIEnvironment env,
        std::vector<int> sendRanks,
        std::vector<std::size_t> sendCounts,
        std::vector<int> receiveRanks,
        std::vector<std::size_t> receiveCounts
    )
        : send_(env, std::move(sendRanks), std::move(sendCounts)),
          receive_(env, std::move(receiveRanks), std::move(receiveCounts)), comm_(env.comm())
    {
    }

    /** @brief Step 1: claims the buffer under @p name for values of @p T. */
    template<typename T>
    void initComm(
        std::string_view name,
        std::size_t entriesPerCount = 1,
        std::source_location where = std::source_location::current()
    )
    {
        send_.template initComm<T>(name, entriesPerCount, where);
        try
        {
            receive_.template initComm<T>(name, entriesPerCount, where);
        }
        catch (...)
        {
            send_.finaliseComm(where);
            throw;
        }
        if (!tagSet_)
        {
            tag_ = tagFromHash(fnv1a32(name), comm_);
        }
        where_ = where;
    }

    /** @brief Whether the buffer is claimed. */
    [[nodiscard]] bool isCommInit() const noexcept { return send_.isCommInit(); }

    /** @brief The name of the claim. */
    [[nodiscard]] const std::string& name() const noexcept { return send_.name(); }

    /** @brief Step 2: the send slice of @p rank (only before startComm). */
    template<typename T>
    [[nodiscard]] Slice<T>
    getSendBuffer(int rank, std::source_location where = std::source_location::current())
    {
        checkNotStarted("getSendBuffer", where);
        return send_.template get<T>(rank, where);
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
        startReceives(where);
        startSends(where);
    }

    /** @brief The first half of startComm: posts the receives (before packing). */
    void startReceives(std::source_location where = std::source_location::current())
    {
        if (receive_.state() != BufferState::Claimed)
        {
            failState("startComm", receive_.state(), where);
        }
        receive_.receive(tag_, where);
    }

    /** @brief The second half of startComm: posts the sends and copies the self message. */
    void startSends(std::source_location where = std::source_location::current())
    {
        if (send_.state() != BufferState::Claimed)
        {
            failState("startComm", send_.state(), where);
        }
        copySelf(where);
        send_.send(tag_, where);
    }

    /** @brief Step 5: whether everything arrived and was sent (never blocks). */
    bool isComplete(std::source_location where = std::source_location::current())
    {
        checkStarted("isComplete", where);
        const bool received = receive_.complete(true, where);
        const bool sent = send_.complete(false, where);
        return received && sent;
    }

    /** @brief Step 5: waits for completion without hot-spinning, with the time-out policy. */
    void waitComplete(std::source_location where = std::source_location::current())
    {
        waitComplete(name(), where);
    }

    /** @brief As waitComplete(), naming @p what (a key) in the time-out report. */
    void waitComplete(std::string_view what, const std::source_location& where)
    {
        checkStarted("waitComplete", where);
        // receives first: a failed receive (wrong size) is reported before the sends are waited
        // for; the sends complete anyway, and a second waitComplete() finishes them
        if (receive_.complete(true, where) && send_.complete(false, where))
        {
            return; // the common case after overlap: no wait loop
        }
        waitWithTimeout(
            [&] { return receive_.complete(true, where) && send_.complete(false, where); },
            [&]
            {
                std::string text = receive_.describePending(false, where);
                const std::string sends = send_.describePending(true, where);
                if (!text.empty() && !sends.empty())
                {
                    text += ", ";
                }
                return text + sends;
            },
            policy(),
            "communication",
            what,
            where
        );
    }

    /** @brief Step 6: the receive slice of @p rank (only after completion). */
    template<typename T>
    [[nodiscard]] Slice<T>
    getReceiveBuffer(int rank, std::source_location where = std::source_location::current())
    {
        if (receive_.state() != BufferState::Complete)
        {
            throw Error(
                "communication buffer '" + name() +
                    "': getReceiveBuffer before the communication " + "completed (state " +
                    toString(receive_.state()) + "; call waitComplete or test isComplete first)",
                where
            );
        }
        return receive_.template get<T>(rank, where);
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
        if (send_.state() == BufferState::InFlight || receive_.state() == BufferState::InFlight)
        {
            throw Error(
                "communication buffer '" + name() +
                    "': finaliseComm while communication is in flight (call waitComplete first)",
                where
            );
        }
        if (!isCommInit())
        {
            throw Error(
                "communication buffer: finaliseComm on a buffer that is not claimed", where
            );
        }
        send_.finaliseComm(where);
        receive_.finaliseComm(where);
    }

    /**
     * @brief After a receive of the wrong size (an Error from isComplete or waitComplete):
     * waits for the sends (the peers take them) and releases the buffer. Returns false, doing
     * nothing, when no receive failed.
     */
    bool releaseAfterFailure(std::string_view what, const std::source_location& where)
    {
        if (!receive_.failed())
        {
            return false;
        }
        if (send_.state() == BufferState::InFlight)
        {
            waitComplete(what, where);
        }
        finaliseComm(where);
        return true;
    }

    /** @brief Uses @p tag instead of the name's hash (the Communicator's checked tags). */
    void setTag(int tag) noexcept
    {
        tag_ = tag;
        tagSet_ = true;
    }

    /** @brief The tag of the messages. */
    [[nodiscard]] int tag() const noexcept { return tag_; }

    /** @brief Overrides the environment's wait policy for this buffer. */
    void setWaitPolicy(WaitPolicy policy) noexcept { policy_ = policy; }

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

    /** @brief The send half. */
    [[nodiscard]] HalfDuplexCommBuffer<MemSpace>& sendHalf() noexcept { return send_; }

    /** @brief The receive half. */
    [[nodiscard]] HalfDuplexCommBuffer<MemSpace>& receiveHalf() noexcept { return receive_; }

private:
    WaitPolicy policy()
    {
        if (!policy_)
        {
            policy_ = WaitPolicy::fromEnvironment();
        }
        return *policy_;
    }

    [[noreturn]] void
    failState(std::string_view call, BufferState state, const std::source_location& where) const
    {
        std::string why = state == BufferState::Free
                              ? "the buffer is not claimed (call initComm first)"
                              : "communication was already started";
        throw Error(
            "communication buffer '" + name() + "': " + std::string(call) + ": " + why, where
        );
    }

    void checkNotStarted(std::string_view call, const std::source_location& where) const
    {
        if (send_.state() != BufferState::Claimed)
        {
            failState(call, send_.state(), where);
        }
    }

    void checkStarted(std::string_view call, const std::source_location& where) const
    {
        if (send_.state() == BufferState::Free || send_.state() == BufferState::Claimed ||
            receive_.state() == BufferState::Claimed)
        {
            throw Error(
                "communication buffer '" + name() + "': " + std::string(call) +
                    " before startComm (state " + toString(send_.state()) + ")",
                where
            );
        }
    }

    void copySelf(const std::source_location& where)
    {
        const int self = send_.myRank();
        const int ks = send_.selfSlot();
        const int kr = receive_.selfSlot();
        const std::size_t sendBytes = ks < 0 ? 0 : send_.bytesOf(static_cast<std::size_t>(ks));
        const std::size_t receiveBytes =
            kr < 0 ? 0 : receive_.bytesOf(static_cast<std::size_t>(kr));
        if (sendBytes != receiveBytes)
        {
            throw Error(
                "communication buffer '" + name() + "': rank " + std::to_string(self) + " sends " +
                    std::to_string(sendBytes) + " bytes to itself but expects " +
                    std::to_string(receiveBytes),
                where
            );
        }
        if (sendBytes == 0)
        {
            return;
        }
        const auto so = send_.byteOffsetOf(static_cast<std::size_t>(ks));
        const auto ro = receive_.byteOffsetOf(static_cast<std::size_t>(kr));
        if constexpr (hostAccessible<MemSpace>)
        {
            std::memcpy(receive_.data() + ro, send_.data() + so, sendBytes);
        }
        else
        {
            using Bytes = Kokkos::View<char*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
            Kokkos::deep_copy(
                Bytes(receive_.data() + ro, sendBytes), Bytes(send_.data() + so, sendBytes)
            );
        }
    }

    HalfDuplexCommBuffer<MemSpace> send_;    /**< send direction */
    HalfDuplexCommBuffer<MemSpace> receive_; /**< receive direction */
    MPI_Comm comm_ { MPI_COMM_NULL };        /**< communicator of the messages */
    int tag_ { 0 };                          /**< tag of the messages */
    bool tagSet_ { false };                  /**< tag_ chosen by setTag */
    std::optional<WaitPolicy> policy_; /**< time-out policy, from the environment by default */
    std::source_location where_;       /**< call site of the claim */
};

} // namespace fieldsync::mpi
