// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/blockShape.hpp"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <source_location>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace fieldsync::halo
{

/**
 * @brief NeoN's map of one direction as plain containers (fieldsync::CommMap in compat/): for
 * each rank r of the communicator, map[r] lists the cells that go to (or come from) r in order,
 * each as an entry with a `local_idx`.
 */
template<typename Map>
concept PerRankCommMap = requires(const Map& map)
{
    {
        map.size()
        } -> std::convertible_to<std::size_t>;
    {
        map[0].size()
        } -> std::convertible_to<std::size_t>;
    {
        map[0][0].local_idx
        } -> std::convertible_to<std::int64_t>;
};

/**
 * @brief One direction (send or receive) of a halo pattern: for each neighbour rank, the ordered
 * list of local cell indices that go to (or come from) that rank.
 *
 * Stored flat: a sorted list of the neighbour ranks that have entries, offsets into one index
 * array (neighbour k's cells are indices()[offsets()[k], offsets()[k+1])). Memory grows with the
 * number of neighbours and cells, never with the communicator size. Built either as in the seed,
 * `RankSimplexCommMap(nRanks)` then setRank() per neighbour, or from the flat arrays.
 *
 * Set-up analyses each neighbour's list once: a list that is one ascending run of consecutive
 * cells (runStart()) lets the Communicator send from or receive into the field in place.
 *
 * Errors (fieldsync::Error naming the rank and the bad entry): rank out of range, negative
 * index, a neighbour listed twice, inconsistent offsets; validateFieldSize() and
 * validateUnique() check an index beyond the field and a cell written twice.
 */
class RankSimplexCommMap
{
public:
    /** @brief An empty map for a communicator of size 0 (the seed default-constructs). */
    RankSimplexCommMap() = default;

    /** @brief An empty map for a communicator of @p nRanks ranks; fill it with setRank(). */
    explicit RankSimplexCommMap(
        int nRanks, std::source_location where = std::source_location::current()
    );

    /**
     * @brief The flat form: neighbour @p neighbourRanks[k] has the cells
     * @p indices[offsets[k], offsets[k+1]). Ranks may come in any order (they are sorted);
     * neighbours with no cells are dropped.
     */
    RankSimplexCommMap(
        int nRanks,
        std::vector<int> neighbourRanks,
        std::vector<std::size_t> offsets,
        std::vector<LocalIndex> indices,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief NeoN's per-rank map (fieldsync::CommMap: one list of cells per rank of the
     * communicator, map.size() ranks), converted once into the flat form; ranks with no cells
     * are no neighbours. Implicit, so a Communicator takes NeoN's maps as they are.
     * @throws Error naming @p where when a cell index does not fit LocalIndex (or is negative).
     */
    template<PerRankCommMap Map>
    RankSimplexCommMap( // NOLINT(google-explicit-constructor): NeoN passes its maps as they are
        const Map& perRank,
        std::source_location where = std::source_location::current()
    )
        : RankSimplexCommMap(flatten(perRank, where))
    {
    }

    /**
     * @brief Sets (or replaces) the ordered cells of neighbour @p rank; an empty list removes the
     * neighbour. Set-up cost is linear in the map size.
     */
    void setRank(
        int rank,
        std::vector<LocalIndex> indices,
        std::source_location where = std::source_location::current()
    );

    /** @brief The size of the communicator the map is for. */
    [[nodiscard]] int sizeRank() const noexcept { return nRanks_; }

    /** @brief The neighbour ranks with at least one cell, ascending. */
    [[nodiscard]] std::span<const int> neighbours() const noexcept { return neighbours_; }

    /** @brief Offsets into indices(), one more than neighbours(). */
    [[nodiscard]] std::span<const std::size_t> offsets() const noexcept { return offsets_; }

    /** @brief All cell indices, neighbour after neighbour. */
    [[nodiscard]] std::span<const LocalIndex> indices() const noexcept { return indices_; }

    /** @brief The cells of neighbour @p rank (empty when it is no neighbour). */
    [[nodiscard]] std::span<const LocalIndex> indicesOf(int rank) const;

    /** @brief The number of cells of neighbour @p rank (0 when it is no neighbour). */
    [[nodiscard]] std::size_t sizeOf(int rank) const { return indicesOf(rank).size(); }

    /** @brief The total number of cells over all neighbours. */
    [[nodiscard]] std::size_t totalSize() const noexcept { return indices_.size(); }

    /** @brief The number of neighbours. */
    [[nodiscard]] std::size_t neighbourCount() const noexcept { return neighbours_.size(); }

    /** @brief Position of @p rank in neighbours(), or -1 (binary search). */
    [[nodiscard]] int slotOf(int rank) const noexcept;

    /**
     * @brief The first cell of neighbour slot @p k when its cells are one ascending run of
     * consecutive indices (first, first+1, ...), else -1.
     */
    [[nodiscard]] LocalIndex runStart(std::size_t k) const noexcept { return runStart_[k]; }

    /** @brief The largest index in the map, -1 when it is empty. */
    [[nodiscard]] LocalIndex maxIndex() const noexcept { return maxIndex_; }

    /**
     * @brief Marks the map's indices as linear indices of a padded array of @p shape (what
     * StructuredBlock does), so that a Communicator built on it refuses a rank-3 view of another
     * layout or other extents.
     */
    void setBlockShape(const detail::BlockShape& shape) noexcept { blockShape_ = shape; }

    /** @brief The padded array the indices address, when a StructuredBlock made the map. */
    [[nodiscard]] const std::optional<detail::BlockShape>& blockShape() const noexcept
    {
        return blockShape_;
    }

    /**
     * @brief Throws an Error naming @p what, the neighbour and the entry when an index is not
     * below @p fieldSize.
     */
    void validateFieldSize(
        std::size_t fieldSize, std::string_view what, const std::source_location& where
    ) const;

    /**
     * @brief Throws an Error naming @p what, both neighbours and the cell when a cell appears
     * twice (a ghost cell written twice in a receive map).
     */
    void validateUnique(std::string_view what, const std::source_location& where) const;

    /** @brief Whether some neighbour lists the same cell twice in its own list. */
    [[nodiscard]] bool hasRepeatWithinNeighbour() const;

private:
    /** @brief The flat form of NeoN's per-rank map @p perRank. */
    template<PerRankCommMap Map>
    static RankSimplexCommMap flatten(const Map& perRank, const std::source_location& where)
    {
        std::vector<int> neighbourRanks;
        std::vector<std::size_t> offsets { 0 };
        std::vector<LocalIndex> indices;
        for (std::size_t r = 0; r < perRank.size(); ++r)
        {
            const auto& cells = perRank[r];
            if (cells.size() == 0)
            {
                continue;
            }
            for (std::size_t i = 0; i < cells.size(); ++i)
            {
                const auto cell = static_cast<std::int64_t>(cells[i].local_idx);
                FIELDSYNC_CHECK_AT(
                    cell <= std::numeric_limits<LocalIndex>::max(),
                    "RankSimplexCommMap: cell " + std::to_string(cell) + " for rank " +
                        std::to_string(r) + " does not fit a 32-bit LocalIndex",
                    where
                );
                indices.push_back(static_cast<LocalIndex>(cell));
            }
            neighbourRanks.push_back(static_cast<int>(r));
            offsets.push_back(indices.size());
        }
        return RankSimplexCommMap(
            static_cast<int>(perRank.size()),
            std::move(neighbourRanks),
            std::move(offsets),
            std::move(indices),
            where
        );
    }

    void analyse(const std::source_location& where);

    int nRanks_ { 0 };                             /**< communicator size */
    std::vector<int> neighbours_;                  /**< neighbour ranks, ascending */
    std::vector<std::size_t> offsets_ { 0 };       /**< neighbours_.size() + 1 offsets */
    std::vector<LocalIndex> indices_;              /**< all cells, neighbour after neighbour */
    std::vector<LocalIndex> runStart_;             /**< first cell of a contiguous list, or -1 */
    LocalIndex maxIndex_ { -1 };                   /**< largest index, -1 when empty */
    std::optional<detail::BlockShape> blockShape_; /**< the padded array, for a block's maps */
};

} // namespace fieldsync::halo
