// SPDX-License-Identifier: MIT
#include "fieldsync/partition/haloLayout.hpp"

#include <algorithm>

namespace fieldsync::partition
{

HaloLayout::HaloLayout(
    std::size_t nOwned,
    std::vector<GlobalIndex> globalIds,
    std::vector<int> ghostOwners,
    std::vector<int> ghostLayers,
    std::vector<std::size_t> ownedOffsets,
    std::vector<LocalIndex> ownedNeighbours,
    halo::RankSimplexCommMap sendMap,
    halo::RankSimplexCommMap receiveMap,
    std::size_t directoryEntries,
    std::vector<LocalIndex> interior,
    std::vector<LocalIndex> boundary
)
    : nOwned_(nOwned), globalIds_(std::move(globalIds)), ghostOwners_(std::move(ghostOwners)),
      ghostLayers_(std::move(ghostLayers)), ownedOffsets_(std::move(ownedOffsets)),
      ownedNeighbours_(std::move(ownedNeighbours)), interior_(std::move(interior)),
      boundary_(std::move(boundary)), sendMap_(std::move(sendMap)),
      receiveMap_(std::move(receiveMap)), directoryEntries_(directoryEntries)
{
    if (interior_.size() + boundary_.size() == nOwned_)
    {
        return; // the caller's split
    }
    interior_.clear();
    boundary_.clear();
    const auto owned = static_cast<LocalIndex>(nOwned_);
    const std::size_t* offsets { ownedOffsets_.data() };
    const LocalIndex* neighbour { ownedNeighbours_.data() };
    for (std::size_t i { 0 }; i < nOwned_; ++i)
    {
        LocalIndex highest { -1 };
        for (std::size_t e { offsets[i] }; e < offsets[i + 1]; ++e)
        {
            highest = std::max(highest, neighbour[e]);
        }
        (highest >= owned ? boundary_ : interior_).push_back(static_cast<LocalIndex>(i));
    }
}

std::size_t HaloLayout::memoryBytes() const noexcept
{
    const auto mapBytes = [](const halo::RankSimplexCommMap& map)
    {
        return map.neighbourCount() * (sizeof(int) + sizeof(std::size_t) + sizeof(LocalIndex)) +
               sizeof(std::size_t) + map.totalSize() * sizeof(LocalIndex);
    };
    return globalIds_.size() * sizeof(GlobalIndex) + ghostOwners_.size() * sizeof(int) +
           ghostLayers_.size() * sizeof(int) + ownedOffsets_.size() * sizeof(std::size_t) +
           ownedNeighbours_.size() * sizeof(LocalIndex) +
           (interior_.size() + boundary_.size()) * sizeof(LocalIndex) + mapBytes(sendMap_) +
           mapBytes(receiveMap_);
}

CellGraph HaloLayout::ownedGraph() const
{
    std::vector<GlobalIndex> ids(
        globalIds_.begin(), globalIds_.begin() + static_cast<std::ptrdiff_t>(nOwned_)
    );
    std::vector<GlobalIndex> adjacency;
    adjacency.reserve(ownedNeighbours_.size());
    for (const LocalIndex n : ownedNeighbours_)
    {
        adjacency.push_back(globalIds_[static_cast<std::size_t>(n)]);
    }
    return CellGraph(std::move(ids), ownedOffsets_, std::move(adjacency));
}

} // namespace fieldsync::partition
