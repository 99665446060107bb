// SPDX-License-Identifier: MIT
// Internal: a stable sort by an unsigned key in linear time (HaloBuilder's ghost and request
// lists, which std::sort took most of the builder's time to order outside its adjacency pass).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace fieldsync::partition
{

/**
 * @brief Sorts @p items by @p key (a callable giving each item's key as std::uint64_t), stably:
 * a least significant digit radix sort, one byte of the key a pass, as many passes as the largest
 * key has bytes. Items already in order are left as they are after one pass that finds so.
 * O(n) per pass, no comparisons, so no branch that mispredicts on the data.
 */
template<typename T, typename Key>
void radixSort(std::vector<T>& items, const Key& key)
{
    std::uint64_t bits { 0 };
    bool sorted { true };
    for (std::size_t k { 0 }; k < items.size(); ++k)
    {
        bits |= key(items[k]);
        sorted = sorted && (k == 0 || key(items[k - 1]) <= key(items[k]));
    }
    if (sorted)
    {
        return;
    }
    std::vector<T> buffer(items.size());
    for (unsigned shift { 0 }; shift < 64U && (bits >> shift) != 0; shift += 8U)
    {
        std::array<std::size_t, 256> start {};
        for (const T& item : items)
        {
            ++start[(key(item) >> shift) & 0xFFU];
        }
        std::exclusive_scan(start.begin(), start.end(), start.begin(), std::size_t { 0 });
        for (const T& item : items)
        {
            buffer[start[(key(item) >> shift) & 0xFFU]++] = item;
        }
        items.swap(buffer);
    }
}

} // namespace fieldsync::partition
