// SPDX-License-Identifier: MIT
// A HalfDuplexCommBuffer used alone, as NeoN uses it: one buffer send()s, another receive()s.
// Every rank's message arrives, its message to itself included (it once kept uninitialised
// memory there, silently), checked against a function of (source, destination, position) that
// each rank computes on its own; and NeoN's member functions behave as NeoN's buffer does.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/halo/halfDuplexCommBuffer.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace fh = fieldsync::halo;
namespace fm = fieldsync::mpi;

namespace
{
/** Values from rank @p source to rank @p destination: 1, 2 or 3, a different mix per pair. */
std::size_t countOf(int source, int destination)
{
    return 1 + static_cast<std::size_t>((2 * source + destination) % 3);
}

/** The value at @p position of the message from @p source to @p destination. */
double truth(int source, int destination, std::size_t position, int round)
{
    return 1000.0 * source + 10.0 * destination + static_cast<double>(position) + 0.25 * round;
}

/** The send sizes of this rank (to every rank) and its receive sizes (from every rank). */
struct Sizes
{
    std::vector<std::size_t> send;    /**< values to each rank */
    std::vector<std::size_t> receive; /**< values from each rank */
};

Sizes sizesOf(const fm::MPIEnvironment& env)
{
    Sizes sizes;
    for (int r = 0; r < env.sizeRank(); ++r)
    {
        sizes.send.push_back(countOf(env.rank(), r));
        sizes.receive.push_back(countOf(r, env.rank()));
    }
    return sizes;
}

/**
 * One round through a send/receive pair: fills the send slices with truth(), poisons the
 * receive slices, sends and receives, and returns the number of received values that differ
 * from truth() (the self slot included).
 */
int exchangeOnce(
    const fm::MPIEnvironment& env,
    fh::HalfDuplexCommBuffer<>& sender,
    fh::HalfDuplexCommBuffer<>& receiver,
    int round
)
{
    const int me { env.rank() };
    sender.initComm<double>("halfDuplexPair");
    receiver.initComm<double>("halfDuplexPair");
    for (int r = 0; r < env.sizeRank(); ++r)
    {
        auto out = sender.get<double>(r);
        for (std::size_t i = 0; i < out.size(); ++i)
        {
            out[i] = truth(me, r, i, round);
        }
        for (double& in : receiver.get<double>(r))
        {
            in = -1.0; // what a message must overwrite
        }
    }
    receiver.receive();
    sender.send();
    receiver.waitComplete();
    sender.waitComplete();
    int wrong { 0 };
    for (int r = 0; r < env.sizeRank(); ++r)
    {
        const auto in = receiver.get<double>(r);
        wrong += in.size() == countOf(r, me) ? 0 : 1;
        for (std::size_t i = 0; i < in.size(); ++i)
        {
            wrong += in[i] == truth(r, me, i, round) ? 0 : 1;
        }
    }
    sender.finaliseComm();
    receiver.finaliseComm();
    return wrong;
}
} // namespace

TEST_CASE("a half-duplex send and receive pair delivers each rank's message to itself", "[half]")
{
    const fm::MPIEnvironment env;
    const Sizes sizes = sizesOf(env);
    const bool staged = GENERATE(false, true);
    const bool persistent = GENERATE(false, true);
    CAPTURE(staged, persistent);
    fh::HalfDuplexCommBuffer<> sender(env, sizes.send);
    fh::HalfDuplexCommBuffer<> receiver(env, sizes.receive);
    sender.setStaging(staged);
    receiver.setStaging(staged);
    sender.setPersistent(persistent);
    receiver.setPersistent(persistent);
    for (int round = 0; round < 3; ++round) // persistent requests restart from round 1 on
    {
        CAPTURE(round);
        CHECK(exchangeOnce(env, sender, receiver, round) == 0);
    }
}

