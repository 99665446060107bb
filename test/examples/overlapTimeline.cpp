// SPDX-License-Identifier: MIT
// The heat solver's overlap split (examples/heat/overlapTimeline.cpp): waits for late peers
// (load imbalance) apart from a transport the interior work did not hide. The split of given
// times is checked against values worked out by hand; on two ranks, a peer made late by a
// sleep far longer than any scheduling noise shows up as peerLate on the other rank only.
#include "fieldsync_test/catch.hpp"

#include "overlapTimeline.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/broadcast.hpp"

#include <chrono>
#include <thread>
#include <vector>

using namespace fieldsync;
using fieldsync::heat::OverlapSplit;
using fieldsync::heat::OverlapTimeline;
using fieldsync::heat::splitSteps;

TEST_CASE("splitSteps: imbalance and transport apart, by hand", "[overlap]")
{
    // step 0: peers posted 5 s before the end, complete: hideable and hidden
    // step 1: posted 0.5 s before the end, shorter than the exchange's 1 s: not hideable
    // step 2: the peer posted 5 s after the end: 5 s of imbalance, not hideable
    // step 3: posted 2 s before the end, complete: hideable and hidden
    // step 4: posted 3 s before the end, not complete: hideable, not hidden
    const std::vector<double> interiorEnd { 10.0, 20.0, 30.0, 40.0, 50.0 };
    const std::vector<char> complete { 1, 0, 0, 1, 0 };
    const std::vector<double> peerPost { 5.0, 19.5, 35.0, 38.0, 47.0 };
    const OverlapSplit split { splitSteps(interiorEnd, complete, peerPost, 1.0) };
    CHECK(split.exchanges == 5);
    CHECK(split.hideable == 3);
    CHECK(split.hiddenHideable == 2);
    CHECK(split.peerLate == 5.0);
}

TEST_CASE("OverlapTimeline: a late peer is imbalance on the rank that waited for it", "[overlap]")
{
    const mpi::MPIEnvironment env;
    const int me { env.rank() };
    const int n { env.sizeRank() };
    // a ring: each rank receives one cell from the next and sends one to the previous
    const int next { (me + 1) % n };
    const int previous { (me + n - 1) % n };
    halo::RankSimplexCommMap send(n);
    halo::RankSimplexCommMap receive(n);
    send.setRank(previous, { 0 });
    receive.setRank(next, { 1 });
    halo::Communicator comm(env, send, receive);
    std::vector<double> field { 10.0 * me, -1.0 };
    constexpr int steps { 3 };
    OverlapTimeline timeline(steps);
    timeline.calibrated(0.0);
    for (int step { 0 }; step < steps; ++step)
    {
        mpi::barrier(env.comm());
        if (step == 1 && me == 1)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(300)); // rank 1 is late
        }
        comm.startComm(field);
        timeline.posted();
        timeline.interiorEnded(false); // no interior work
        comm.finaliseComm(field);
        REQUIRE(field[1] == 10.0 * next);
    }
    const OverlapSplit split { timeline.split(comm, env) };
    CHECK(split.exchanges == steps);
    if (n == 1)
    {
        CHECK(split.peerLate == 0.0); // only itself: no one to wait for
        CHECK(split.hideable == 0);
        return;
    }
    // rank 0 receives from rank 1 (next) when n == 2, and from rank 1 at n >= 2 always: the
    // rank whose next is 1 waited about 0.3 s; a rank that receives from a punctual peer less
    // than the sleep by far (the clock offsets and the barrier's spread are microseconds)
    if (next == 1)
    {
        CHECK(split.peerLate > 0.15);
    }
    else
    {
        CHECK(split.peerLate < 0.15);
    }
    CHECK(split.hideable <= steps);
    CHECK(split.hiddenHideable == 0); // nothing was complete at the (empty) interior's end
}
