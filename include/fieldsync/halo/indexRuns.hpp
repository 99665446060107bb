// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"

#include <algorithm>
#include <cstddef>
#include <source_location>
#include <span>
#include <vector>

namespace fieldsync::halo::detail
{

/**
 * @brief The runs of consecutive cells in each neighbour's index list of a RankSimplexCommMap,
 * found once at set-up (as PetscSF analyses its graph), and the form each list is packed in.
 *
 * A run is a stretch of the list whose cells ascend by one: positions at()[r] to at()[r+1] of
 * the map's flat index array hold cells first()[r], first()[r] + 1, ... Runs never cross from one
 * neighbour to the next: neighbour k's runs are [runBegin(k), runEnd(k)), and at()[runBegin(k)]
 * is the map's offsets()[k]. Runs are maximal: a run ends where the next cell is not the next
 * one in the field.
 *
 * Whether a list is packed by runs is the engine's pack plan's decision (src/halo/packPlan.hpp,
 * from meanRunLength()); this class only finds the runs.
 */
class IndexRuns
{
public:
    /** @brief Deprecated: the engine's threshold is PackPlan::runsFrom (src/halo/packPlan.hpp). */
    [[deprecated("the pack plan decides (src/halo/packPlan.hpp); compare meanRunLength()"
    )]] static constexpr double runsFrom { 4.0 };

    /** @brief No runs (a map with no neighbours). */
    IndexRuns() = default;

    /** @brief The runs of every neighbour list of @p map. */
    explicit IndexRuns(
        const RankSimplexCommMap& map, std::source_location where = std::source_location::current()
    );

    /**
     * @brief The runs of the lists @p indices[offsets[k], offsets[k+1]).
     * @throws Error naming @p where when the offsets do not end at the size of @p indices.
     */
    IndexRuns(
        std::span<const LocalIndex> indices,
        std::span<const std::size_t> offsets,
        std::source_location where = std::source_location::current()
    );

    /** @brief Number of runs of all lists together. */
    [[nodiscard]] std::size_t runCount() const noexcept { return first_.size(); }

    /** @brief First cell of each run. */
    [[nodiscard]] std::span<const LocalIndex> first() const noexcept { return first_; }

    /** @brief Position in the flat index array of each run's first cell, and the total size. */
    [[nodiscard]] std::span<const std::size_t> at() const noexcept { return at_; }

    /** @brief First run of list @p k. */
    [[nodiscard]] std::size_t runBegin(std::size_t k) const noexcept { return runOffsets_[k]; }

    /** @brief One past the last run of list @p k. */
    [[nodiscard]] std::size_t runEnd(std::size_t k) const noexcept { return runOffsets_[k + 1]; }

    /** @brief Cells per run of list @p k (0 for an empty list). */
    [[nodiscard]] double meanRunLength(std::size_t k) const noexcept { return mean_[k]; }

    /** @brief Deprecated: whether list @p k's mean run length is at least 4 cells. */
    [[deprecated("the pack plan decides (src/halo/packPlan.hpp); compare meanRunLength(k)"
    )]] [[nodiscard]] bool
    usesRuns(std::size_t k) const noexcept
    {
        return mean_[k] >= legacyRunsFrom_;
    }

    /** @brief Deprecated: whether some list's mean run length is at least 4 cells. */
    [[deprecated("the pack plan decides (src/halo/packPlan.hpp); compare meanRunLength(k)"
    )]] [[nodiscard]] bool
    anyRuns() const noexcept
    {
        return std::any_of(
            mean_.begin(), mean_.end(), [](double m) { return m >= legacyRunsFrom_; }
        );
    }

    /** @brief Deprecated: whether every non-empty list's mean run length is at least 4 cells. */
    [[deprecated("the pack plan decides (src/halo/packPlan.hpp); compare meanRunLength(k)"
    )]] [[nodiscard]] bool
    allRuns() const noexcept
    {
        return std::all_of(
            mean_.begin(), mean_.end(), [](double m) { return m == 0.0 || m >= legacyRunsFrom_; }
        );
    }

private:
    std::vector<LocalIndex> first_;             /**< first cell of each run */
    std::vector<std::size_t> at_ { 0 };         /**< list position of each run, then the total */
    std::vector<std::size_t> runOffsets_ { 0 }; /**< runs of list k: [k], [k+1] */
    std::vector<double> mean_;                  /**< mean run length per list */
    /** @brief The deprecated members' threshold, as it was when they were deprecated. */
    static constexpr double legacyRunsFrom_ { 4.0 };
};

} // namespace fieldsync::halo::detail
