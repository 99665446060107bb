// SPDX-License-Identifier: MIT
#include "fieldsync/halo/structuredBlock.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

namespace fieldsync::halo
{

namespace
{
using CellLists = std::map<int, std::vector<LocalIndex>>;

/** @brief The flat RankSimplexCommMap of per-rank lists. */
RankSimplexCommMap toMap(int nRanks, const CellLists& lists)
{
    std::vector<int> ranks;
    std::vector<std::size_t> offsets { 0 };
    std::vector<LocalIndex> indices;
    for (const auto& [rank, cells] : lists)
    {
        ranks.push_back(rank);
        indices.insert(indices.end(), cells.begin(), cells.end());
        offsets.push_back(indices.size());
    }
    return RankSimplexCommMap(nRanks, std::move(ranks), std::move(offsets), std::move(indices));
}
} // namespace

StructuredBlock::StructuredBlock(
    const mpi::CartesianTopology& topology,
    std::array<std::int64_t, 3> cells,
    int width,
    BlockGhosts ghosts,
    BlockOrder order,
    std::source_location where
)
    : global_(cells), width_(width), order_(order)
{
    // check mode: a different box, width or order on one rank would give maps that do not meet
    const std::array<std::int64_t, 6> inputs { cells[0],
                                               cells[1],
                                               cells[2],
                                               width,
                                               static_cast<std::int64_t>(ghosts),
                                               static_cast<std::int64_t>(order) };
    mpi::agreeOnSetUp(
        topology.environment().comm(),
        mpi::detail::SetUpCall::StructuredBlock,
        where,
        inputs,
        "global box (nx, ny, nz), width, ghosts (0 faces, 1 all) and order (0 LayoutRight, 1 "
        "LayoutLeft)"
    );
    FIELDSYNC_CHECK_AT(
        topology.ndims() >= 1 && topology.ndims() <= 3,
        "StructuredBlock: the topology has " + std::to_string(topology.ndims()) +
            " dimensions, 1 to 3 are supported",
        where
    );
    FIELDSYNC_CHECK_AT(
        width >= 0, "StructuredBlock: negative halo width " + std::to_string(width), where
    );
    split(topology, where);
    FIELDSYNC_CHECK_AT(
        paddedSize() <= static_cast<std::size_t>(std::numeric_limits<LocalIndex>::max()),
        "StructuredBlock: the padded block has " + std::to_string(paddedSize()) +
            " cells, more than a LocalIndex addresses",
        where
    );
    buildMaps(topology, ghosts);
}

void StructuredBlock::split(
    const mpi::CartesianTopology& topology, const std::source_location& where
)
{
    for (std::size_t d = 0; d < 3; ++d)
    {
        const std::int64_t n = global_[d];
        FIELDSYNC_CHECK_AT(
            n >= 0, "StructuredBlock: negative global extent " + std::to_string(n), where
        );
        if (static_cast<int>(d) >= topology.ndims())
        {
            extent_[d] = n;
            continue;
        }
        const std::int64_t parts = topology.dims()[d];
        const std::int64_t c = topology.coords()[d];
        const std::int64_t base = n / parts;
        const std::int64_t rest = n % parts;
        FIELDSYNC_CHECK_AT(
            base >= width_,
            "StructuredBlock: dimension " + std::to_string(d) + " has " + std::to_string(n) +
                " cells on " + std::to_string(parts) + " ranks, fewer than the halo width " +
                std::to_string(width_) + " on some rank",
            where
        );
        extent_[d] = base + (c < rest ? 1 : 0);
        start_[d] = c * base + std::min(c, rest);
        padding_[d] = width_;
    }
}

std::size_t StructuredBlock::paddedSize() const noexcept
{
    return static_cast<std::size_t>(paddedExtent(0) * paddedExtent(1) * paddedExtent(2));
}

LocalIndex StructuredBlock::index(std::int64_t i, std::int64_t j, std::int64_t k) const noexcept
{
    const std::int64_t p0 = i + padding_[0];
    const std::int64_t p1 = j + padding_[1];
    const std::int64_t p2 = k + padding_[2];
    if (order_ == BlockOrder::LayoutRight)
    {
        return static_cast<LocalIndex>((p0 * paddedExtent(1) + p1) * paddedExtent(2) + p2);
    }
    return static_cast<LocalIndex>(p0 + paddedExtent(0) * (p1 + paddedExtent(1) * p2));
}

StructuredBlock::Box StructuredBlock::box(const std::vector<int>& offset, bool ghostSide) const
{
    Box b;
    for (std::size_t d = 0; d < 3; ++d)
    {
        const int o = d < offset.size() ? offset[d] : 0;
        const std::int64_t n = extent_[d];
        const std::int64_t w = width_;
        if (o == 0)
        {
            b.hi[d] = n;
        }
        else if (o < 0)
        {
            b.lo[d] = ghostSide ? -w : 0;
            b.hi[d] = ghostSide ? 0 : w;
        }
        else
        {
            b.lo[d] = ghostSide ? n : n - w;
            b.hi[d] = ghostSide ? n + w : n;
        }
    }
    return b;
}

void StructuredBlock::append(std::vector<LocalIndex>& cells, const Box& b) const
{
    for (std::int64_t i = b.lo[0]; i < b.hi[0]; ++i)
    {
        for (std::int64_t j = b.lo[1]; j < b.hi[1]; ++j)
        {
            for (std::int64_t k = b.lo[2]; k < b.hi[2]; ++k)
            {
                cells.push_back(index(i, j, k));
            }
        }
    }
}

void StructuredBlock::buildMaps(const mpi::CartesianTopology& topology, BlockGhosts ghosts)
{
    const auto offsets =
        mpi::CartesianTopology::neighbourOffsets(topology.ndims(), ghosts == BlockGhosts::All);
    CellLists sends;
    CellLists receives;
    if (width_ > 0)
    {
        // Offset o of the sender pairs with offset -o of the receiver: sends in ascending,
        // receives in descending offset order keep the lists of one rank pair aligned.
        for (const auto& offset : offsets)
        {
            const int rank = topology.neighbour(offset);
            if (rank != MPI_PROC_NULL)
            {
                append(sends[rank], box(offset, false));
            }
        }
        for (auto it = offsets.rbegin(); it != offsets.rend(); ++it)
        {
            const int rank = topology.neighbour(*it);
            if (rank != MPI_PROC_NULL)
            {
                append(receives[rank], box(*it, true));
            }
        }
    }
    const int nRanks = topology.environment().sizeRank();
    sendMap_ = toMap(nRanks, sends);
    receiveMap_ = toMap(nRanks, receives);
    const detail::BlockShape shape { order_,
                                     { paddedExtent(0), paddedExtent(1), paddedExtent(2) } };
    sendMap_.setBlockShape(shape);
    receiveMap_.setBlockShape(shape);
}

} // namespace fieldsync::halo
