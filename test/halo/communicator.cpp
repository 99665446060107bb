// SPDX-License-Identifier: MIT
// The Communicator against the truth: owned cells hold truth(global id, component), every ghost
// is checked after the exchange; reverse results are checked against sums computed here.
#include "fieldsync_test/catch.hpp"

#include <numeric>
#include <optional>
#include <vector>

#include "haloPatterns.hpp"
#include "packPlan.hpp"

#include "fieldsync/compat.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/halo/communicator.hpp"

#include <cmath>
#include <span>

using fieldsync::halo::Communicator;
using fieldsync::halo::ExchangeOptions;
using fieldsync::test::cellsNotTruth;
using fieldsync::test::fieldOfTruth;
using fieldsync::test::Setup;
using fieldsync::test::Shape;
using fieldsync::test::truth;
namespace mpi = fieldsync::mpi;

namespace
{
using View1 = Kokkos::View<double*>;
using ViewL = Kokkos::View<double**, Kokkos::LayoutLeft>;
using ViewR = Kokkos::View<double**, Kokkos::LayoutRight>;

mpi::MPIEnvironment world()
{
    return mpi::MPIEnvironment(MPI_COMM_WORLD);
}

Setup setupFor(Shape shape, std::uint64_t seed, bool scatter, int maxSize = 12)
{
    const auto env = world();
    return fieldsync::test::makeSetup(env.rank(), env.sizeRank(), shape, seed, maxSize, scatter);
}

const char* name(Shape shape)
{
    return shape == Shape::Ring ? "ring" : shape == Shape::AllToAll ? "all-to-all" : "random";
}
} // namespace

TEST_CASE("Forward exchange of rank-1 views: ring, all-to-all and random graphs")
{
    for (const Shape shape : { Shape::Ring, Shape::AllToAll, Shape::Random })
    {
        for (const bool scatter : { false, true })
        {
            for (const bool persistent : { true, false })
            {
                for (const std::uint64_t seed : { 1ULL, 2ULL, 3ULL })
                {
                    CAPTURE(name(shape), scatter, persistent, seed);
                    const Setup setup = setupFor(shape, seed, scatter);
                    Communicator comm(world(), setup.send, setup.receive);
                    comm.setOptions({ .persistentFrom =
                                          persistent ? 0 : ExchangeOptions::neverPersistent });
                    auto field = fieldOfTruth<View1>(setup, 1);
                    for (int step = 0; step < 3; ++step) // reuse: persistent requests restart
                    {
                        comm.startComm(field, "rank1");
                        comm.finaliseComm(field, "rank1");
                        REQUIRE(cellsNotTruth(field, setup, 1) == 0);
                    }
                }
            }
        }
    }
}

TEST_CASE("Rank-2 views in both layouts, vectors and spans")
{
    const Setup setup = setupFor(Shape::Random, 11, true);
    Communicator comm(world(), setup.send, setup.receive);
    SECTION("LayoutLeft")
    {
        auto field = fieldOfTruth<ViewL>(setup, 3);
        comm.startComm(field);
        comm.finaliseComm(field);
        REQUIRE(cellsNotTruth(field, setup, 3) == 0);
    }
    SECTION("LayoutRight, contiguous ghosts (in place)")
    {
        const Setup contiguous = setupFor(Shape::AllToAll, 12, false);
        Communicator direct(world(), contiguous.send, contiguous.receive);
        auto field = fieldOfTruth<ViewR>(contiguous, 2);
        direct.startComm(field);
        direct.finaliseComm(field);
        REQUIRE(cellsNotTruth(field, contiguous, 2) == 0);
    }
    SECTION("std::vector and std::span")
    {
        // the field's values as the test's formula wrote them, read on the host (a GPU build's
        // View1 is in device memory)
        const auto view =
            Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fieldOfTruth<View1>(setup, 1));
        std::vector<double> values(view.data(), view.data() + view.extent(0));
        comm.startComm(values, "vector");
        comm.finaliseComm(values, "vector");
        REQUIRE(cellsNotTruth(View1(Kokkos::view_alloc(), 0), Setup {}, 1) == 0);
        Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> wrapped(
            values.data(), values.size()
        );
        REQUIRE(cellsNotTruth(wrapped, setup, 1) == 0);

        const auto other =
            Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fieldOfTruth<View1>(setup, 1));
        std::vector<double> storage(other.data(), other.data() + other.extent(0));
        std::span<double> span(storage);
        comm.startComm(span);
        comm.finaliseComm(span);
        Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> spanView(
            storage.data(), storage.size()
        );
        REQUIRE(cellsNotTruth(spanView, setup, 1) == 0);
    }
}

