// SPDX-License-Identifier: MIT
// Naming schemes as functions (seeds/001): renumbering the ranks of a communicator.
#pragma once

#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <concepts>
#include <functional>
#include <source_location>
#include <type_traits>
#include <utility>
#include <vector>

namespace fieldsync::mpi
{

/**
 * @brief How a topology constructor numbers its ranks: keep the numbering (the default), let MPI
 * choose (the `reorder` flag of MPI_Cart_create / MPI_Dist_graph_create_adjacent, a black box),
 * or apply a user mapping old rank -> new rank (a function or a vector), as seeds/001 proposes.
 *
 * Built implicitly from `false`/`true`, from a `std::vector<int>` (entry r: new rank of old rank
 * r) or from any callable `int(int)`, so a constructor takes `..., true)`, `..., myMapping)` or
 * `..., std::vector<int> {1, 0})` in the same parameter.
 */
class Reordering
{
public:
    /** @brief What a Reordering does. */
    enum class Kind
    {
        None,   /**< keep the ranks of the environment */
        Mpi,    /**< let MPI reorder (its reorder flag) */
        Mapping /**< apply mapping() through reorder() */
    };

    /** @brief Keep the numbering. */
    Reordering() = default;

    /** @brief Kind::Mpi when @p mpiReorders, else Kind::None (only a real bool converts). */
    template<std::same_as<bool> Bool>
    Reordering(Bool mpiReorders) noexcept // NOLINT(google-explicit-constructor)
        : kind_(mpiReorders ? Kind::Mpi : Kind::None)
    {
    }

    /** @brief The mapping old rank r -> @p newRankOf[r]. */
    Reordering(std::vector<int> newRankOf); // NOLINT(google-explicit-constructor)

    /** @brief The mapping old rank -> @p mapping(old rank), evaluated on each rank for itself. */
    template<typename F>
    requires(std::is_invocable_r_v<int, const F&, int> && !std::same_as<F, bool>)
        Reordering(F mapping) // NOLINT(google-explicit-constructor)
        : kind_(Kind::Mapping), mapping_(std::move(mapping))
    {
    }

    /** @brief What this Reordering does. */
    [[nodiscard]] Kind kind() const noexcept { return kind_; }

    /** @brief The mapping (empty unless kind() is Kind::Mapping). */
    [[nodiscard]] const std::function<int(int)>& mapping() const noexcept { return mapping_; }

private:
    Kind kind_ { Kind::None };           /**< what to do */
    std::function<int(int)> mapping_ {}; /**< old rank -> new rank, for Kind::Mapping */
};

/**
 * @brief Collective: every rank's new rank, @p mapping(rank()) evaluated by each rank for itself
 * and gathered, so entry r is the new rank of old rank r.
 * @throws Error on every rank, naming the old ranks, when the result is not a permutation of
 * 0 .. sizeRank()-1 (a target out of range, or two old ranks with the same target).
 */
[[nodiscard]] std::vector<int> gatherRankMapping(
    const MPIEnvironment& env,
    const std::function<int(int)>& mapping,
    std::source_location where = std::source_location::current()
);

/**
 * @brief Collective: a new communicator in which old rank r has rank @p mapping(r) (a naming
 * scheme applied as a function, seeds/001): MPI_Comm_split with one colour and key = new rank,
 * after checking that the mapping is a permutation (gatherRankMapping(); an Error on every rank
 * otherwise).
 */
[[nodiscard]] MPIEnvironment reorder(
    const MPIEnvironment& env,
    const std::function<int(int)>& mapping,
    std::source_location where = std::source_location::current()
);

/** @brief reorder() with old rank r -> @p newRankOf[r] (the same vector on every rank). */
[[nodiscard]] MPIEnvironment reorder(
    const MPIEnvironment& env,
    const std::vector<int>& newRankOf,
    std::source_location where = std::source_location::current()
);

namespace detail
{
/** @brief Collective: the old -> new rank mapping from @p oldEnv to @p newEnv (same group). */
[[nodiscard]] std::vector<int>
rankMappingBetween(const MPIEnvironment& oldEnv, const MPIEnvironment& newEnv);
} // namespace detail

} // namespace fieldsync::mpi
