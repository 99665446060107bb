// SPDX-License-Identifier: MIT
#include "idMap.hpp"

#include <algorithm>
#include <bit>

namespace fieldsync::partition
{

IdMap::IdMap(std::span<const GlobalIndex> ids, std::int64_t& firstRepeat)
{
    firstRepeat = -1;
    if (ids.empty())
    {
        return;
    }
    // strictly ascending ids (the common input) need no search for the extremes and cannot
    // repeat: the sign bit of every difference ids[i - 1] - ids[i] (a loop the compiler
    // vectorises)
    std::uint64_t descents { ~std::uint64_t { 0 } };
    for (std::size_t i { 1 }; i < ids.size(); ++i)
    {
        descents &= static_cast<std::uint64_t>(ids[i - 1]) - static_cast<std::uint64_t>(ids[i]);
    }
    const bool ascending { ids[0] >= 0 && (ids.size() == 1 || (descents >> 63U) != 0) };
    GlobalIndex low { ids[0] };
    GlobalIndex high { ids.back() };
    if (!ascending)
    {
        for (const GlobalIndex id : ids)
        {
            low = std::min(low, id);
            high = std::max(high, id);
        }
    }
    const auto range = static_cast<std::uint64_t>(high - low) + 1;
    if (range <= 4 * static_cast<std::uint64_t>(ids.size()) + 1024)
    {
        dense_ = true;
        lowest_ = low;
        table_.assign(static_cast<std::size_t>(range), -1);
        if (ascending)
        {
            LocalIndex* table { table_.data() };
            for (std::size_t i { 0 }; i < ids.size(); ++i)
            {
                table[ids[i] - lowest_] = static_cast<LocalIndex>(i);
            }
            size_ = ids.size();
            return;
        }
        std::size_t repeats { 0 };
        for (std::size_t i { 0 }; i < ids.size(); ++i)
        {
            LocalIndex& slot = table_[static_cast<std::size_t>(ids[i] - lowest_)];
            if (slot >= 0)
            {
                firstRepeat = firstRepeat < 0 ? static_cast<std::int64_t>(i) : firstRepeat;
                ++repeats;
                continue;
            }
            slot = static_cast<LocalIndex>(i);
        }
        size_ = ids.size() - repeats;
        return;
    }
    rehash(std::bit_ceil(2 * ids.size()));
    for (std::size_t i { 0 }; i < ids.size(); ++i)
    {
        if (insert(ids[i], static_cast<LocalIndex>(i)) >= 0 && firstRepeat < 0)
        {
            firstRepeat = static_cast<std::int64_t>(i);
        }
    }
}

LocalIndex IdMap::insert(GlobalIndex id, LocalIndex value)
{
    if (dense_)
    {
        const LocalIndex present { find(id) };
        if (present >= 0)
        {
            return present;
        }
        // a new id in a table: move the entries into a hash map, then insert
        std::vector<LocalIndex> table { std::move(table_) };
        dense_ = false;
        size_ = 0;
        rehash(std::bit_ceil(2 * std::max<std::size_t>(table.size(), 8)));
        for (std::size_t k { 0 }; k < table.size(); ++k)
        {
            if (table[k] >= 0)
            {
                insert(lowest_ + static_cast<GlobalIndex>(k), table[k]);
            }
        }
    }
    reserve(size_ + 1);
    for (std::size_t slot { hashOf(id) };; slot = (slot + 1) & mask_)
    {
        if (keys_[slot] == id)
        {
            return values_[slot];
        }
        if (keys_[slot] < 0)
        {
            keys_[slot] = id;
            values_[slot] = value;
            ++size_;
            return -1;
        }
    }
}

void IdMap::reserve(std::size_t n)
{
    if (!dense_ && 2 * n > keys_.size())
    {
        rehash(std::max<std::size_t>(16, std::bit_ceil(2 * n)));
    }
}

void IdMap::rehash(std::size_t capacity)
{
    std::vector<GlobalIndex> keys { std::move(keys_) };
    std::vector<LocalIndex> values { std::move(values_) };
    keys_.assign(capacity, -1);
    values_.assign(capacity, -1);
    mask_ = capacity - 1;
    shift_ = 64U - static_cast<unsigned>(std::countr_zero(capacity));
    for (std::size_t k { 0 }; k < keys.size(); ++k)
    {
        if (keys[k] >= 0)
        {
            std::size_t slot { hashOf(keys[k]) };
            while (keys_[slot] >= 0)
            {
                slot = (slot + 1) & mask_;
            }
            keys_[slot] = keys[k];
            values_[slot] = values[k];
        }
    }
}

} // namespace fieldsync::partition
