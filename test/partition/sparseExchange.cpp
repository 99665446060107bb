// SPDX-License-Identifier: MIT
// NBX sparse exchange: every rank receives exactly what was sent to it, and nothing else.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"
#include "fieldsync/partition/sparseExchange.hpp"

using namespace fieldsync;

namespace
{
/** @brief Whether rank @p from sends to rank @p to in the test pattern (sparse, asymmetric). */
bool sends(int from, int to)
{
    return (from * 7 + to * 3) % 4 == 1 || to == (from + 1) % 5;
}

/** @brief The payload from @p from to @p to: length and values known to both. */
std::vector<std::int64_t> payload(int from, int to)
{
    std::vector<std::int64_t> data(static_cast<std::size_t>((from + 2 * to) % 5));
    for (std::size_t k { 0 }; k < data.size(); ++k)
    {
        data[k] = 1000 * from + 10 * to + static_cast<std::int64_t>(k);
    }
    return data;
}
} // namespace

TEST_CASE("sparseExchange: NBX delivers a sparse asymmetric pattern, including empty messages")
{
    const mpi::MPIEnvironment env;
    const mpi::MPIEnvironment own { env.duplicate() };
    for (int round { 0 }; round < 3; ++round)
    {
        std::vector<SparseMessage> out;
        for (int to { 0 }; to < env.sizeRank(); ++to)
        {
            if (sends(env.rank(), to))
            {
                out.push_back(SparseMessage { to, payload(env.rank(), to) });
            }
        }
        const auto in = sparseExchange(own.comm(), 11 + round, out, "test");
        std::vector<int> expectedFrom;
        for (int from { 0 }; from < env.sizeRank(); ++from)
        {
            if (sends(from, env.rank()))
            {
                expectedFrom.push_back(from);
            }
        }
        REQUIRE(in.size() == expectedFrom.size());
        for (std::size_t m { 0 }; m < in.size(); ++m)
        {
            REQUIRE(in[m].rank == expectedFrom[m]);
            REQUIRE(in[m].data == payload(expectedFrom[m], env.rank()));
        }
    }
}

TEST_CASE("OwnerDirectory: owners of known ids, -1 for unknown, duplicate owners rejected")
{
    const mpi::MPIEnvironment env;
    const mpi::MPIEnvironment own { env.duplicate() };
    const int p { env.sizeRank() };
    // rank r owns ids i with i % p == r, 0 <= i < 10p (cyclic: homes differ from owners)
    std::vector<GlobalIndex> mine;
    for (GlobalIndex i { env.rank() }; i < 10 * p; i += p)
    {
        mine.push_back(i);
    }
    const OwnerDirectory directory(own.comm(), mine);
    REQUIRE(directory.idBound() == 10 * p);
    REQUIRE(directory.localEntries() == 10);
    std::vector<GlobalIndex> asked { 0, 10 * p - 1, 3, 10 * p + 4, 5 };
    const auto owners = directory.owners(asked);
    REQUIRE(owners[0] == 0);
    REQUIRE(owners[1] == (10 * p - 1) % p);
    REQUIRE(owners[2] == 3 % p);
    REQUIRE(owners[3] == -1);
    REQUIRE(owners[4] == 5 % p);

    // every rank claims id 0 as well: with 2+ ranks that is a duplicate on every rank
    if (p > 1)
    {
        std::vector<GlobalIndex> clash { mine };
        if (env.rank() != 0)
        {
            clash.push_back(0);
        }
        REQUIRE_THROWS_AS(OwnerDirectory(own.comm(), clash), Error);
    }
}
