// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/config.hpp"
#include "fieldsync/core/callerValue.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/haloLayout.hpp"
#include "fieldsync/partition/migration.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <source_location>
#include <span>
#include <string>
#include <vector>

namespace fieldsync::partition
{

/** @brief How Rebalancer computes the new partition (Zoltan's LB_METHOD). */
enum class RebalanceMethod
{
    Graph, /**< Zoltan's hypergraph partitioner on the cell graph (GRAPH, PHG) */
    Hsfc,  /**< Hilbert space-filling curve over the cell centroids (HSFC) */
    Rcb    /**< recursive coordinate bisection over the cell centroids (RCB) */
};

/** @brief The method's name as the example's options and reports spell it (graph, hsfc, rcb). */
[[nodiscard]] inline std::string toString(RebalanceMethod method)
{
    return method == RebalanceMethod::Graph  ? "graph"
           : method == RebalanceMethod::Hsfc ? "hsfc"
                                             : "rcb";
}

/** @brief Settings of a Rebalancer. */
struct RebalanceOptions
{
    RebalanceMethod method { RebalanceMethod::Hsfc }; /**< partitioning method */
    double imbalanceTolerance { 1.05 }; /**< Zoltan IMBALANCE_TOL: parts up to 5% over the mean */
    double migrationCost { 100.0 };     /**< Graph: PHG_REPART_MULTIPLIER (cut vs cells moved) */
    int haloDepth { 1 };                /**< halo layers of the rebuilt HaloLayout */
};

/** @brief What one rebalance did (global values, the same on every rank). */
struct RebalanceReport
{
    std::int64_t cellsMoved { 0 };   /**< cells whose owner changed */
    double imbalanceBefore { 1.0 };  /**< max / mean of the per-rank weight sums before */
    double imbalanceAfter { 1.0 };   /**< the same after */
    double partitionSeconds { 0.0 }; /**< Zoltan (slowest rank) */
    double migrationSeconds { 0.0 }; /**< cells and fields to their new owners (slowest rank) */
    double rebuildSeconds { 0.0 };   /**< HaloLayout and Communicator (slowest rank) */
};

/** @brief The result of Rebalancer::rebalance(): the new partition, ready to run on. */
struct Rebalanced
{
    Migration migration;             /**< the plan (more fields may follow it: migrate()) */
    HaloLayout layout;               /**< the new layout; owned cells by ascending id */
    halo::Communicator communicator; /**< committed for layout's maps */
    RebalanceReport report;          /**< what it cost */
    /**
     * @brief Where each new owned cell (layout order) came from: the rank that owned it before
     * and its owned index in the old layout there (for a layout from layoutFromGhosts(), the
     * caller's own index), so a code can move its own per-cell, face- and point-based data.
     */
    std::vector<halo::GhostOwner> origins;
};

#if FIELDSYNC_HAVE_ZOLTAN || defined(FIELDSYNC_DOXYGEN)

/**
 * @brief Dynamic load balancing with Zoltan (only when fieldsync was built with it,
 * FIELDSYNC_HAVE_ZOLTAN): a new owner for each owned cell from per-cell weights, with Zoltan's
 * repartitioning approach (LB_APPROACH=REPARTITION), which keeps most cells where they are;
 * then the cells and any number of fields move to their new owners (Migration) and the
 * HaloLayout and the Communicator are rebuilt.
 *
 * The graph method (PHG) balances weight while trading edge cut against cells moved
 * (RebalanceOptions::migrationCost); the geometric methods (HSFC, RCB) need the cell centroids
 * and cut along them. Zoltan must be built against the MPI in use (Debian's is built against
 * Open MPI; the MPICH build configures it off).
 */
class Rebalancer
{
public:
    /** @brief A rebalancer over the ranks of @p env. */
    explicit Rebalancer(mpi::MPIEnvironment env, RebalanceOptions options = {});

    /**
     * @brief Collective: the new owner of each owned cell of @p layout, given @p weights (one
     * per owned cell, > 0) and, for the geometric methods, @p centroids (one per owned cell)
     * in @p dimension (2 or 3) dimensions.
     * @throws Error on every rank when some rank passes weights or centroids of the wrong
     * length or a weight <= 0 (that rank names the cell), or when Zoltan fails.
     */
    [[nodiscard]] std::vector<int> newOwners(
        const HaloLayout& layout,
        std::span<const double> weights,
        std::span<const std::array<double, 3>> centroids = {},
        int dimension = 3,
        std::source_location where = std::source_location::current()
    ) const;

    /**
     * @brief Collective: newOwners(), then moves the cells and each of @p fields (views over
     * @p layout, replaced by views over the new layout: see Migration::migrate()) and builds
     * the new HaloLayout and Communicator. @p dimension carries the caller's
     * std::source_location (a plain number converts, see detail::CallerValue), which every Error
     * names.
     * @throws Error on every rank when some rank's input is bad (as newOwners(), or a field
     * with fewer rows than @p layout's owned cells: that rank names it).
     */
    template<typename... Views>
    [[nodiscard]] Rebalanced rebalance(
        const HaloLayout& layout,
        std::span<const double> weights,
        std::span<const std::array<double, 3>> centroids,
        fieldsync::detail::CallerValue<int> dimension,
        Views&... fields
    ) const
    {
        const std::source_location& where { dimension.where() };
        Rebalanced result { repartition(layout, weights, centroids, dimension.value(), where) };
        const auto start = std::chrono::steady_clock::now();
        result.migration.migrate({ result.layout.nLocal(), where }, fields...);
        addMigrationSeconds(
            result.report,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
            where
        );
        return result;
    }

    /** @brief The settings. */
    [[nodiscard]] const RebalanceOptions& options() const noexcept { return options_; }

private:
    /** @brief rebalance() without the fields: partition, cells moved, layout rebuilt. */
    [[nodiscard]] Rebalanced repartition(
        const HaloLayout& layout,
        std::span<const double> weights,
        std::span<const std::array<double, 3>> centroids,
        int dimension,
        const std::source_location& where
    ) const;

    /** @brief Collective: adds @p seconds (slowest rank) to the report's migration time. */
    void addMigrationSeconds(
        RebalanceReport& report, double seconds, const std::source_location& where
    ) const;

    mpi::MPIEnvironment env_;  /**< the ranks */
    RebalanceOptions options_; /**< settings */
};

#else

/**
 * @brief Stands in for Rebalancer in a build without Zoltan (FIELDSYNC_HAVE_ZOLTAN is 0), so that a
 * use fails to compile with a message that says why, not as an unknown name.
 */
class Rebalancer
{
public:
    /** @brief Never compiles: see the message. */
    template<typename... Args>
    explicit Rebalancer(Args&&... /*unused*/)
    {
        static_assert(
            sizeof...(Args) != sizeof...(Args),
            "fieldsync::partition::Rebalancer needs Zoltan, and this fieldsync was built "
            "with FIELDSYNC_WITH_ZOLTAN=OFF (Zoltan not found, or built against another "
            "MPI; Debian: libtrilinos-zoltan-dev)"
        );
    }
};

#endif

} // namespace fieldsync::partition