TEST_CASE("Receive lists of runs (packed and unpacked by runs) in both layouts, several fields")
{
    const auto env = world();
    // ghosts numbered in shuffled blocks of 6: each receive list is runs of up to 6 cells
    const Setup setup =
        fieldsync::test::makeSetup(env.rank(), env.sizeRank(), Shape::AllToAll, 61, 40, true, 6);
    // the premise: some list is packed by runs here (and the rest by the gather)
    REQUIRE(
        (fieldsync::halo::PackPlan(setup.send, setup.receive, env.rank()).receive().anyLongRuns ||
         setup.receive.totalSize() == 0)
    );
    Communicator comm(world(), setup.send, setup.receive);
    SECTION("rank 1")
    {
        auto field = fieldOfTruth<View1>(setup, 1);
        comm.startComm(field);
        comm.finaliseComm(field);
        REQUIRE(cellsNotTruth(field, setup, 1) == 0);
    }
    SECTION("LayoutRight and LayoutLeft, 3 and 8 components")
    {
        for (const int components : { 3, 8 })
        {
            auto right = fieldOfTruth<ViewR>(setup, components);
            auto left = fieldOfTruth<ViewL>(setup, components);
            comm.startComm(right, "right");
            comm.startComm(left, "left");
            comm.finaliseComm(left, "left");
            comm.finaliseComm(right, "right");
            REQUIRE(cellsNotTruth(right, setup, components) == 0);
            REQUIRE(cellsNotTruth(left, setup, components) == 0);
        }
    }
    SECTION("two fields in one message (no memcpy: the buffer interleaves them)")
    {
        auto first = fieldOfTruth<ViewR>(setup, 3);
        auto second = fieldOfTruth<ViewR>(setup, 3);
        comm.startComm({ first, second }, "pair");
        comm.finaliseComm({ first, second }, "pair");
        REQUIRE(cellsNotTruth(first, setup, 3) == 0);
        REQUIRE(cellsNotTruth(second, setup, 3) == 0);
    }
}

TEST_CASE("Forced staging through host buffers")
{
    for (const bool scatter : { false, true })
    {
        const Setup setup = setupFor(Shape::AllToAll, 21, scatter);
        Communicator comm(world(), setup.send, setup.receive);
        comm.setOptions({ .staging = mpi::Staging::Always });
        auto field = fieldOfTruth<View1>(setup, 1);
        auto field2 = fieldOfTruth<ViewR>(setup, 2);
        comm.startComm(field);
        comm.startComm(field2);
        comm.finaliseComm(field2);
        comm.finaliseComm(field);
        REQUIRE(cellsNotTruth(field, setup, 1) == 0);
        REQUIRE(cellsNotTruth(field2, setup, 2) == 0);
    }
}

TEST_CASE("setOptions: every knob between exchanges, the ghosts right under each")
{
    // contiguous lists, so that in place and persistent requests are open to the exchange (the
    // back end is the variant's: FIELDSYNC_HALO_BACKEND)
    const Setup setup = setupFor(Shape::AllToAll, 41, false);
    Communicator comm(world(), setup.send, setup.receive);
    // the defaults (truth: the values ExchangeOptions documents, the environment's wait policy)
    const mpi::WaitPolicy environment = mpi::WaitPolicy::fromEnvironment();
    {
        const ExchangeOptions& initial = comm.options();
        REQUIRE(initial.waitPolicy.has_value());
        CHECK(initial.waitPolicy->timeoutSeconds == environment.timeoutSeconds);
        CHECK(initial.waitPolicy->action == environment.action);
        CHECK(initial.persistentFrom == 512);
        CHECK(initial.staging == mpi::Staging::Auto);
        CHECK(initial.inPlace);
        CHECK(!initial.timing);
    }
    // each knob off its default alone, then all at once, then the defaults again
    const std::vector<ExchangeOptions> settings {
        { .persistentFrom = 0 },
        { .persistentFrom = ExchangeOptions::neverPersistent },
        { .staging = mpi::Staging::Always },
        { .inPlace = false },
        { .timing = true },
        { .waitPolicy = mpi::WaitPolicy { 30.0, mpi::TimeoutAction::Error } },
        { .waitPolicy = mpi::WaitPolicy { 30.0, mpi::TimeoutAction::Error },
          .persistentFrom = 0,
          .staging = mpi::Staging::Always,
          .inPlace = false,
          .timing = true },
        {},
    };
    const fieldsync::CommKey key { "options" };
    for (std::size_t i = 0; i < settings.size(); ++i)
    {
        const ExchangeOptions& set = settings[i];
        CAPTURE(i);
        comm.setOptions(set);
        const ExchangeOptions& now = comm.options();
        REQUIRE(now.waitPolicy.has_value());
        const mpi::WaitPolicy policy = set.waitPolicy.value_or(environment);
        CHECK(now.waitPolicy->timeoutSeconds == policy.timeoutSeconds);
        CHECK(now.waitPolicy->action == policy.action);
        CHECK(now.persistentFrom == set.persistentFrom);
        CHECK(now.staging == set.staging);
        CHECK(now.inPlace == set.inPlace);
        CHECK(now.timing == set.timing);
        comm.resetStats();
        for (int step = 1; step <= 3; ++step) // persistent requests restart, in place rebinds
        {
            auto single = fieldOfTruth<View1>(setup, 1, step);
            auto right = fieldOfTruth<ViewR>(setup, 3, step);
            comm.startComm(single, key);
            comm.startComm(right, "options, rank 2");
            comm.finaliseComm(right, "options, rank 2");
            comm.finaliseComm(single, key);
            REQUIRE(cellsNotTruth(single, setup, 1, step) == 0);
            REQUIRE(cellsNotTruth(right, setup, 3, step) == 0);
        }
        // timing off: the counters go on, the times stay zero
        const fieldsync::halo::ExchangeStats& stats = comm.stats(key);
        CHECK(stats.exchanges == 3);
        if (!set.timing)
        {
            CHECK(stats.packSeconds == 0.0);
            CHECK(stats.postSeconds == 0.0);
            CHECK(stats.waitSeconds == 0.0);
            CHECK(stats.unpackSeconds == 0.0);
        }
    }
}

