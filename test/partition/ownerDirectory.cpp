// SPDX-License-Identifier: MIT
// OwnerDirectory: owners found through the sparse exchange, checked against the cyclic rule,
// dense and spread over a huge id range.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"

#include <vector>

#include <mpi.h>

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

TEST_CASE("OwnerDirectory: ids spread over 2^50 cost entries per registered id, not per id")
{
    const mpi::MPIEnvironment env;
    const mpi::MPIEnvironment own { env.duplicate() };
    const int p { env.sizeRank() };
    const int rank { env.rank() };
    // rank r owns the ids k * 2^40 + r, 0 <= k < K: the owner of an id is its low 40 bits, and
    // the ids span about 2^50 (a dense table would need 2^50 / p entries per rank)
    constexpr GlobalIndex stride { GlobalIndex { 1 } << 40 };
    constexpr GlobalIndex K { 1000 };
    std::vector<GlobalIndex> mine;
    for (GlobalIndex k { 0 }; k < K; ++k)
    {
        mine.push_back(k * stride + rank);
    }
    const OwnerDirectory directory(own.comm(), mine);
    const GlobalIndex n { (K - 1) * stride + p }; // one more than the largest id
    REQUIRE(directory.idBound() == n);

    // the ids registered at this home, counted from the documented rule: home g / ceil(N / P)
    const GlobalIndex block { (n + p - 1) / p };
    std::size_t homed { 0 };
    for (GlobalIndex k { 0 }; k < K; ++k)
    {
        for (GlobalIndex r { 0 }; r < p; ++r)
        {
            homed += (k * stride + r) / block == rank ? 1 : 0;
        }
    }
    REQUIRE(directory.localEntries() == homed);
    REQUIRE(directory.localEntries() <= static_cast<std::size_t>(K * p));
    unsigned long long entries { directory.localEntries() };
    MPI_Allreduce(MPI_IN_PLACE, &entries, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, env.comm());
    REQUIRE(entries == static_cast<unsigned long long>(K * p));

    // every rank asks for other ranks' ids, ids between them, and ids outside [0, N)
    std::vector<GlobalIndex> asked;
    std::vector<int> expected;
    for (GlobalIndex k { 0 }; k < K; k += 7)
    {
        const GlobalIndex r { (k + rank) % p };
        asked.push_back(k * stride + r);
        expected.push_back(static_cast<int>(r));
        asked.push_back(k * stride + p); // between two registered runs: no owner
        expected.push_back(-1);
    }
    for (const GlobalIndex outside : { GlobalIndex { -1 }, n, 3 * n })
    {
        asked.push_back(outside);
        expected.push_back(-1);
    }
    REQUIRE(directory.owners(asked) == expected);

    // every other rank claims rank 0's id 500 * 2^40 as well: rejected on every rank
    if (p > 1)
    {
        std::vector<GlobalIndex> clash { mine };
        if (rank != 0)
        {
            clash.push_back(500 * stride);
        }
        REQUIRE_THROWS_AS(OwnerDirectory(own.comm(), clash), Error);
    }
}
