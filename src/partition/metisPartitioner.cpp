// SPDX-License-Identifier: MIT
#include "fieldsync/partition/metisPartitioner.hpp"

#include "fieldsync/core/error.hpp"

#include <limits>
#include <string>
#include <vector>

#include <metis.h>

namespace fieldsync::partition
{

Partition
MetisPartitioner::partition(const CellGraph& graph, int nParts, std::source_location where) const
{
    FIELDSYNC_CHECK_AT(
        nParts >= 1,
        "MetisPartitioner: number of parts must be >= 1, got " + std::to_string(nParts),
        where
    );
    graph.checkSymmetric(where);
    const std::size_t n { graph.nCells() };
    if (nParts == 1 || n == 0)
    {
        return Partition(std::vector<int>(n, 0), nParts, where);
    }
    FIELDSYNC_CHECK_AT(
        graph.adjacency().size() < static_cast<std::size_t>(std::numeric_limits<idx_t>::max()),
        "MetisPartitioner: graph with " + std::to_string(graph.adjacency().size()) +
            " adjacency entries exceeds METIS's index width",
        where
    );
    std::vector<idx_t> xadj(n + 1);
    std::vector<idx_t> adjncy(graph.adjacency().size());
    for (std::size_t i { 0 }; i <= n; ++i)
    {
        xadj[i] = static_cast<idx_t>(graph.offsets()[i]);
    }
    for (std::size_t k { 0 }; k < adjncy.size(); ++k)
    {
        adjncy[k] = static_cast<idx_t>(graph.adjacency()[k]);
    }
    idx_t nVertices { static_cast<idx_t>(n) };
    idx_t nConstraints { 1 };
    idx_t parts { static_cast<idx_t>(nParts) };
    idx_t edgeCut { 0 };
    std::vector<idx_t> result(n);
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed_);
    options[METIS_OPTION_NUMBERING] = 0;
    options[METIS_OPTION_CONTIG] = 0;
    const int rc { METIS_PartGraphKway(
        &nVertices,
        &nConstraints,
        xadj.data(),
        adjncy.data(),
        nullptr,
        nullptr,
        nullptr,
        &parts,
        nullptr,
        nullptr,
        options,
        &edgeCut,
        result.data()
    ) };
    FIELDSYNC_CHECK_AT(
        rc == METIS_OK,
        "MetisPartitioner: METIS_PartGraphKway failed with code " + std::to_string(rc) + " for " +
            std::to_string(n) + " cells into " + std::to_string(nParts) + " parts",
        where
    );
    std::vector<int> out(n);
    for (std::size_t i { 0 }; i < n; ++i)
    {
        out[i] = static_cast<int>(result[i]);
    }
    return Partition(std::move(out), nParts, where);
}

} // namespace fieldsync::partition
