// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/commKey.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/halo/commBufferCore.hpp"
#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"
#include "fieldsync/mpi/tag.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <Kokkos_Core.hpp>

#include <optional>
#include <source_location>
#include <span>
#include <type_traits>
#include <utility>

namespace fieldsync::halo
{

/**
 * @brief One direction of point-to-point communication into one contiguous byte buffer.
 *
 * The bytes live in the Kokkos memory space @p MemSpace (host by default); requests and offsets
 * stay on the host. The element type is fixed per claim by initComm<T>() (type punning: the
 * messages are bytes); each rank's slice starts at its offset. The buffer grows when a claim
 * needs more bytes and is never sized down; it never moves while a claim is in flight.
 *
 * When MPI cannot reach @p MemSpace (a device without GPU-aware MPI), or when staging is forced,
 * the messages go through a host staging buffer, allocated once and grown like the buffer.
 *
 * Guard rails (fieldsync::Error naming the buffer and the call, in every build type): claiming
 * a claimed buffer, getting a slice while in flight or with another type than the claim's (by
 * typeid), a rank out of range, posting twice, finalising while in flight.
 *
 * A buffer made with an environment is in the live-object registry (core/liveObjects.hpp) while
 * it lives: one that outlives MPIInit (held in a static) is named at MPIInit's end with its
 * creation call site, and its destruction then frees nothing that MPI or Kokkos own.
 *
 * Used alone (NeoN's way: one buffer send()s, another receive()s), every slot travels as an MPI
 * message, this rank's own slot included, so a rank's message to itself arrives like any other.
 * The messages travel on the library's private duplicate of the environment's communicator
 * (collective over it the first time: MPIInit makes MPI_COMM_WORLD's), with a tag derived from
 * the initComm name (mpi::tagFromHash, as FullDuplexCommBuffer does), so the application's own
 * messages on its communicator never meet them.
 *
 * Everything but the typed access is compiled once in CommBufferCore.
 */
template<typename MemSpace = Kokkos::HostSpace>
class HalfDuplexCommBuffer : public detail::CommBufferCore
{
public:
    using memory_space = MemSpace; /**< where the bytes live */

    /** @brief An unmanaged view of @p T over part of the buffer. */
    template<typename T>
    using SliceView = Kokkos::View<T*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

    /** @brief What get<T>() returns: a std::span on host memory, an unmanaged view otherwise. */
    template<typename T>
    using Slice = std::conditional_t<mpi::hostAccessible<MemSpace>, std::span<T>, SliceView<T>>;

    /** @brief An empty buffer; give it an environment with setMPIEnvironment(). */
    HalfDuplexCommBuffer() : CommBufferCore(mpi::detail::spaceOps<MemSpace>())
    {
        setSelfMessage(true);
    }

    /**
     * @brief Dense form (seed): @p rankCommSize[r] values for each rank r of @p env; @p where is
     * the creation call site (for the live-object registry).
     */
    HalfDuplexCommBuffer(
        MPIEnvironment env,
        std::vector<std::size_t> rankCommSize,
        std::source_location where = std::source_location::current()
    )
        : CommBufferCore(
              mpi::detail::spaceOps<MemSpace>(),
              mpi::detail::privateEnvironment(env, where),
              std::move(rankCommSize)
          ),
          live_(std::in_place, "fieldsync::halo::HalfDuplexCommBuffer", "", where)
    {
        setSelfMessage(true);
    }

    /**
     * @brief Sparse form: @p counts[k] values for neighbour @p ranks[k] (ascending); @p where is
     * the creation call site (for the live-object registry).
     */
    HalfDuplexCommBuffer(
        MPIEnvironment env,
        std::vector<int> ranks,
        std::vector<std::size_t> counts,
        std::source_location where = std::source_location::current()
    )
        : CommBufferCore(
              mpi::detail::spaceOps<MemSpace>(),
              mpi::detail::privateEnvironment(env, where),
              std::move(ranks),
              std::move(counts)
          ),
          live_(std::in_place, "fieldsync::halo::HalfDuplexCommBuffer", "", where)
    {
        setSelfMessage(true);
    }

    HalfDuplexCommBuffer(const HalfDuplexCommBuffer&) = delete; // NeoN copies; see doc/porting.md
    HalfDuplexCommBuffer& operator=(const HalfDuplexCommBuffer&) = delete; // doc/porting.md

    // the forms with an explicit tag, and the untyped setCommRankSize, stay callable
    using CommBufferCore::receive;
    using CommBufferCore::send;
    using CommBufferCore::setCommRankSize;

