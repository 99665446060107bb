// SPDX-License-Identifier: MIT
// Small blocks a thread frees and allocates again: the access objects of staged and asynchronous
// collectives (doc/collectives.md, "Cost").
#pragma once

#include <cstddef>
#include <new>

namespace fieldsync::mpi::detail
{

/** @brief The largest block recycledAllocate keeps for reuse; larger ones go to operator new. */
inline constexpr std::size_t recycledBlockBytes { 256 };

/**
 * @brief @p bytes of memory aligned for any standard type: a block this thread freed with
 * recycledFree when one is kept (at most 8 per thread, each recycledBlockBytes), operator new
 * otherwise.
 * @throws std::bad_alloc as operator new.
 */
[[nodiscard]] void* recycledAllocate(std::size_t bytes);

/** @brief Frees @p block of @p bytes from recycledAllocate: kept for this thread's next
 * recycledAllocate while it has room, otherwise (and after the thread's blocks were freed at its
 * end) given to operator delete. */
void recycledFree(void* block, std::size_t bytes) noexcept;

/**
 * @brief A standard allocator over recycledAllocate, for std::allocate_shared: a loop of staged
 * (or asynchronous) collectives keeps its access objects and their control blocks in the same few
 * blocks instead of a malloc and a free each per call.
 */
template<typename T>
struct RecyclingAllocator
{
    using value_type = T; /**< what it allocates */

    RecyclingAllocator() noexcept = default;

    /** @brief Converts from the allocator of another type (std::allocate_shared rebinds it). */
    template<typename U>
    RecyclingAllocator(const RecyclingAllocator<U>& /*other*/) noexcept // NOLINT: implicit
    {
    }

    /** @brief @p n objects' worth of memory. */
    [[nodiscard]] T* allocate(std::size_t n)
    {
        static_assert(alignof(T) <= alignof(std::max_align_t), "over-aligned type");
        return static_cast<T*>(recycledAllocate(n * sizeof(T)));
    }

    /** @brief Frees what allocate(@p n) returned. */
    void deallocate(T* p, std::size_t n) noexcept { recycledFree(p, n * sizeof(T)); }

    /** @brief All of them are interchangeable. */
    template<typename U>
    bool operator==(const RecyclingAllocator<U>& /*other*/) const noexcept
    {
        return true;
    }
};

} // namespace fieldsync::mpi::detail
