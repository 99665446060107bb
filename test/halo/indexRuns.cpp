// SPDX-License-Identifier: MIT
// IndexRuns: the runs of each list, checked against the lists themselves (expanding the runs
// gives the list back, every run is as long as the list allows: runs are never split), and the
// form chosen from the mean run length.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/halo/indexRuns.hpp"

#include <cstddef>
#include <string>
#include <vector>

using fieldsync::LocalIndex;
using fieldsync::halo::detail::IndexRuns;

namespace
{
/** @brief Lists of length-1 runs, mixed runs, one long run and an empty list, ends included. */
struct Lists
{
    std::vector<LocalIndex> indices { 5,  9,  2,  63, 0, // runs of 1
                                      0,  1,  2,  10, 20, 21, 22, 23, 24, 25, 7, 62, 63, // mixed
                                      40, 41, 42, 43, 44, 45, 46, 47, 48, 49 }; // one long run
    std::vector<std::size_t> offsets { 0, 5, 18, 18, 28 };
};

/** @brief Checks the runs of @p runs against @p lists; returns the runs of each list. */
std::vector<std::size_t> checkRuns(const IndexRuns& runs, const Lists& lists)
{
    std::vector<std::size_t> perList;
    REQUIRE(runs.at().size() == runs.runCount() + 1);
    REQUIRE(runs.at().back() == lists.indices.size());
    for (std::size_t k = 0; k + 1 < lists.offsets.size(); ++k)
    {
        CHECK(runs.at()[runs.runBegin(k)] == lists.offsets[k]);
        for (std::size_t r = runs.runBegin(k); r < runs.runEnd(k); ++r)
        {
            const std::size_t length = runs.at()[r + 1] - runs.at()[r];
            CHECK(length >= 1);
            for (std::size_t j = 0; j < length; ++j) // the run reproduces the list
            {
                CHECK(
                    lists.indices[runs.at()[r] + j] == runs.first()[r] + static_cast<LocalIndex>(j)
                );
            }
            const std::size_t next = runs.at()[r + 1];
            if (next < lists.offsets[k + 1]) // maximal: the next one breaks it
            {
                CHECK(lists.indices[next] != lists.indices[next - 1] + 1);
            }
        }
        perList.push_back(runs.runEnd(k) - runs.runBegin(k));
    }
    return perList;
}
} // namespace

TEST_CASE("IndexRuns finds the runs of each list", "[halo][indexRuns]")
{
    const Lists lists;
    const IndexRuns runs(lists.indices, lists.offsets);
    CHECK(checkRuns(runs, lists) == std::vector<std::size_t> { 5, 5, 0, 1 });
    CHECK(runs.meanRunLength(0) == 1.0);
    CHECK(runs.meanRunLength(1) == 13.0 / 5.0);
    CHECK(runs.meanRunLength(2) == 0.0);
    CHECK(runs.meanRunLength(3) == 10.0);
}

TEST_CASE("IndexRuns keeps a run of 2,000 cells whole", "[halo][indexRuns]")
{
    std::vector<LocalIndex> indices(2000);
    for (std::size_t i = 0; i < indices.size(); ++i)
    {
        indices[i] = static_cast<LocalIndex>(7 + i);
    }
    const std::vector<std::size_t> offsets { 0, indices.size() };
    const IndexRuns runs(indices, offsets);
    REQUIRE(runs.runCount() == 1);
    CHECK(runs.first()[0] == 7);
    CHECK(runs.at()[1] == 2000);
    CHECK(runs.meanRunLength(0) == 2000.0);
}

TEST_CASE("IndexRuns of an empty map and bad input", "[halo][indexRuns]")
{
    const IndexRuns none;
    CHECK(none.runCount() == 0);
    CHECK(none.at().size() == 1);
    const std::vector<LocalIndex> indices { 3, 4 };
    const std::vector<std::size_t> offsets { 0, 2 };
    const std::vector<std::size_t> shortOffsets { 0, 1 };
    std::string text;
    try
    {
        const IndexRuns bad(indices, shortOffsets);
    }
    catch (const fieldsync::Error& error)
    {
        text = error.what();
    }
    CHECK(text.find("test/halo/indexRuns.cpp") != std::string::npos); // the caller's site
    CHECK(text.find("end at 1") != std::string::npos);                // the bad value
    const IndexRuns whole(indices, offsets);
    CHECK(whole.meanRunLength(0) == 2.0);
}
