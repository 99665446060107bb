// SPDX-License-Identifier: MIT
// NeoN's Half- and FullDuplexCommBuffer as NeoN's tests use them, under `using namespace
// fieldsync::mpi`: made without a template argument, claimed by name, every rank sending to
// every rank (itself included), isComplete() true until something is posted, the name
// "unassigned" once released. Received values are checked against a function of (source,
// destination) each rank computes itself.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/mpi/environment.hpp"
#include "fieldsync/core/mpi/fullDuplexCommBuffer.hpp"
#include "fieldsync/core/mpi/halfDuplexCommBuffer.hpp"

#include <cstddef>
#include <type_traits>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::mpi;

// NeoN copies these; fieldsync does not (doc/porting.md): the buffers hold MPI requests
static_assert(!std::is_copy_constructible_v<FullDuplexCommBuffer<>>);
static_assert(!std::is_copy_constructible_v<HalfDuplexCommBuffer<>>);

namespace
{
int valueFrom(int source, int destination)
{
    return 1000 * source + destination;
}
} // namespace

TEST_CASE("HalfDuplexCommBuffer as NeoN uses it", "[compat][buffers]")
{
    MPIEnvironment mpiEnviron;
    const auto n = static_cast<std::size_t>(mpiEnviron.sizeRank());
    std::vector<std::size_t> rankCommSize(n, 1);
    HalfDuplexCommBuffer buffer(mpiEnviron, rankCommSize);

    SECTION("made empty or with sizes, it is not claimed")
    {
        HalfDuplexCommBuffer empty;
        CHECK_FALSE(empty.isCommInit());
        CHECK_FALSE(buffer.isCommInit());
    }

    SECTION("claimed and released")
    {
        buffer.initComm<int>("Init Comm");
        CHECK(buffer.isCommInit());
        CHECK(buffer.isComplete());
        CHECK(buffer.getCommName() == "Init Comm");
        buffer.finaliseComm();
        CHECK(buffer.getCommName() == "unassigned");
        CHECK(buffer.isComplete());
        CHECK_FALSE(buffer.isCommInit());
    }

    SECTION("sized per rank with setCommRankSize<T>")
    {
        for (std::size_t rank = 0; rank < n; ++rank)
        {
            rankCommSize[rank] = rank;
        }
        buffer.setCommRankSize<double>(rankCommSize);
        buffer.initComm<double>("Set Comm Rank Size");
        for (std::size_t rank = 0; rank < n; ++rank)
        {
            CHECK(buffer.get<double>(static_cast<int>(rank)).size() == rank);
        }
        buffer.finaliseComm();
    }

    SECTION("a send buffer and a receive buffer, every rank to every rank, itself included")
    {
        HalfDuplexCommBuffer send(mpiEnviron, rankCommSize);
        HalfDuplexCommBuffer receive(mpiEnviron, rankCommSize);
        send.initComm<int>("Send and Receive");
        receive.initComm<int>("Send and Receive");
        for (int rank = 0; rank < mpiEnviron.sizeRank(); ++rank)
        {
            send.get<int>(rank)[0] = valueFrom(mpiEnviron.rank(), rank);
            receive.get<int>(rank)[0] = -1;
        }
        send.send();
        receive.receive();
        send.waitComplete();
        receive.waitComplete();
        for (int rank = 0; rank < mpiEnviron.sizeRank(); ++rank)
        {
            CHECK(receive.get<int>(rank)[0] == valueFrom(rank, mpiEnviron.rank()));
        }
        send.finaliseComm();
        receive.finaliseComm();
    }
}

TEST_CASE("FullDuplexCommBuffer as NeoN uses it", "[compat][buffers]")
{
    MPIEnvironment mpiEnviron;
    const auto n = static_cast<std::size_t>(mpiEnviron.sizeRank());
    std::vector<std::size_t> rankSendCommSize(n, 1);
    std::vector<std::size_t> rankReceiveCommSize(n, 1);
    FullDuplexCommBuffer buffer(mpiEnviron, rankSendCommSize, rankReceiveCommSize);

    SECTION("made empty, it is not claimed")
    {
        FullDuplexCommBuffer empty;
        CHECK_FALSE(empty.isCommInit());
    }

    SECTION("isComplete is true before startComm and after finaliseComm")
    {
        buffer.initComm<int>("Init Comm");
        CHECK(buffer.isCommInit());
        CHECK(buffer.isComplete());
        buffer.finaliseComm();
        CHECK_FALSE(buffer.isCommInit());
        CHECK(buffer.isComplete());
    }

    SECTION("every rank to every rank, itself included, through getSend and getReceive")
    {
        buffer.initComm<int>("Send and Receive");
        for (int rank = 0; rank < mpiEnviron.sizeRank(); ++rank)
        {
            buffer.getSend<int>(rank)[0] = valueFrom(mpiEnviron.rank(), rank);
        }
        buffer.startComm();
        buffer.waitComplete();
        for (int rank = 0; rank < mpiEnviron.sizeRank(); ++rank)
        {
            CHECK(buffer.getReceive<int>(rank)[0] == valueFrom(rank, mpiEnviron.rank()));
        }
        buffer.finaliseComm();
    }
}
