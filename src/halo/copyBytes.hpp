// SPDX-License-Identifier: MIT
// Host copies sized for the short runs of cells of a halo list (the pack and unpack by runs,
// src/halo/packKernels.cpp): fixed-size blocks instead of a loop per value or a call per run.
#pragma once

#include <cstddef>
#include <cstring>

namespace fieldsync::halo
{

/** @brief Copies @p N bytes as one fixed-size copy (register loads and stores, no call). */
template<std::size_t N>
inline void copyBlock(std::byte* to, const std::byte* from) noexcept
{
    std::memcpy(to, from, N);
}

/** @brief Copies @p bytes bytes, @p N <= bytes <= 2 N, as a head and a tail block of @p N
 * bytes that overlap in the middle (every length of the class takes the same two copies). */
template<std::size_t N>
inline void copyHeadTail(std::byte* to, const std::byte* from, std::size_t bytes) noexcept
{
    copyBlock<N>(to, from);
    copyBlock<N>(to + bytes - N, from + bytes - N);
}

/**
 * @brief Copies @p bytes bytes between two buffers that do not overlap, sized for the short runs
 * of a halo list: no loop over single values, but a head and a tail block of the largest of 1, 2,
 * 4, 8, 16, 32 or 64 bytes that fits (copyHeadTail()), 64-byte blocks before them from 129
 * bytes, std::memcpy from 512 bytes. Writes only [to, to + bytes).
 */
inline void
copyBytes(std::byte* __restrict to, const std::byte* __restrict from, std::size_t bytes) noexcept
{
    constexpr std::size_t memcpyFrom { 512 };
    if (bytes > 64)
    {
        if (bytes >= memcpyFrom)
        {
            std::memcpy(to, from, bytes);
            return;
        }
        std::size_t i { 0 };
        for (; i + 128 < bytes; i += 64)
        {
            copyBlock<64>(to + i, from + i);
        }
        copyHeadTail<64>(to + i, from + i, bytes - i);
    }
    else if (bytes >= 32)
    {
        copyHeadTail<32>(to, from, bytes);
    }
    else if (bytes >= 16)
    {
        copyHeadTail<16>(to, from, bytes);
    }
    else if (bytes >= 8)
    {
        copyHeadTail<8>(to, from, bytes);
    }
    else if (bytes >= 4)
    {
        copyHeadTail<4>(to, from, bytes);
    }
    else if (bytes >= 2)
    {
        copyHeadTail<2>(to, from, bytes);
    }
    else if (bytes == 1)
    {
        copyBlock<1>(to, from);
    }
}

/**
 * @brief Asks the host to fetch the cache line at @p address ahead of its use; nothing where the
 * compiler has no prefetch. A hint: it never faults, so the address may lie past the data.
 */
inline void prefetchLine(const void* address) noexcept
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address);
#else
    (void)address;
#endif
}

} // namespace fieldsync::halo
