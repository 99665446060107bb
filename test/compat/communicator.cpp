// SPDX-License-Identifier: MIT
// NeoN's Communicator as NeoN's tests and solver use it, under `using namespace fieldsync`:
// default-made, then assigned a Communicator built from NeoN's plain maps (CommMap of
// RankCommMap of NodeCommMap, filled with operator[], emplace_back and push_back), one string
// key for the three calls. The field's layout is NeoN's test's: a block sent to every rank, a
// block never touched, a block received from every rank, in a host view and in NeoN's Vector;
// each rank checks its ghost cells against the value the sender wrote, computed from the
// sender's rank.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/NeoN.hpp"
#include "fieldsync/core/mpi/environment.hpp"
#include "fieldsync/fieldsync.hpp"
#include "fieldsync/mesh/unstructured/communicator.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

using namespace fieldsync;

// NeoN copies a Communicator; fieldsync moves it (doc/porting.md)
static_assert(!std::is_copy_constructible_v<Communicator>);
static_assert(std::is_move_assignable_v<Communicator>);
static_assert(std::is_same_v<Communicator::bufferType, mpi::FullDuplexCommBuffer<>>);

namespace
{
/** @brief A field of @p size ints: a host view, or NeoN's Vector on a SerialExecutor. */
template<typename Field>
Field makeField(std::size_t size)
{
    if constexpr (Kokkos::is_view<Field>::value)
    {
        return Field("field", size);
    }
    else
    {
        return Field(SerialExecutor(), size);
    }
}
} // namespace

TEMPLATE_TEST_CASE("Communicator from NeoN's maps synchronises a field", "[compat][communicator]", (Kokkos::View<int*, Kokkos::HostSpace>), Vector<int>)
{
    mpi::MPIEnvironment mpiEnviron;
    Communicator comm;
    const int n { mpiEnviron.sizeRank() };
    const auto un = static_cast<std::size_t>(n);
    auto field = makeField<TestType>(3 * un);
    for (std::size_t rank = 0; rank < un; ++rank)
    {
        field(rank) = 10 * mpiEnviron.rank() + static_cast<int>(rank); // sent to `rank`
        field(rank + un) = n + static_cast<int>(rank);                 // never communicated
        field(rank + 2 * un) = -1;                                     // received from `rank`
    }
    CommMap rankSendMap(un);
    CommMap rankReceiveMap(un);
    for (std::size_t rank = 0; rank < un; ++rank)
    {
        rankSendMap[rank].emplace_back(NodeCommMap { .local_idx = static_cast<label>(rank) });
        NodeCommMap ghost { .local_idx = static_cast<label>(2 * un + rank) };
        rankReceiveMap[rank].push_back(ghost);
    }

    comm = Communicator(mpiEnviron, rankSendMap, rankReceiveMap);
    const std::string loc = "foo";
    comm.startComm(field, loc);
    comm.isComplete(loc);
    comm.finaliseComm(field, loc);

    for (std::size_t rank = 0; rank < un; ++rank)
    {
        CHECK(field(rank) == 10 * mpiEnviron.rank() + static_cast<int>(rank));
        CHECK(field(rank + un) == n + static_cast<int>(rank));
        CHECK(field(rank + 2 * un) == 10 * static_cast<int>(rank) + mpiEnviron.rank());
    }
}

TEST_CASE("NeoN's maps become the flat map once, neighbours only", "[compat][communicator]")
{
    mpi::MPIEnvironment mpiEnviron;
    const int n { mpiEnviron.sizeRank() };
    CommMap perRank(static_cast<std::size_t>(n));
    // only the next rank is a neighbour: two cells, in NeoN's order (not ascending)
    const int next { (mpiEnviron.rank() + 1) % n };
    perRank[static_cast<std::size_t>(next)] = RankCommMap { { 5 }, { 2 } };
    const RankSimplexCommMap flat = perRank;
    CHECK(flat.sizeRank() == n);
    REQUIRE(flat.neighbourCount() == 1);
    CHECK(flat.neighbours()[0] == next);
    REQUIRE(flat.indicesOf(next).size() == 2);
    CHECK(flat.indicesOf(next)[0] == 5);
    CHECK(flat.indicesOf(next)[1] == 2);
    perRank[static_cast<std::size_t>(next)].push_back(NodeCommMap { .local_idx = -3 });
    CHECK_THROWS_AS(RankSimplexCommMap(perRank), Error);
}

TEST_CASE("a moved Communicator keeps exchanging", "[compat][communicator]")
{
    mpi::Environment env;
    REQUIRE(env.isInitialized());
    const int n { env.sizeRank() };
    const int next { (env.rank() + 1) % n };
    const int previous { (env.rank() + n - 1) % n };
    CommMap sendMap(static_cast<std::size_t>(n));
    CommMap receiveMap(static_cast<std::size_t>(n));
    sendMap[static_cast<std::size_t>(next)].push_back({ 0 });
    receiveMap[static_cast<std::size_t>(previous)].push_back({ 1 });
    Communicator first(env, sendMap, receiveMap);
    Communicator second = std::move(first);
    Kokkos::View<double*, Kokkos::HostSpace> field("field", 2);
    field(0) = 0.5 + env.rank();
    field(1) = -1.0;
    second.startComm(field, "moved");
    second.finaliseComm(field, "moved");
    CHECK(field(1) == 0.5 + previous);
}
