// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/halo/commBufferCore.hpp"
#include "fieldsync/mpi/memorySpace.hpp"

#include <Kokkos_Core.hpp>

#include <span>
#include <type_traits>

namespace fieldsync::mpi
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
 */
template<typename MemSpace = Kokkos::HostSpace>
class HalfDuplexCommBuffer : public CommBufferCore
{
public:
    using memory_space = MemSpace; /**< where the bytes live */

    /** @brief An unmanaged view of @p T over part of the buffer. */
    template<typename T>
    using SliceView = Kokkos::View<T*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

    /** @brief What get<T>() returns: a std::span on host memory, an unmanaged view otherwise. */
    template<typename T>
    using Slice = std::conditional_t<hostAccessible<MemSpace>, std::span<T>, SliceView<T>>;

    /** @brief An empty buffer. */
    HalfDuplexCommBuffer() = default;

    /** @brief Dense form (seed): @p rankCommSize[r] values for each rank r of @p env. */
    HalfDuplexCommBuffer(MPIEnvironment env, std::vector<std::size_t> rankCommSize)
        : CommBufferCore(env, std::move(rankCommSize))
    {
    }

    /** @brief Sparse form: @p counts[k] values for neighbour @p ranks[k] (ascending). */
    HalfDuplexCommBuffer(
        MPIEnvironment env, std::vector<int> ranks, std::vector<std::size_t> counts
    )
        : CommBufferCore(env, std::move(ranks), std::move(counts))
    {
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
        const std::size_t bytes = claim(name, typeid(T), entriesPerCount * sizeof(T), where);
        if (storage_.extent(0) < bytes)
        {
            storage_ = Kokkos::View<char*, MemSpace>(
                Kokkos::view_alloc(Kokkos::WithoutInitializing, "fieldsync::commBuffer"), bytes
            );
        }
    }

    /** @brief Stages the messages through host memory (set when free or claimed). */
    void setStaging(bool staging) noexcept { staging_ = staging; }

    /** @brief Whether the messages go through host staging memory. */
    [[nodiscard]] bool staging() const noexcept { return staging_; }

    /** @brief The slice of @p rank (empty when @p rank is in range but no neighbour). */
    template<typename T>
    [[nodiscard]] Slice<T>
    get(int rank, std::source_location where = std::source_location::current())
    {
        if (state_ != BufferState::Claimed && state_ != BufferState::Complete)
        {
            requireState(BufferState::Claimed, "get", where);
        }
        checkType(typeid(T), where);
        const int k = slotOf(rank, where);
        if (k < 0)
        {
            return Slice<T>();
        }
        const auto uk = static_cast<std::size_t>(k);
        T* data = reinterpret_cast<T*>(storage_.data() + byteOffsetOf(uk));
        const std::size_t n = bytesOf(uk) / sizeof(T);
        if constexpr (hostAccessible<MemSpace>)
        {
            return std::span<T>(data, n);
        }
        else
        {
            return SliceView<T>(data, n);
        }
    }

    /** @brief All slices as one unmanaged view of @p T (for pack and unpack kernels). */
    template<typename T>
    [[nodiscard]] SliceView<T> view(std::source_location where = std::source_location::current())
    {
        checkType(typeid(T), where);
        return SliceView<T>(reinterpret_cast<T*>(storage_.data()), totalBytes() / sizeof(T));
    }

    /** @brief Posts the sends (MPI_Isend, or MPI_Startall of persistent requests). */
    void send(int tag, std::source_location where = std::source_location::current())
    {
        requireState(BufferState::Claimed, "send", where);
        if (staging_)
        {
            stageToHost();
        }
        post(true, mpiBase(), tag, where);
        state_ = BufferState::InFlight;
    }

    /** @brief Posts the receives (MPI_Irecv, or MPI_Startall of persistent requests). */
    void receive(int tag, std::source_location where = std::source_location::current())
    {
        requireState(BufferState::Claimed, "receive", where);
        ensureStaging();
        post(false, mpiBase(), tag, where);
        state_ = BufferState::InFlight;
    }

    /**
     * @brief Marks a started direction complete once its requests are done (MPI_Testall); a
     * staged receive is copied back from the host. Returns true when complete.
     * @throws Error when a received message has another size than expected (see testRequests);
     * the direction is complete then.
     */
    bool complete(bool isReceive, const std::source_location& where)
    {
        if (state_ == BufferState::Complete)
        {
            return true;
        }
        requireState(BufferState::InFlight, "complete", where);
        if (!testRequests(isReceive, where))
        {
            return false;
        }
        if (isReceive && staging_)
        {
            stageFromHost();
        }
        state_ = BufferState::Complete;
        return true;
    }

    /** @brief Releases the claim; the buffer must not be in flight. */
    void finaliseComm(std::source_location where = std::source_location::current())
    {
        if (state_ == BufferState::InFlight)
        {
            requireState(BufferState::Complete, "finaliseComm", where);
        }
        state_ = BufferState::Free; // name() reads empty now; name_ is kept for the next claim
        type_ = nullptr;
    }

    /** @brief Sets the state after a local operation (a self copy completes at once). */
    void markComplete() noexcept { state_ = BufferState::Complete; }

    /** @brief Sets the state to in flight without MPI (nothing to send on this side). */
    void markInFlight() noexcept { state_ = BufferState::InFlight; }

    /** @brief The bytes (in MemSpace). */
    [[nodiscard]] char* data() const noexcept { return storage_.data(); }

private:
    void ensureStaging()
    {
        if (staging_ && hostStorage_.extent(0) < totalBytes())
        {
            hostStorage_ = Kokkos::View<char*, Kokkos::HostSpace>(
                Kokkos::view_alloc(Kokkos::WithoutInitializing, "fieldsync::commStaging"),
                totalBytes()
            );
        }
    }

    char* mpiBase() const noexcept { return staging_ ? hostStorage_.data() : storage_.data(); }

    void stageToHost()
    {
        ensureStaging();
        const std::pair<std::size_t, std::size_t> range { 0, totalBytes() };
        Kokkos::deep_copy(Kokkos::subview(hostStorage_, range), Kokkos::subview(storage_, range));
    }

    void stageFromHost()
    {
        // everything but the self slice, which the local copy wrote on the device side
        const int self = selfSlot();
        std::size_t gapBegin { totalBytes() };
        std::size_t gapEnd { totalBytes() };
        if (self >= 0)
        {
            gapBegin = byteOffsetOf(static_cast<std::size_t>(self));
            gapEnd = gapBegin + bytesOf(static_cast<std::size_t>(self));
        }
        for (const auto& range : { std::pair<std::size_t, std::size_t> { 0, gapBegin },
                                   std::pair<std::size_t, std::size_t> { gapEnd, totalBytes() } })
        {
            if (range.first < range.second)
            {
                Kokkos::deep_copy(
                    Kokkos::subview(storage_, range), Kokkos::subview(hostStorage_, range)
                );
            }
        }
    }

    Kokkos::View<char*, MemSpace> storage_;              /**< the bytes */
    Kokkos::View<char*, Kokkos::HostSpace> hostStorage_; /**< staging copy on the host */
    bool staging_ { useStaging<MemSpace>() };            /**< stage via host */
};

} // namespace fieldsync::mpi