TEST_CASE("setOptions: a bad wait policy is an Error naming the caller's line; nothing changes")
{
    const Setup setup = setupFor(Shape::Ring, 43, false);
    Communicator comm(world(), setup.send, setup.receive);
    comm.setOptions({ .inPlace = false });
    for (const double seconds : { 0.0, -1.0, std::nan(""), HUGE_VAL })
    {
        CAPTURE(seconds);
        const ExchangeOptions bad { .waitPolicy = mpi::WaitPolicy { seconds } };
        std::optional<fieldsync::Error> error;
        const int line { __LINE__ + 3 };
        try
        {
            comm.setOptions(bad);
        }
        catch (const fieldsync::Error& e)
        {
            error = e;
        }
        REQUIRE(error.has_value());
        CHECK(error->where().line() == static_cast<unsigned>(line));
        CHECK(std::string(error->where().file_name()).ends_with("halo/communicator.cpp"));
        CHECK_THAT(
            error->message(),
            Catch::Contains("timeoutSeconds = " + std::to_string(seconds) + " is not")
        );
        // the options in force are the ones before
        CHECK_FALSE(comm.options().inPlace);
        CHECK(
            comm.options().waitPolicy->timeoutSeconds ==
            mpi::WaitPolicy::fromEnvironment().timeoutSeconds
        );
    }
    // an empty Communicator has no options to set: the Error names this line too
    Communicator empty;
    std::optional<fieldsync::Error> error;
    const int line { __LINE__ + 3 };
    try
    {
        empty.setOptions({});
    }
    catch (const fieldsync::Error& e)
    {
        error = e;
    }
    REQUIRE(error.has_value());
    CHECK(error->where().line() == static_cast<unsigned>(line));
    CHECK_THAT(error->message(), Catch::Contains("default-constructed"));
}

TEST_CASE("Several fields in one exchange")
{
    const Setup setup = setupFor(Shape::Random, 31, false);
    Communicator comm(world(), setup.send, setup.receive);
    auto a = fieldOfTruth<ViewL>(setup, 2);
    auto b = fieldOfTruth<ViewL>(setup, 3);
    comm.startComm({ a, b }, "pair");
    comm.finaliseComm({ a, b }, "pair");
    REQUIRE(cellsNotTruth(a, setup, 2) == 0);
    REQUIRE(cellsNotTruth(b, setup, 3) == 0);
    auto c = fieldOfTruth<View1>(setup, 1);
    auto d = fieldOfTruth<View1>(setup, 1);
    comm.startComm({ c, d });
    comm.finaliseComm({ c, d });
    REQUIRE(cellsNotTruth(c, setup, 1) == 0);
    REQUIRE(cellsNotTruth(d, setup, 1) == 0);
}

