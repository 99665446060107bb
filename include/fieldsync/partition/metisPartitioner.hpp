// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/config.hpp"
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/partition.hpp"

#include <source_location>

namespace fieldsync::partition
{

#if FIELDSYNC_HAVE_METIS || defined(FIELDSYNC_DOXYGEN)

/**
 * @brief METIS k-way partitioning of a whole-mesh cell graph (only when fieldsync was built
 * with METIS, FIELDSYNC_HAVE_METIS). The seed is fixed, so the same graph gives the same
 * partition on every run and every rank.
 */
class MetisPartitioner
{
public:
    /** @brief A partitioner with METIS option seed @p seed. */
    explicit MetisPartitioner(int seed = 1) : seed_(seed) {}

    /**
     * @brief Splits @p graph (a whole-mesh graph, symmetric) into @p nParts parts minimising the
     * edge cut. One part gives all zeros without calling METIS.
     * @throws Error for an asymmetric graph (naming the cell), nParts < 1, ids beyond METIS's
     * index width, or a METIS failure.
     */
    [[nodiscard]] Partition partition(
        const CellGraph& graph,
        int nParts,
        std::source_location where = std::source_location::current()
    ) const;

    /** @brief The METIS seed. */
    [[nodiscard]] int seed() const noexcept { return seed_; }

private:
    int seed_; /**< METIS_OPTION_SEED */
};

#else

/**
 * @brief Stands in for MetisPartitioner in a build without METIS (FIELDSYNC_HAVE_METIS is 0), so
 * that a use fails to compile with a message that says why, not as an unknown name.
 */
class MetisPartitioner
{
public:
    /** @brief Never compiles: see the message. */
    template<typename... Args>
    explicit MetisPartitioner(Args&&... /*unused*/)
    {
        static_assert(
            sizeof...(Args) != sizeof...(Args),
            "fieldsync::partition::MetisPartitioner needs METIS, and this fieldsync was built with "
            "FIELDSYNC_WITH_METIS=OFF (Debian: libmetis-dev)"
        );
    }
};

#endif

} // namespace fieldsync::partition
