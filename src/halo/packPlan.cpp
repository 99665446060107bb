// SPDX-License-Identifier: MIT
// The pack strategy (src/halo/packPlan.hpp): the maps' part found once, and the choice per
// exchange.
#include "packPlan.hpp"

namespace fieldsync::halo
{

namespace
{
/** @brief The plan's view of @p map: its runs and each list's forms open to it. */
PackPlan::Side planSide(const RankSimplexCommMap& map, int me)
{
    PackPlan::Side side { IndexRuns(map), {}, {}, 0, 0, false };
    const std::size_t n = map.neighbourCount();
    side.contiguous.assign(n, 0);
    side.longRuns.assign(n, 0);
    for (std::size_t k = 0; k < n; ++k)
    {
        const bool cells = map.offsets()[k] < map.offsets()[k + 1];
        side.nonEmpty += cells ? 1 : 0;
        // a list that is one run of cells can go to MPI from the field itself (never this
        // rank's own list: the self copy goes through the buffer)
        const bool contiguous = map.runStart(k) >= 0 && map.neighbours()[k] != me;
        side.contiguous[k] = contiguous ? 1 : 0;
        side.contiguousCount += contiguous ? 1 : 0;
        // a copy per run beats the gather from this mean run length on (pack_bench)
        const bool longRuns = cells && side.runs.meanRunLength(k) >= PackPlan::runsFrom;
        side.longRuns[k] = longRuns ? 1 : 0;
        side.anyLongRuns = side.anyLongRuns || longRuns;
    }
    return side;
}

/** @brief Why contiguous lists may not go in place for @p fields (either direction). */
PackWhy inPlaceWhy(const PackFields& fields) noexcept
{
    if (!fields.inPlaceOn)
    {
        return PackWhy::SwitchedOff;
    }
    if (fields.count != 1) // each neighbour's message interleaves the fields
    {
        return PackWhy::SeveralFields;
    }
    if (fields.staged) // MPI reads the host copy, not the field
    {
        return PackWhy::Staged;
    }
    if (!fields.rowsContiguous)
    {
        return PackWhy::Layout;
    }
    return fields.neighbourhood ? PackWhy::Neighbourhood : PackWhy::Allowed;
}
} // namespace

const char* toString(PackWhy why) noexcept
{
    switch (why)
    {
    case PackWhy::Allowed:
        return "allowed";
    case PackWhy::SwitchedOff:
        return "in place switched off (ExchangeOptions::inPlace)";
    case PackWhy::SeveralFields:
        return "several fields share each message";
    case PackWhy::Staged:
        return "the messages are staged through the host";
    case PackWhy::Layout:
        return "a run of cells is not one stretch of memory";
    case PackWhy::Neighbourhood:
        return "the neighbourhood collective sends from one buffer";
    case PackWhy::Reverse:
        return "a reverse exchange unpacks into the cells";
    case PackWhy::NotHost:
        return "the kernels do not run synchronously on the host";
    }
    return "unknown";
}

PackPlan::PackPlan(const RankSimplexCommMap& sendMap, const RankSimplexCommMap& receiveMap, int me)
    : send_(planSide(sendMap, me)), receive_(planSide(receiveMap, me))
{
}

PackChoice PackPlan::choose(const PackFields& fields) noexcept
{
    PackChoice choice;
    choice.sendInPlace = inPlaceWhy(fields);
    // a reverse exchange combines what it receives (any op): it unpacks every list
    choice.receiveInPlace = fields.reverse ? PackWhy::Reverse : choice.sendInPlace;
    // on a GPU (or an asynchronous host space) the gather kernel was faster on every measured
    // pattern (doc/notes/gpu.md)
    choice.runs = fields.synchronousHost ? PackWhy::Allowed : PackWhy::NotHost;
    return choice;
}

} // namespace fieldsync::halo