    /**
     * @brief NeoN's setCommRankSize<T>(sizes): @p rankCommSize[r] values for each rank r. The
     * bytes follow the type of each claim (initComm<T>), so @p T only names NeoN's intent.
     */
    template<typename T>
    void setCommRankSize(
        std::vector<std::size_t> rankCommSize,
        std::source_location where = std::source_location::current()
    )
    {
        CommBufferCore::setCommRankSize(std::move(rankCommSize), where);
    }

    /**
     * @brief NeoN's setMPIEnvironment: moves the (free) buffer to @p env's communicator; it has
     * no neighbours until setCommRankSize() or setNeighbours().
     */
    void setMPIEnvironment(
        MPIEnvironment env, std::source_location where = std::source_location::current()
    )
    {
        setEnvironment(mpi::detail::privateEnvironment(env, where), where);
        if (!live_)
        {
            live_.emplace("fieldsync::halo::HalfDuplexCommBuffer", "", where);
        }
    }

    /** @brief NeoN's name of the claim: name(), or "unassigned" while the buffer is free. */
    [[nodiscard]] std::string getCommName() const
    {
        return isCommInit() ? name() : std::string("unassigned");
    }

    /** @brief Posts the sends of the claim, one message per slot (this rank's own too). */
    void send(std::source_location where = std::source_location::current())
    {
        send(nameTag(where), where);
    }

    /** @brief Posts the receives of the claim, one message per slot (this rank's own too). */
    void receive(std::source_location where = std::source_location::current())
    {
        receive(nameTag(where), where);
    }

    /**
     * @brief Whether nothing is in flight: true while free or claimed and not yet posted (as
     * NeoN), else tests the messages once (never blocks). A received message of another size
     * than expected throws, as CommBufferCore::complete().
     */
    bool isComplete(std::source_location where = std::source_location::current())
    {
        return state() != detail::BufferState::InFlight || complete(!isSend_, where);
    }

    /**
     * @brief Waits until isComplete() (mpi::waitWithTimeout: no hot spin, the time-out of the
     * environment's mpi::WaitPolicy, naming the messages still pending); returns at once when
     * nothing is in flight.
     */
    void waitComplete(std::source_location where = std::source_location::current())
    {
        if (isComplete(where))
        {
            return;
        }
        mpi::waitWithTimeout(
            [&] { return isComplete(where); },
            [&] { return describePending(where); },
            mpi::WaitPolicy::fromEnvironment(),
            "communication",
            name(),
            where
        );
    }

    /**
     * @brief Claims the buffer under @p name for values of @p T, @p entriesPerCount values per
     * counted entry (components and fields of a multi-field exchange). Grows the buffer if needed.
     */
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
        claimBytes(name, typeid(T), entriesPerCount * sizeof(T), where);
    }

    /** @brief The slice of @p rank (empty when @p rank is in range but no neighbour). */
    template<typename T>
    [[nodiscard]] Slice<T>
    get(int rank, std::source_location where = std::source_location::current())
    {
        return typedSlice<T>(*this, rank, where);
    }

    /**
     * @brief The read-only slice of @p rank on a const buffer (checks as get()); the state is
     * only read.
     */
    template<typename T>
    [[nodiscard]] Slice<const T>
    get(int rank, std::source_location where = std::source_location::current()) const
    {
        const auto slice = typedSlice<T>(const_cast<HalfDuplexCommBuffer&>(*this), rank, where);
        return Slice<const T>(slice.data(), slice.size());
    }

    /** @brief The slice of @p rank in @p half, typed as @p T (checks as get()). */
    template<typename T>
    [[nodiscard]] static Slice<T>
    typedSlice(CommBufferCore& half, int rank, const std::source_location& where)
    {
        const std::span<char> bytes = half.slice(rank, typeid(T), where);
        T* first = reinterpret_cast<T*>(bytes.data());
        return Slice<T>(first, bytes.size() / sizeof(T));
    }

    /** @brief All slices as one unmanaged view of @p T (for pack and unpack kernels). */
    template<typename T>
    [[nodiscard]] SliceView<T> view(std::source_location where = std::source_location::current())
    {
        checkType(typeid(T), where);
        return SliceView<T>(reinterpret_cast<T*>(data()), totalBytes() / sizeof(T));
    }

private:
    /** @brief The tag of the claim's name on the buffer's communicator (claimed: checked). */
    [[nodiscard]] int nameTag(const std::source_location& where) const
    {
        requireState(detail::BufferState::Claimed, "send/receive", where);
        return mpi::tagFromHash(fnv1a32(name()), comm_);
    }

    std::optional<fieldsync::detail::LiveObject>
        live_; /**< registered while it lives (not when made empty) */
};

} // namespace fieldsync::halo