TEST_CASE("two half-duplex pairs in flight at once keep their messages apart by name", "[half]")
{
    const fm::MPIEnvironment env;
    const int me { env.rank() };
    const int n { env.sizeRank() };
    const std::vector<std::size_t> one(static_cast<std::size_t>(n), 1);
    fh::HalfDuplexCommBuffer<> sendA(env, one);
    fh::HalfDuplexCommBuffer<> receiveA(env, one);
    fh::HalfDuplexCommBuffer<> sendB(env, one);
    fh::HalfDuplexCommBuffer<> receiveB(env, one);
    sendA.initComm<int>("pair A");
    receiveA.initComm<int>("pair A");
    sendB.initComm<int>("pair B");
    receiveB.initComm<int>("pair B");
    for (int r = 0; r < n; ++r)
    {
        sendA.get<int>(r)[0] = 100 * me + r;
        sendB.get<int>(r)[0] = -(100 * me + r) - 1;
    }
    // B is posted before A on the receiving side, A before B on the sending side: only the tag
    // taken from the name keeps them apart
    receiveB.receive();
    receiveA.receive();
    sendA.send();
    sendB.send();
    for (auto* buffer : { &receiveA, &receiveB, &sendA, &sendB })
    {
        buffer->waitComplete();
    }
    for (int r = 0; r < n; ++r)
    {
        CHECK(receiveA.get<int>(r)[0] == 100 * r + me);
        CHECK(receiveB.get<int>(r)[0] == -(100 * r + me) - 1);
    }
    for (auto* buffer : { &receiveA, &receiveB, &sendA, &sendB })
    {
        buffer->finaliseComm();
    }
}

TEST_CASE("NeoN's HalfDuplexCommBuffer member functions", "[half][neon]")
{
    const fm::MPIEnvironment env;
    const int n { env.sizeRank() };
    std::vector<std::size_t> sizes(static_cast<std::size_t>(n), 1);

    SECTION("the name reads unassigned while free; isComplete is true until something is posted")
    {
        fh::HalfDuplexCommBuffer<> buffer(env, sizes);
        CHECK(buffer.getCommName() == "unassigned");
        CHECK(buffer.isComplete());
        buffer.initComm<int>("Init Comm");
        CHECK(buffer.isCommInit());
        CHECK(buffer.getCommName() == "Init Comm");
        CHECK(buffer.isComplete());
        buffer.waitComplete(); // nothing in flight: returns at once
        buffer.finaliseComm();
        CHECK(buffer.getCommName() == "unassigned");
        CHECK(buffer.isComplete());
        CHECK_FALSE(buffer.isCommInit());
    }

    SECTION("setCommRankSize<T> sets the values per rank; a const buffer reads its slices")
    {
        fh::HalfDuplexCommBuffer<> buffer(env, sizes);
        for (std::size_t r = 0; r < sizes.size(); ++r)
        {
            sizes[r] = 2 * r;
        }
        buffer.setCommRankSize<double>(sizes);
        buffer.initComm<double>("sized");
        const fh::HalfDuplexCommBuffer<>& view = buffer;
        for (int r = 0; r < n; ++r)
        {
            CHECK(view.get<double>(r).size() == 2 * static_cast<std::size_t>(r));
        }
        buffer.finaliseComm();
    }

    SECTION("a default buffer gets its environment later and then exchanges")
    {
        fh::HalfDuplexCommBuffer<> sender;
        fh::HalfDuplexCommBuffer<> receiver;
        CHECK_FALSE(sender.isCommInit());
        sender.setMPIEnvironment(env);
        receiver.setMPIEnvironment(env);
        sender.setCommRankSize<int>(sizes);
        receiver.setCommRankSize<int>(sizes);
        sender.initComm<int>("late environment");
        receiver.initComm<int>("late environment");
        for (int r = 0; r < n; ++r)
        {
            sender.get<int>(r)[0] = 7 * env.rank() + r;
        }
        sender.send();
        receiver.receive();
        sender.waitComplete();
        receiver.waitComplete();
        for (int r = 0; r < n; ++r)
        {
            CHECK(receiver.get<int>(r)[0] == 7 * r + env.rank());
        }
        sender.finaliseComm();
        receiver.finaliseComm();
    }

    SECTION("send or receive before initComm is an Error naming the call")
    {
        fh::HalfDuplexCommBuffer<> buffer(env, sizes);
        CHECK_THROWS_WITH(buffer.send(), Catch::Contains("send/receive"));
        CHECK_THROWS_WITH(buffer.receive(), Catch::Contains("send/receive"));
    }
}