TEST_CASE("Several keys in flight, started and finalised in rank-dependent orders")
{
    const auto env = world();
    const Setup setup = setupFor(Shape::Random, 41, true);
    // point-to-point: keys are told apart by tag. A neighbourhood collective has no tag, so with
    // that back end every rank must start its exchanges in the same order (doc/topology.md)
    Communicator comm(
        env,
        setup.send,
        setup.receive,
        fieldsync::halo::CommitOptions { .backEnd = fieldsync::halo::BackEnd::PointToPoint }
    );
    std::vector<View1> fields;
    for (int f = 0; f < 3; ++f)
    {
        fields.push_back(fieldOfTruth<View1>(setup, 1, f));
    }
    const std::vector<std::string> keys { "alpha", "beta", "gamma" };
    std::vector<int> startOrder { 0, 1, 2 };
    std::vector<int> endOrder { 2, 0, 1 };
    if (env.rank() % 2 == 1)
    {
        startOrder = { 2, 0, 1 };
        endOrder = { 1, 2, 0 };
    }
    for (int step = 0; step < 5; ++step)
    {
        for (const int f : startOrder)
        {
            comm.startComm(fields[static_cast<std::size_t>(f)], keys[static_cast<std::size_t>(f)]);
        }
        for (const int f : endOrder)
        {
            comm.finaliseComm(
                fields[static_cast<std::size_t>(f)], keys[static_cast<std::size_t>(f)]
            );
        }
    }
    for (int f = 0; f < 3; ++f)
    {
        REQUIRE(cellsNotTruth(fields[static_cast<std::size_t>(f)], setup, 1, f) == 0);
    }
    REQUIRE(comm.poolSize() == 3);
}

TEST_CASE("progress() moves every exchange in flight until all have completed")
{
    const auto env = world();
    const Setup setup = setupFor(Shape::Random, 43, true, 200); // up to 1.6 KiB per message
    Communicator comm(env, setup.send, setup.receive);
    REQUIRE(comm.progress()); // nothing in flight
    View1 first = fieldOfTruth<View1>(setup, 1, 0);
    ViewR second = fieldOfTruth<ViewR>(setup, 3, 1);
    const fieldsync::CommKey a { "progress::a" };
    const fieldsync::CommKey b { "progress::b" };
    comm.startComm(first, a);
    comm.startComm(second, b);
    // the interior update of a solver, in chunks, with a progress call between them; the
    // exchanges complete because the peers make the same calls (bounded by the test's time-out)
    while (!comm.progress())
    {
    }
    REQUIRE(comm.isComplete(a)); // progress said all: each one says so too
    REQUIRE(comm.isComplete(b));
    comm.finaliseComm(second, b);
    comm.finaliseComm(first, a);
    REQUIRE(cellsNotTruth(first, setup, 1, 0) == 0);
    REQUIRE(cellsNotTruth(second, setup, 3, 1) == 0);
    REQUIRE(comm.progress());
    REQUIRE(comm.stats(a).exchanges == 1);
}

TEST_CASE("The same key reused for 200 steps")
{
    // A key keeps its tag, buffer and requests for good: no count of steps crosses anything in
    // the engine, so 200 steps check what 1000 did (those took 4 s of each run on 3 ranks on 2
    // cores under MPICH, this wait spinning without a yield)
    const auto env = world();
    const Setup setup = setupFor(Shape::Ring, 51, false, 4);
    Communicator comm(env, setup.send, setup.receive);
    View1 field("field", setup.nLocal);
    auto host = Kokkos::create_mirror_view(field);
    int wrong { 0 };
    for (int step = 0; step < 200; ++step)
    {
        for (int i = 0; i < setup.nOwned; ++i)
        {
            host(i) = truth(setup.globalId[static_cast<std::size_t>(i)], 0, step);
        }
        Kokkos::deep_copy(field, host);
        comm.startComm(field);
        while (!comm.isComplete(field))
        {
        }
        comm.finaliseComm(field);
        Kokkos::deep_copy(host, field);
        for (int i = setup.nOwned; i < setup.nLocal; ++i)
        {
            wrong += host(i) == truth(setup.globalId[static_cast<std::size_t>(i)], 0, step) ? 0 : 1;
        }
    }
    REQUIRE(wrong == 0);
    REQUIRE(comm.poolSize() == 1);
}

