// SPDX-License-Identifier: MIT
#include "fieldsync/halo/indexRuns.hpp"

#include "fieldsync/core/error.hpp"

#include <string>

namespace fieldsync::halo
{

IndexRuns::IndexRuns(const RankSimplexCommMap& map, std::size_t maxRun, std::source_location where)
    : IndexRuns(map.indices(), map.offsets(), maxRun, where)
{
}

IndexRuns::IndexRuns(
    std::span<const LocalIndex> indices,
    std::span<const std::size_t> offsets,
    std::size_t maxRun,
    std::source_location where
)
{
    FIELDSYNC_CHECK_AT(
        maxRun >= 1, "IndexRuns: the longest run kept whole must be at least 1 cell, not 0", where
    );
    FIELDSYNC_CHECK_AT(
        offsets.empty() || offsets.back() == indices.size(),
        std::string("IndexRuns: the offsets end at ")
            .append(std::to_string(offsets.empty() ? 0 : offsets.back()))
            .append(", the index list has ")
            .append(std::to_string(indices.size()))
            .append(" entries"),
        where
    );
    const std::size_t lists = offsets.empty() ? 0 : offsets.size() - 1;
    mean_.assign(lists, 0.0);
    at_.clear();
    for (std::size_t k = 0; k < lists; ++k)
    {
        std::size_t unsplit { 0 };
        for (std::size_t i = offsets[k]; i < offsets[k + 1]; ++i)
        {
            const bool continues = i > offsets[k] && indices[i] == indices[i - 1] + 1;
            unsplit += continues ? 0 : 1;
            if (!continues || i - at_.back() >= maxRun)
            {
                at_.push_back(i); // a new run (or a new piece of a long one) starts here
                first_.push_back(indices[i]);
            }
        }
        runOffsets_.push_back(first_.size());
        const std::size_t cells = offsets[k + 1] - offsets[k];
        mean_[k] = unsplit == 0 ? 0.0 : static_cast<double>(cells) / static_cast<double>(unsplit);
        anyRuns_ = anyRuns_ || usesRuns(k);
        allRuns_ = allRuns_ && (cells == 0 || usesRuns(k));
    }
    at_.push_back(indices.size());
}

} // namespace fieldsync::halo
