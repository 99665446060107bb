// SPDX-License-Identifier: MIT
#include "fieldsync/halo/indexRuns.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <string>

namespace fieldsync::halo::detail
{

namespace
{
/**
 * @brief Calls @p run(k, begin, end) for each run of consecutive cells of list k (positions
 * [begin, end) of @p indices), list by list, in order.
 */
template<typename Run>
void forEachRun(std::span<const LocalIndex> indices, std::span<const std::size_t> offsets, Run run)
{
    for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
    {
        std::size_t i { offsets[k] };
        const std::size_t end { offsets[k + 1] };
        while (i < end)
        {
            const std::size_t begin { i++ };
            while (i < end && indices[i] == indices[i - 1] + 1)
            {
                ++i;
            }
            run(k, begin, i);
        }
    }
}
} // namespace

IndexRuns::IndexRuns(const RankSimplexCommMap& map, std::source_location where)
    : IndexRuns(map.indices(), map.offsets(), where)
{
}

IndexRuns::IndexRuns(
    std::span<const LocalIndex> indices,
    std::span<const std::size_t> offsets,
    std::source_location where
)
    : at_(), runOffsets_() // sized below: no allocation for the defaults' one entry
{
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
    runOffsets_.reserve(lists + 1);
    runOffsets_.push_back(0);
    // room for a run per cell of a small map (no growth), a few growths for a large one
    constexpr std::size_t reserved { 4096 };
    at_.reserve(std::min(indices.size(), reserved) + 1);
    first_.reserve(std::min(indices.size(), reserved));
    std::size_t list { 0 };
    std::size_t runs { 0 };
    const auto closeLists = [&](std::size_t upTo)
    {
        for (; list < upTo; ++list) // lists before upTo are complete
        {
            runOffsets_.push_back(first_.size());
            const std::size_t cells = offsets[list + 1] - offsets[list];
            mean_[list] = runs == 0 ? 0.0 : static_cast<double>(cells) / static_cast<double>(runs);
            runs = 0;
        }
    };
    forEachRun(
        indices,
        offsets,
        [&](std::size_t k, std::size_t begin, std::size_t /*end*/)
        {
            closeLists(k);
            ++runs;
            at_.push_back(begin);
            first_.push_back(indices[begin]);
        }
    );
    closeLists(lists);
    at_.push_back(indices.size());
}

} // namespace fieldsync::halo::detail
