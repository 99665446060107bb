// SPDX-License-Identifier: MIT
// Pattern (src/halo/pattern.hpp): the maps' checks, what is derived from them (peers, the largest
// neighbour list, repeated send cells, runs, index arrays) and check mode's cell hashes, each
// compared with a value worked out by hand from the maps below. No MPI traffic.
#include "fieldsync_test/catch.hpp"

#include "pattern.hpp"

#include "fieldsync/core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <source_location>
#include <vector>

using fieldsync::LocalIndex;
using fieldsync::halo::CommitOptions;
using fieldsync::halo::Pattern;
using fieldsync::halo::RankSimplexCommMap;

namespace
{
constexpr int ranks { 4 };
constexpr int me { 1 };

/** @brief Rank 1 of 4 sends cells {0,1,2} to rank 0, {3} to itself and {5,4,5} to rank 3. */
RankSimplexCommMap sends()
{
    return RankSimplexCommMap(ranks, { 0, 1, 3 }, { 0, 3, 4, 7 }, { 0, 1, 2, 3, 5, 4, 5 });
}

/** @brief It receives ghosts {6} from itself and {7,8} from rank 2. */
RankSimplexCommMap receives()
{
    return RankSimplexCommMap(ranks, { 1, 2 }, { 0, 1, 3 }, { 6, 7, 8 });
}

/** @brief FNV-1a (64 bit) of @p values, written out independently of the engine's. */
std::uint64_t fnv(const std::vector<std::int64_t>& values)
{
    std::uint64_t hash { 14695981039346656037ULL };
    for (const std::int64_t v : values)
    {
        hash = (hash ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
    }
    return hash;
}
} // namespace

TEST_CASE("Pattern derives peers, sizes and repeats from the maps", "[halo][pattern]")
{
    const Pattern pattern(sends(), receives(), ranks, me, std::source_location::current(), false);
    CHECK(pattern.peers() == std::vector<int> { 0, 2, 3 }); // itself left out, ascending
    CHECK(pattern.maxCells() == 3);
    CHECK(pattern.sendRepeats()); // cell 5 twice for rank 3
    CHECK(&pattern.from(false) == &pattern.sendMap());
    CHECK(&pattern.from(true) == &pattern.receiveMap());
    CHECK(&pattern.to(false) == &pattern.receiveMap());
    CHECK(&pattern.to(true) == &pattern.sendMap());
    CHECK_FALSE(pattern.blockShape().has_value());

    const fieldsync::halo::PackPlan& plan = pattern.plan();
    CHECK(plan.send().runs.runCount() == 4);    // {0,1,2} {3} {5} {4,5}
    CHECK(plan.receive().runs.runCount() == 2); // {6} {7,8}

    const auto& host = fieldsync::mpi::detail::spaceOps<Kokkos::HostSpace>();
    const auto& arrays = pattern.indices(host, true);
    CHECK(arrays.send == pattern.sendMap().indices().data()); // the host borrows the maps'
    CHECK(arrays.receive == pattern.receiveMap().indices().data());
    CHECK(&pattern.indices(host, true) == &arrays);
}

TEST_CASE("Pattern hashes each neighbour's cells in check mode only", "[halo][pattern]")
{
    Pattern pattern(sends(), receives(), ranks, me, std::source_location::current(), false);
    CommitOptions options;
    pattern.hashCells(options, true);
    CHECK_FALSE(pattern.globalIds());
    CHECK(
        pattern.sendHashes(false) ==
        std::vector<std::uint64_t> { fnv({ 0, 1, 2 }), fnv({ 3 }), fnv({ 5, 4, 5 }) }
    );
    CHECK(pattern.receiveHashes(false) == std::vector<std::uint64_t> { fnv({ 6 }), fnv({ 7, 8 }) });
    CHECK(&pattern.sendHashes(true) == &pattern.receiveHashes(false)); // reverse: swapped

    const std::vector<std::int64_t> ids { 10, 11, 12, 13, 14, 15, 16, 17, 18 };
    Pattern global(sends(), receives(), ranks, me, std::source_location::current(), false);
    options.globalIds = ids;
    global.hashCells(options, true);
    CHECK(global.globalIds());
    CHECK(global.receiveHashes(false)[1] == fnv({ 17, 18 }));

    Pattern unchecked(sends(), receives(), ranks, me, std::source_location::current(), false);
    unchecked.hashCells(options, false);
    CHECK(unchecked.globalIds()); // recorded for the headers even without hashes
}

TEST_CASE("Pattern refuses maps that do not fit the communicator", "[halo][pattern]")
{
    const auto here = std::source_location::current();
    CHECK_THROWS_AS(Pattern(sends(), receives(), 3, me, here, false), fieldsync::Error);
    CHECK_THROWS_AS(
        Pattern(
            RankSimplexCommMap(ranks, { 1 }, { 0, 2 }, { 3, 4 }), receives(), ranks, me, here, false
        ),
        fieldsync::Error
    ); // 2 cells to itself, 1 received from itself
    const RankSimplexCommMap twice(ranks, { 1, 2 }, { 0, 1, 3 }, { 6, 7, 6 });
    CHECK_THROWS_AS(Pattern(sends(), twice, ranks, me, here, false), fieldsync::Error);
    CHECK_NOTHROW(Pattern(sends(), twice, ranks, me, here, true)); // checked by its set-up
}