TEST_CASE("Reverse exchange combines ghost values at their owners")
{
    const auto env = world();
    const int me = env.rank();
    const int n = env.sizeRank();
    constexpr std::uint64_t seed { 61 };
    for (const bool scatter : { false, true })
    {
        const Setup setup = setupFor(Shape::Random, seed, scatter);
        Communicator comm(env, setup.send, setup.receive);
        // expected, computed from the pattern alone
        std::vector<double> sum(static_cast<std::size_t>(setup.nOwned), 0.0);
        std::vector<double> max(static_cast<std::size_t>(setup.nOwned), -1.0e300);
        std::vector<double> min(static_cast<std::size_t>(setup.nOwned), 1.0e300);
        for (int r = 0; r < n; ++r)
        {
            for (const auto cell : fieldsync::test::ghostsOf(r, me, n, Shape::Random, seed, 12))
            {
                const auto c = static_cast<std::size_t>(cell);
                const double v = fieldsync::test::backValue(r, setup.globalId[c]);
                sum[c] += v;
                max[c] = std::max(max[c], v);
                min[c] = std::min(min[c], v);
            }
        }
        View1 field("field", setup.nLocal);
        auto host = Kokkos::create_mirror_view(field);
        auto fill = [&]
        {
            for (int i = 0; i < setup.nLocal; ++i)
            {
                const long g = setup.globalId[static_cast<std::size_t>(i)];
                host(i) = i < setup.nOwned ? 500.0 : fieldsync::test::backValue(me, g);
            }
            Kokkos::deep_copy(field, host);
        };
        fill();
        comm.startReverse(field, mpi::ReduceOp::Sum, "reverse");
        comm.finaliseReverse(field, "reverse");
        Kokkos::deep_copy(host, field);
        int wrong { 0 };
        for (int i = 0; i < setup.nOwned; ++i)
        {
            wrong += host(i) == 500.0 + sum[static_cast<std::size_t>(i)] ? 0 : 1;
        }
        REQUIRE(wrong == 0);
        fill();
        comm.startReverse(field, fieldsync::halo::ReverseOp::Max);
        comm.finaliseReverse(field);
        Kokkos::deep_copy(host, field);
        for (int i = 0; i < setup.nOwned; ++i)
        {
            wrong += host(i) == std::max(500.0, max[static_cast<std::size_t>(i)]) ? 0 : 1;
        }
        REQUIRE(wrong == 0);
        fill();
        comm.startReverse(field, fieldsync::halo::ReverseOp::Min, "min");
        comm.finaliseReverse(field, "min");
        Kokkos::deep_copy(host, field);
        for (int i = 0; i < setup.nOwned; ++i)
        {
            wrong += host(i) == std::min(500.0, min[static_cast<std::size_t>(i)]) ? 0 : 1;
        }
        REQUIRE(wrong == 0);
    }
}

TEST_CASE("Communicator misuse is an Error naming the key")
{
    const auto env = world();
    const Setup setup = setupFor(Shape::AllToAll, 71, false);
    Communicator comm(env, setup.send, setup.receive);
    auto field = fieldOfTruth<View1>(setup, 1);
    auto other = fieldOfTruth<View1>(setup, 1);

    SECTION("start twice under one key")
    {
        comm.startComm(field, "twice");
        REQUIRE_THROWS_WITH(
            comm.startComm(other, "twice"), Catch::Contains("'twice' is already in flight")
        );
        comm.finaliseComm(field, "twice");
    }
    SECTION("finalise what is not in flight lists the exchanges in flight")
    {
        comm.startComm(field, "running");
        REQUIRE_THROWS_WITH(
            comm.finaliseComm(field, "absent"), Catch::Contains("'running' started at")
        );
        REQUIRE_THROWS_WITH(comm.finaliseComm(other), Catch::Contains("no exchange of this field"));
        REQUIRE_THROWS_WITH(
            comm.finaliseComm(other, "running"), Catch::Contains("not the field that was started")
        );
        comm.finaliseComm(field);
        REQUIRE(cellsNotTruth(field, setup, 1) == 0);
    }
    SECTION("a field too small for the maps")
    {
        View1 tiny("tiny", 1);
        if (setup.send.maxIndex() >= 1 || setup.receive.maxIndex() >= 1)
        {
            REQUIRE_THROWS_WITH(
                comm.startComm(tiny), Catch::Contains("beyond the field of 1 cells")
            );
        }
    }
    SECTION("two keys with the same tag in flight")
    {
        // find two names whose tags collide (birthday search over the Communicator's tags)
        std::unordered_map<int, std::string> seen;
        std::string first;
        std::string second;
        for (int i = 0; second.empty(); ++i)
        {
            const std::string candidate = "key" + std::to_string(i);
            const int tag = comm.tagOf(candidate);
            const auto [it, inserted] = seen.emplace(tag, candidate);
            if (!inserted)
            {
                first = it->second;
                second = candidate;
            }
        }
        comm.startComm(field, first);
        REQUIRE_THROWS_WITH(
            comm.startComm(other, second), Catch::Contains("the same as exchange '" + first + "'")
        );
        comm.finaliseComm(field, first);
    }
    SECTION("finalise with another view over the same memory is an Error, not a write past it")
    {
        using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
        comm.startComm(field, "shape");
        // the same pointer seen with two components per cell: unpacking would write past the end
        using Space = View1::memory_space; // device memory in a GPU build: never dereferenced here
        Kokkos::View<double**, Kokkos::LayoutRight, Space, Unmanaged> wide(
            field.data(), field.extent(0), 2
        );
        REQUIRE_THROWS_WITH(
            comm.finaliseComm(wide, "shape"),
            Catch::Contains("not the field that was started") && Catch::Contains("view type")
        );
        // the same pointer and type, fewer cells
        Kokkos::View<double*, Space, Unmanaged> shorter(field.data(), field.extent(0) - 1);
        REQUIRE_THROWS_WITH(
            comm.finaliseComm(shorter, "shape"), Catch::Contains("other extents or strides")
        );
        comm.finaliseComm(field, "shape");
        REQUIRE(cellsNotTruth(field, setup, 1) == 0);
    }
    SECTION("an empty Communicator")
    {
        Communicator empty;
        REQUIRE_THROWS_WITH(empty.startComm(field), Catch::Contains("default-constructed"));
    }
}

