// SPDX-License-Identifier: MIT
// Internal: the halo pattern of a Communicator, built and checked at set-up and commit, read-only
// while data moves.
#pragma once

#include "bufferPool.hpp"
#include "packPlan.hpp"

#include "fieldsync/halo/commitOptions.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>
#include <span>
#include <vector>

namespace fieldsync::halo
{

/**
 * @brief FNV-1a (64 bit, a word per cell) over the global ids (or, without ids, the indices) of
 * @p cells, in order: commit's pattern agreement and check mode's per-exchange check compare it.
 */
[[nodiscard]] std::uint64_t
cellsHash(std::span<const LocalIndex> cells, std::span<const std::int64_t> ids);

/**
 * @brief Who sends which cells to whom: the send and receive maps and what is derived from them
 * once (their peers, their largest neighbour list, the pack plan with their index runs, check
 * mode's cell hashes).
 * Built and checked with the Communicator (the constructor) and at commit (hashCells); the steps
 * of an exchange read it through a `const Pattern&`.
 */
class Pattern
{
public:
    /**
     * @brief Takes the maps of a communicator of @p size ranks seen from rank @p me; checks them
     * (with @p checked, GhostList's maps, only what their set-up did not check).
     */
    Pattern(
        RankSimplexCommMap sendMap,
        RankSimplexCommMap receiveMap,
        int size,
        int me,
        const std::source_location& where,
        bool checked
    );

    /** @brief At commit: whether the cells are named by global ids, and in @p check mode the
     * hash of each neighbour's cells (CommitOptions::globalIds, else the local indices). */
    void hashCells(const CommitOptions& options, bool check);

    /** @brief The cells sent to each neighbour. */
    [[nodiscard]] const RankSimplexCommMap& sendMap() const noexcept { return sendMap_; }
    /** @brief The ghost cells received from each neighbour. */
    [[nodiscard]] const RankSimplexCommMap& receiveMap() const noexcept { return receiveMap_; }
    /** @brief The map @p reverse exchanges send from (the receive map for a reverse one). */
    [[nodiscard]] const RankSimplexCommMap& from(bool reverse) const noexcept
    {
        return reverse ? receiveMap_ : sendMap_;
    }
    /** @brief The map @p reverse exchanges receive into. */
    [[nodiscard]] const RankSimplexCommMap& to(bool reverse) const noexcept
    {
        return reverse ? sendMap_ : receiveMap_;
    }
    /** @brief The padded array of a StructuredBlock's maps (none for other maps). */
    [[nodiscard]] const std::optional<detail::BlockShape>& blockShape() const noexcept
    {
        return sendMap_.blockShape();
    }
    /** @brief The send map lists a cell twice for one neighbour. */
    [[nodiscard]] bool sendRepeats() const noexcept { return sendRepeats_; }
    /** @brief The most cells of one neighbour, in either map. */
    [[nodiscard]] std::size_t maxCells() const noexcept { return maxCells_; }
    /** @brief The ranks this one sends to or receives from (itself excluded), ascending. */
    [[nodiscard]] const std::vector<int>& peers() const noexcept { return peers_; }
    /** @brief The cell hashes are of global ids (hashCells). */
    [[nodiscard]] bool globalIds() const noexcept { return globalIds_; }
    /** @brief Check mode's hash of each neighbour's cells of the map @p reverse sends from. */
    [[nodiscard]] const std::vector<std::uint64_t>& sendHashes(bool reverse) const noexcept
    {
        return reverse ? cells_->receive : cells_->send;
    }
    /** @brief Check mode's hash of each neighbour's cells of the map @p reverse receives into. */
    [[nodiscard]] const std::vector<std::uint64_t>& receiveHashes(bool reverse) const noexcept
    {
        return reverse ? cells_->send : cells_->receive;
    }

    /** @brief The pack strategy of the maps (src/halo/packPlan.hpp), made at construction. */
    [[nodiscard]] const PackPlan& plan() const noexcept { return *plan_; }
    /** @brief The map indices (and with @p withRuns their runs) in @p space (IndexCache). */
    const IndexArrays& indices(const mpi::detail::SpaceOps& space, bool withRuns) const
    {
        return indices_.get(
            space, sendMap_, receiveMap_, plan_->send().runs, plan_->receive().runs, withRuns
        );
    }

private:
    /** @brief Check mode's hash of each neighbour's list. */
    struct CellHashes
    {
        std::vector<std::uint64_t> send;    /**< of each send list */
        std::vector<std::uint64_t> receive; /**< of each receive list */
    };

    RankSimplexCommMap sendMap_;    /**< cells sent to each neighbour */
    RankSimplexCommMap receiveMap_; /**< ghost cells received from each */
    /** @brief the pack strategy, found once from the maps; allocated apart, so that the
     * Communicator's state stays one small allocation */
    std::unique_ptr<const PackPlan> plan_;
    /** @brief map indices per memory space; mutable: copied to a space on its first use */
    mutable IndexCache indices_;
    std::vector<int> peers_;            /**< ranks this one sends to or receives from */
    std::size_t maxCells_ { 0 };        /**< most cells of one neighbour, either map */
    std::unique_ptr<CellHashes> cells_; /**< null outside check mode (allocated apart) */
    bool sendRepeats_ { false };        /**< send map repeats a cell per neighbour */
    bool globalIds_ { false };          /**< the cell hashes are of global ids */
};

} // namespace fieldsync::halo
