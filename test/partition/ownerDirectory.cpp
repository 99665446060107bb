// SPDX-License-Identifier: MIT
// OwnerDirectory: owners found through the sparse exchange, checked against the cyclic rule.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"

using namespace fieldsync;
using namespace fieldsync::partition;

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