TEST_CASE("Map errors name the rank and the entry")
{
    const auto env = world();
    const int n = env.sizeRank();
    fieldsync::halo::RankSimplexCommMap map(n);
    REQUIRE_THROWS_WITH(
        map.setRank(n, { 1 }),
        Catch::Contains("neighbour rank " + std::to_string(n) + " is out of range")
    );
    REQUIRE_THROWS_WITH(
        map.setRank(-1, { 1 }), Catch::Contains("neighbour rank -1 is out of range")
    );
    REQUIRE_THROWS_WITH(
        map.setRank(0, { 3, -2 }), Catch::Contains("entry 1 has the negative cell index -2")
    );
    REQUIRE_THROWS_WITH(
        fieldsync::halo::RankSimplexCommMap(n, { 0, 0 }, { 0, 1, 2 }, { 4, 5 }),
        Catch::Contains("neighbour rank 0 is listed twice")
    );
    REQUIRE_THROWS_WITH(
        fieldsync::halo::RankSimplexCommMap(n, { 0 }, { 0, 3 }, { 4, 5 }),
        Catch::Contains("offsets must run from 0")
    );
    // a ghost cell written twice
    fieldsync::halo::RankSimplexCommMap receive(n);
    fieldsync::halo::RankSimplexCommMap send(n);
    receive.setRank(env.rank(), { 7, 8, 7 });
    send.setRank(env.rank(), { 0, 1, 2 });
    REQUIRE_THROWS_WITH(
        Communicator(env, send, receive), Catch::Contains("cell 7 is written twice")
    );
    // maps for another communicator size
    REQUIRE_THROWS_WITH(
        Communicator(
            env, fieldsync::halo::RankSimplexCommMap(n + 1), fieldsync::halo::RankSimplexCommMap(n)
        ),
        Catch::Contains("the send map is for " + std::to_string(n + 1) + " ranks")
    );
}

TEST_CASE("Map layout: flat, sized by neighbours, contiguous runs detected")
{
    const int n = 1000000; // a large communicator: memory must not grow with it
    fieldsync::halo::RankSimplexCommMap map(n);
    map.setRank(500000, { 10, 11, 12 });
    map.setRank(7, { 3, 1 });
    map.setRank(900000, {});
    REQUIRE(map.neighbours().size() == 2);
    REQUIRE(map.neighbours()[0] == 7);
    REQUIRE(map.offsets().size() == 3);
    REQUIRE(map.totalSize() == 5);
    REQUIRE(map.runStart(0) == -1);
    REQUIRE(map.runStart(1) == 10);
    REQUIRE(map.indicesOf(500000).size() == 3);
    REQUIRE(map.indicesOf(3).empty());
    fieldsync::halo::RankSimplexCommMap flat(n, { 500000, 7 }, { 0, 3, 5 }, { 10, 11, 12, 3, 1 });
    REQUIRE(
        std::vector<int>(flat.neighbours().begin(), flat.neighbours().end()) ==
        std::vector<int> { 7, 500000 }
    );
    REQUIRE(
        std::vector<fieldsync::LocalIndex>(flat.indices().begin(), flat.indices().end()) ==
        std::vector<fieldsync::LocalIndex> { 3, 1, 10, 11, 12 }
    );
    fieldsync::RankSimplexCommMap alias = flat; // the seed's name at namespace fieldsync
    REQUIRE(alias.maxIndex() == 12);
    // NeoN's plain per-rank map (fieldsync::CommMap) gives the same flat map
    fieldsync::CommMap perRank(static_cast<std::size_t>(n));
    perRank[7] = { { 3 }, { 1 } };
    perRank[500000] = { { 10 }, { 11 }, { 12 } };
    const fieldsync::halo::RankSimplexCommMap converted = perRank;
    REQUIRE(converted.neighbours().size() == 2);
    REQUIRE(
        std::vector<fieldsync::LocalIndex>(
            converted.indices().begin(), converted.indices().end()
        ) == std::vector<fieldsync::LocalIndex> { 3, 1, 10, 11, 12 }
    );
    REQUIRE(converted.runStart(1) == 10);
}

