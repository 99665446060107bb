// SPDX-License-Identifier: MIT
// Internal: global id -> local index, without a node per entry (HaloBuilder's look-ups).
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/partition/cellGraph.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace fieldsync::partition
{

/**
 * @brief Look-ups in the table of a dense IdMap (id - lowest id -> value), for a loop over many
 * ids: no test of which form the map has, one compare and one load per id.
 */
class IdTable
{
public:
    /** @brief The values @p values of the ids @p lowest .. @p lowest + values.size() - 1. */
    IdTable(GlobalIndex lowest, std::span<const LocalIndex> values) noexcept
        : lowest_(lowest), values_(values.data()), size_(values.size())
    {
    }

    /** @brief The value of @p id, or -1 when it is absent. */
    [[nodiscard]] LocalIndex find(GlobalIndex id) const noexcept
    {
        const auto offset = static_cast<std::uint64_t>(id - lowest_);
        return offset < size_ ? values_[offset] : LocalIndex { -1 };
    }

private:
    GlobalIndex lowest_;       /**< the id of values_[0] */
    const LocalIndex* values_; /**< value per id - lowest_, -1 absent */
    std::uint64_t size_;       /**< ids in the table */
};

/**
 * @brief A map from global ids (non-negative) to local indices (non-negative). Built over a
 * known set of ids, it is a table indexed by id - lowest id when the ids are compact (their
 * range at most a few times their count: one memory access per look-up, no hashing); otherwise,
 * and when grown by insert(), an open-addressing hash table (linear probing, no allocation per
 * entry). Memory grows with the entries, never with the global mesh.
 */
class IdMap
{
public:
    /** @brief An empty hash map. */
    IdMap() = default;

    /**
     * @brief The map id @p ids[i] -> i (a table when the ids are compact). Returns through
     * @p firstRepeat the position of the first id that repeats an earlier one (or -1); that
     * repeat keeps the earlier index.
     */
    IdMap(std::span<const GlobalIndex> ids, std::int64_t& firstRepeat);

    /** @brief The value of @p id, or -1 when it is absent. */
    [[nodiscard]] LocalIndex find(GlobalIndex id) const noexcept
    {
        if (dense_)
        {
            return IdTable(lowest_, table_).find(id);
        }
        if (keys_.empty())
        {
            return -1;
        }
        for (std::size_t slot { hashOf(id) };; slot = (slot + 1) & mask_)
        {
            if (keys_[slot] == id)
            {
                return values_[slot];
            }
            if (keys_[slot] < 0)
            {
                return -1;
            }
        }
    }

    /** @brief Whether the map is a table (then table() serves look-ups), not a hash. */
    [[nodiscard]] bool isTable() const noexcept { return dense_; }

    /** @brief The table of a map that isTable(). */
    [[nodiscard]] IdTable table() const noexcept { return IdTable(lowest_, table_); }

    /** @brief Whether @p id is present. */
    [[nodiscard]] bool contains(GlobalIndex id) const noexcept { return find(id) >= 0; }

    /**
     * @brief Inserts @p id -> @p value unless @p id is present; returns the value already there,
     * or -1 when it inserted. Turns a table into a hash map first when @p id is new.
     */
    LocalIndex insert(GlobalIndex id, LocalIndex value);

    /** @brief Room for @p n entries in a hash map without rehashing (a table: nothing). */
    void reserve(std::size_t n);

    /** @brief The number of entries. */
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

private:
    [[nodiscard]] std::size_t hashOf(GlobalIndex id) const noexcept
    {
        return static_cast<std::size_t>(
            (static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ULL) >> shift_
        );
    }
    void rehash(std::size_t capacity);

    bool dense_ { false };           /**< table_ holds the map */
    GlobalIndex lowest_ { 0 };       /**< the id of table_[0] */
    std::vector<LocalIndex> table_;  /**< dense: value per id - lowest_, -1 absent */
    std::vector<GlobalIndex> keys_;  /**< hash: ids, -1 empty */
    std::vector<LocalIndex> values_; /**< hash: values */
    std::size_t mask_ { 0 };         /**< hash: capacity - 1 */
    unsigned shift_ { 64 };          /**< hash: 64 - log2(capacity) */
    std::size_t size_ { 0 };         /**< entries */
};

} // namespace fieldsync::partition
