// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/config.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/cellGraph.hpp"

#include <source_location>
#include <vector>

namespace fieldsync::partition
{

#if FIELDSYNC_HAVE_PTSCOTCH || defined(FIELDSYNC_DOXYGEN)

/**
 * @brief Distributed graph partitioning with PT-Scotch (SCOTCH_dgraphPart), for meshes that no
 * rank holds whole (only when fieldsync was built with PT-Scotch, FIELDSYNC_HAVE_PTSCOTCH).
 *
 * Input: on each rank a CellGraph of the cells it holds, the same input HaloBuilder takes, in
 * the block distribution a parallel mesh generator or reader gives: rank r holds the
 * contiguous, ascending global ids [b_r, b_r + n_r) with b_0 = 0 and b_{r+1} = b_r + n_r.
 * Output: the part (new owner rank) of each of this rank's rows. Sending the cells to their
 * parts and building the HaloLayout is then the same as on the METIS path.
 *
 * The partition is not reproducible from call to call (measured with Debian's threaded
 * PT-Scotch 7.0.3: the same graph on the same ranks may come back with other labels or other
 * cells), which does not matter to a solver whose result does not depend on the partition.
 * PT-Scotch must be built against the MPI in use (Debian's is
 * built against Open MPI; the MPICH build configures it off).
 */
class PtScotchPartitioner
{
public:
    /**
     * @brief A partitioner allowing @p imbalance (0.05: parts up to 5% above the mean) with
     * PT-Scotch's default strategy for that tolerance. The strategy keeps to the tolerance on
     * meshes of some size; on a small graph a part may pass it by a few cells.
     */
    explicit PtScotchPartitioner(double imbalance = 0.05) : imbalance_(imbalance) {}

    /**
     * @brief Collective: the part of each row of @p owned, into @p nParts parts (the number of
     * ranks when < 1). One part gives all zeros without calling PT-Scotch.
     * @throws Error on every rank for rows that are not the block distribution above (naming
     * the rank and row), a neighbour id outside the graph, ids beyond SCOTCH_Num, an asymmetric
     * graph (SCOTCH_dgraphCheck) or a PT-Scotch failure.
     */
    [[nodiscard]] std::vector<int> partition(
        const mpi::MPIEnvironment& env,
        const CellGraph& owned,
        int nParts = 0,
        std::source_location where = std::source_location::current()
    ) const;

    /** @brief The allowed imbalance. */
    [[nodiscard]] double imbalance() const noexcept { return imbalance_; }

private:
    double imbalance_; /**< allowed load imbalance ratio */
};

#else

/**
 * @brief Stands in for PtScotchPartitioner in a build without PT-Scotch (FIELDSYNC_HAVE_PTSCOTCH is
 * 0), so that a use fails to compile with a message that says why, not as an unknown name.
 */
class PtScotchPartitioner
{
public:
    /** @brief Never compiles: see the message. */
    template<typename... Args>
    explicit PtScotchPartitioner(Args&&... /*unused*/)
    {
        static_assert(
            sizeof...(Args) != sizeof...(Args),
            "fieldsync::partition::PtScotchPartitioner needs PT-Scotch, and this fieldsync was "
            "built with FIELDSYNC_WITH_PTSCOTCH=OFF (PT-Scotch not found, or built against "
            "another MPI; Debian: libptscotch-dev)"
        );
    }
};

#endif

} // namespace fieldsync::partition