namespace
{
/**
 * A ring where each rank sends its 4 owned cells to the next rank and receives the previous
 * rank's 4 into ghosts 4..; rank 0's receive map lists @p rank0Ghosts ghosts instead of 4.
 */
struct MismatchedRing
{
    fieldsync::halo::RankSimplexCommMap send;
    fieldsync::halo::RankSimplexCommMap receive;
    int nLocal { 0 };
    int previous { 0 };
};

MismatchedRing mismatchedRing(int me, int n, int rank0Ghosts)
{
    MismatchedRing ring { fieldsync::halo::RankSimplexCommMap(n),
                          fieldsync::halo::RankSimplexCommMap(n),
                          0,
                          (me + n - 1) % n };
    ring.send.setRank((me + 1) % n, { 0, 1, 2, 3 });
    const int ghosts = me == 0 ? rank0Ghosts : 4;
    std::vector<fieldsync::LocalIndex> in;
    for (int i = 0; i < ghosts; ++i)
    {
        in.push_back(4 + i);
    }
    ring.receive.setRank(ring.previous, in);
    ring.nLocal = 4 + ghosts;
    return ring;
}
} // namespace

TEST_CASE("A received message of another size than the receive map expects is an Error")
{
    const auto env = world();
    const int me = env.rank();
    const int n = env.sizeRank();
    if (n < 2)
    {
        return; // one rank: the self message sizes are checked when the Communicator is built
    }
    for (const bool inPlace : { true, false })
    {
        for (const bool persistent : { false, true })
        {
            // shorter: rank 0 expects 5 cells (40 bytes), its peer sends 4 (32 bytes); longer:
            // rank 0 expects 3 (24 bytes), MPI truncates the 32 bytes (MPI_ERR_TRUNCATE)
            for (const int rank0Ghosts : { 5, 3 })
            {
                CAPTURE(inPlace, persistent, rank0Ghosts);
                const MismatchedRing ring = mismatchedRing(me, n, rank0Ghosts);
                const fieldsync::test::TruncationReturnsOnWorld returnErrors; // MPICH only
                // the commit would catch the mismatch: without its check, the point-to-point
                // receiver must (a neighbourhood collective of mismatched sizes is erroneous MPI)
                Communicator comm(
                    env,
                    ring.send,
                    ring.receive,
                    fieldsync::halo::CommitOptions {
                        .checkPattern = false, .backEnd = fieldsync::halo::BackEnd::PointToPoint }
                );
                comm.setOptions({ .persistentFrom =
                                      persistent ? 0 : ExchangeOptions::neverPersistent,
                                  .inPlace = inPlace });
                View1 field("field", static_cast<std::size_t>(ring.nLocal));
                auto host = Kokkos::create_mirror_view(field);
                for (int i = 0; i < ring.nLocal; ++i)
                {
                    host(i) = i < 4 ? 100.0 * me + i : -1.0;
                }
                Kokkos::deep_copy(field, host);
                const std::string key = "mismatch";
                comm.startComm(field, key);
                if (me == 0)
                {
                    const std::string peer = "receive from rank " + std::to_string(ring.previous);
                    if (rank0Ghosts == 5)
                    {
                        CHECK_THROWS_WITH(
                            comm.finaliseComm(field, key),
                            Catch::Contains("'mismatch'") && Catch::Contains("communicator.cpp:") &&
                                Catch::Contains(peer + ": expected 40 bytes, received 32 bytes") &&
                                Catch::Contains("send and receive maps disagree")
                        );
                    }
                    else
                    {
                        CHECK_THROWS_WITH(
                            comm.finaliseComm(field, key),
                            Catch::Contains("'mismatch'") && Catch::Contains("communicator.cpp:") &&
                                Catch::Contains(peer + ": expected 24 bytes, received") &&
                                Catch::Contains("(truncated)") &&
                                Catch::Contains("send and receive maps disagree")
                        );
                    }
                    // the exchange is over and its buffer released: nothing is in flight
                    CHECK_THROWS_WITH(
                        comm.finaliseComm(field, key),
                        Catch::Contains("is in flight. In flight: none")
                    );
                }
                else
                {
                    // the other ranks, the sender to rank 0 included, complete normally
                    comm.finaliseComm(field, key);
                    Kokkos::deep_copy(host, field);
                    for (int i = 0; i < 4; ++i)
                    {
                        CHECK(host(4 + i) == 100.0 * ring.previous + i);
                    }
                }
                MPI_Barrier(MPI_COMM_WORLD);
            }
        }
    }
}

