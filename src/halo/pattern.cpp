// SPDX-License-Identifier: MIT
// The halo pattern: the maps' checks at construction, what is derived from them, the cell hashes.
#include "pattern.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <span>
#include <string>

namespace fieldsync::halo
{

std::uint64_t cellsHash(std::span<const LocalIndex> cells, std::span<const std::int64_t> ids)
{
    std::uint64_t hash { 0xcbf29ce484222325ULL };
    for (const LocalIndex cell : cells)
    {
        const auto value = static_cast<std::uint64_t>(
            ids.empty() ? static_cast<std::int64_t>(cell) : ids[static_cast<std::size_t>(cell)]
        );
        hash = (hash ^ value) * 0x100000001b3ULL;
    }
    return hash;
}

namespace
{
/** @brief The hash of each neighbour's list of @p map. */
std::vector<std::uint64_t>
hashesOf(const RankSimplexCommMap& map, std::span<const std::int64_t> ids)
{
    std::vector<std::uint64_t> hashes(map.neighbourCount());
    for (std::size_t k = 0; k < map.neighbourCount(); ++k)
    {
        hashes[k] = cellsHash(
            map.indices().subspan(map.offsets()[k], map.offsets()[k + 1] - map.offsets()[k]), ids
        );
    }
    return hashes;
}
} // namespace

Pattern::Pattern(
    RankSimplexCommMap sendMap,
    RankSimplexCommMap receiveMap,
    int size,
    int me,
    const std::source_location& where,
    bool checked
)
    : sendMap_(std::move(sendMap)), receiveMap_(std::move(receiveMap))
{
    FIELDSYNC_CHECK_AT(
        sendMap_.sizeRank() == size,
        "Communicator: the send map is for " + std::to_string(sendMap_.sizeRank()) +
            " ranks, the communicator has " + std::to_string(size),
        where
    );
    FIELDSYNC_CHECK_AT(
        receiveMap_.sizeRank() == size,
        "Communicator: the receive map is for " + std::to_string(receiveMap_.sizeRank()) +
            " ranks, the communicator has " + std::to_string(size),
        where
    );
    if (!checked) // a ghost list's set-up found every ghost listed twice already
    {
        receiveMap_.validateUnique("Communicator: receive map", where);
    }
    FIELDSYNC_CHECK_AT(
        sendMap_.sizeOf(me) == receiveMap_.sizeOf(me),
        "Communicator: rank " + std::to_string(me) + " sends " +
            std::to_string(sendMap_.sizeOf(me)) + " cells to itself but receives " +
            std::to_string(receiveMap_.sizeOf(me)),
        where
    );
    sendRepeats_ = sendMap_.hasRepeatWithinNeighbour();
    for (const RankSimplexCommMap* map : { &sendMap_, &receiveMap_ })
    {
        for (std::size_t k = 0; k < map->neighbourCount(); ++k)
        {
            const std::size_t cells = map->offsets()[k + 1] - map->offsets()[k];
            maxCells_ = std::max(maxCells_, cells);
            const int peer = map->neighbours()[k];
            if (peer != me && cells > 0)
            {
                peers_.push_back(peer);
            }
        }
    }
    std::sort(peers_.begin(), peers_.end());
    peers_.erase(std::unique(peers_.begin(), peers_.end()), peers_.end());
    plan_ = std::make_unique<const PackPlan>(sendMap_, receiveMap_, me);
}

void Pattern::hashCells(const CommitOptions& options, bool check)
{
    globalIds_ = !options.globalIds.empty();
    if (check)
    {
        cells_ = std::make_unique<CellHashes>(CellHashes {
            hashesOf(sendMap_, options.globalIds), hashesOf(receiveMap_, options.globalIds) });
    }
}

} // namespace fieldsync::halo
