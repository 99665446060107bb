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
            const auto offset = static_cast<std::uint64_t>(id - lowest_);
            return offset < table_.size() ? table_[offset] : LocalIndex { -1 };
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

    /** @brief Whether @p id is present. */
    [[nodiscard]] bool contains(GlobalIndex id) const noexcept { return find(id) >= 0; }

    /**
     * @brief Inserts @p id -> @p value unless @p id is present; returns the value already there,
     * or -1 when it inserted. Turns a table into a hash map first when @p id is new.
     */
    LocalIndex insert(GlobalIndex id, LocalIndex value);

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