TEST_CASE("A field let go while its in-place exchange is in flight stays alive until MPI is "
          "done with it")
{
    // ring ghosts are contiguous per neighbour: both directions go to MPI from and into the
    // field itself. The caller drops its only handle of the field, then the Communicator: MPI
    // must never write into freed memory (the valgrind variant of this test would report it).
    const auto env = world();
    const Setup setup = setupFor(Shape::Ring, 47, false, 64);
    {
        std::optional<Communicator> comm(std::in_place, env, setup.send, setup.receive);
        {
            View1 field = fieldOfTruth<View1>(setup, 1);
            comm->startComm(field, "let go");
        } // the caller's handle is gone; the exchange still holds the field
        MPI_Barrier(MPI_COMM_WORLD); // the peers' messages arrive into the held field
        comm.reset();                // destroyed in flight: completed or cancelled, then freed
        // in check mode it is also kept as an Error for the next collective: taken here
        CHECK(fieldsync::takeDeferredError().empty() != fieldsync::checkMode());
    }
    // and the usual path: the same Communicator finalises a field whose handle it also holds
    Communicator comm(env, setup.send, setup.receive);
    View1 field = fieldOfTruth<View1>(setup, 1);
    comm.startComm(field, "kept");
    comm.finaliseComm(field, "kept");
    REQUIRE(cellsNotTruth(field, setup, 1) == 0);
    REQUIRE(field.use_count() == 1); // the exchange let its copy go at finalise
}

TEST_CASE("Destroying a Communicator with a packed send in flight: the receiver still gets the "
          "right values")
{
    const auto env = world();
    if (env.sizeRank() < 2)
    {
        return;
    }
    // rank 0 sends 64 Ki permuted cells (packed, large enough for a rendezvous protocol) to
    // rank 1; nobody sends back. Rank 0 destroys its Communicator without finalising.
    constexpr int cells { 1 << 16 };
    const int me = env.rank();
    fieldsync::halo::RankSimplexCommMap send(env.sizeRank());
    fieldsync::halo::RankSimplexCommMap receive(env.sizeRank());
    std::vector<fieldsync::LocalIndex> order(cells);
    for (int i = 0; i < cells; ++i)
    {
        order[static_cast<std::size_t>(i)] = (i * 7919) % cells; // a permutation: not one run
    }
    if (me == 0)
    {
        send.setRank(1, order);
    }
    if (me == 1)
    {
        std::vector<fieldsync::LocalIndex> ghosts(cells);
        std::iota(ghosts.begin(), ghosts.end(), 0);
        receive.setRank(0, ghosts);
    }
    View1 field("field", cells);
    auto host = Kokkos::create_mirror_view(field);
    for (int i = 0; i < cells; ++i)
    {
        host(i) = me == 0 ? 0.5 * i : -1.0;
    }
    Kokkos::deep_copy(field, host);
    std::optional<Communicator> comm(std::in_place, env, send, receive); // collective
    if (me == 1)
    {
        comm->startComm(field, "dropped"); // the receive is posted before rank 0 sends
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
    {
        comm->startComm(field, "dropped");
        for (int i = 0; i < cells; ++i)
        {
            host(i) = -7.0; // the field changes after the start: MPI must read the pack buffer
        }
        Kokkos::deep_copy(field, host);
        comm.reset(); // destroyed in flight: the send completes before the pack buffer is freed
        // in check mode it is also kept as an Error for the next collective: taken here
        CHECK(fieldsync::takeDeferredError().empty() != fieldsync::checkMode());
    }
    if (me == 1)
    {
        comm->finaliseComm(field, "dropped");
        Kokkos::deep_copy(host, field);
        int wrong { 0 };
        for (int i = 0; i < cells; ++i)
        {
            wrong += host(i) == 0.5 * order[static_cast<std::size_t>(i)] ? 0 : 1;
        }
        REQUIRE(wrong == 0);
    }
}
