// SPDX-License-Identifier: MIT
// PackPlan (src/halo/packPlan.hpp): the forms it gives each neighbour list, compared with forms
// worked out by hand from small maps and field forms; then exchanges whose lists take each form
// (in place, by runs, by indices), their ghosts compared with a function of the global id.
#include "fieldsync_test/catch.hpp"

#include "haloPatterns.hpp"
#include "packPlan.hpp"

#include "fieldsync/halo/communicator.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

using fieldsync::LocalIndex;
using fieldsync::halo::PackChoice;
using fieldsync::halo::PackFields;
using fieldsync::halo::PackForm;
using fieldsync::halo::PackPlan;
using fieldsync::halo::PackWhy;
using fieldsync::halo::RankSimplexCommMap;

namespace packPlanTest
{
constexpr int ranks { 4 };
constexpr int me { 1 };

/**
 * @brief Rank 1 of 4 sends {0,1,2} to rank 0 (one run), {3} to itself, {10..14, 20..24} to
 * rank 2 (two runs of 5: a mean of 5 >= 4) and {5,4,5} to rank 3 (runs {5}, {4,5}: a mean of
 * 1.5).
 */
RankSimplexCommMap sends()
{
    return RankSimplexCommMap(
        ranks,
        { 0, 1, 2, 3 },
        { 0, 3, 4, 14, 17 },
        { 0, 1, 2, 3, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24, 5, 4, 5 }
    );
}

/** @brief It receives ghost {6} from itself and {7,8} from rank 2. */
RankSimplexCommMap receives()
{
    return RankSimplexCommMap(ranks, { 1, 2 }, { 0, 1, 3 }, { 6, 7, 8 });
}

/** @brief The form of each list of @p side under @p choice. */
std::vector<PackForm>
formsOf(const PackPlan::Side& side, std::size_t lists, const PackChoice& choice, bool sending)
{
    std::vector<PackForm> forms;
    for (std::size_t k = 0; k < lists; ++k)
    {
        forms.push_back(PackPlan::form(side, k, choice, sending));
    }
    return forms;
}

/** @brief The ranges forEachRange calls, as (k0, k1, by runs). */
using Ranges = std::vector<std::pair<std::pair<std::size_t, std::size_t>, bool>>;

Ranges rangesOf(
    const PackPlan::Side& side,
    const RankSimplexCommMap& map,
    const PackChoice& choice,
    bool sending,
    bool perNeighbour
)
{
    Ranges ranges;
    PackPlan::forEachRange(
        side,
        map,
        choice,
        sending,
        perNeighbour,
        [&](std::size_t k0, std::size_t k1) {
            ranges.push_back({ { k0, k1 }, true });
        },
        [&](std::size_t k0, std::size_t k1) {
            ranges.push_back({ { k0, k1 }, false });
        }
    );
    return ranges;
}
} // namespace packPlanTest

TEST_CASE("PackPlan finds each list's runs and forms from the maps alone", "[halo][packPlan]")
{
    using namespace packPlanTest;
    const PackPlan plan(sends(), receives(), me);
    const PackPlan::Side& send = plan.send();
    CHECK(send.runs.runCount() == 6); // {0,1,2} {3} {10..14} {20..24} {5} {4,5}
    CHECK(send.contiguous == std::vector<unsigned char> { 1, 0, 0, 0 }); // its own {3}: no
    CHECK(send.longRuns == std::vector<unsigned char> { 0, 0, 1, 0 });   // means 3, 1, 5, 1.5
    CHECK(send.nonEmpty == 4);
    CHECK(send.contiguousCount == 1);
    CHECK(send.anyLongRuns);
    const PackPlan::Side& receive = plan.receive();
    CHECK(receive.contiguous == std::vector<unsigned char> { 0, 1 });
    CHECK(receive.longRuns == std::vector<unsigned char> { 0, 0 });
    CHECK(receive.nonEmpty == 2);
    CHECK_FALSE(receive.anyLongRuns);
    CHECK(&plan.from(false) == &send);
    CHECK(&plan.from(true) == &receive);
    CHECK(&plan.to(false) == &receive);
    CHECK(&plan.to(true) == &send);
}

TEST_CASE(
    "PackPlan::choose completes the plan with the fields, with the reason", "[halo][packPlan]"
)
{
    using namespace packPlanTest;
    const PackPlan plan(sends(), receives(), me);
    using F = PackForm;

    // one rank-1 field on the host: every form open
    const PackChoice open = PackPlan::choose(PackFields {});
    CHECK(open.sendInPlace == PackWhy::Allowed);
    CHECK(open.receiveInPlace == PackWhy::Allowed);
    CHECK(open.byRuns());
    CHECK(
        formsOf(plan.send(), 4, open, true) ==
        std::vector<F> { F::InPlace, F::Indices, F::Runs, F::Indices }
    );
    CHECK(formsOf(plan.receive(), 2, open, false) == std::vector<F> { F::Indices, F::InPlace });
    CHECK(PackPlan::anyThroughBuffer(plan.send(), open, true));
    CHECK(PackPlan::anyThroughBuffer(plan.receive(), open, false)); // {6}, its own, is copied

    // each thing that rules in place out, and the first reason wins
    CHECK(PackPlan::choose(PackFields { .inPlaceOn = false }).sendInPlace == PackWhy::SwitchedOff);
    CHECK(PackPlan::choose(PackFields { .count = 2 }).sendInPlace == PackWhy::SeveralFields);
    CHECK(PackPlan::choose(PackFields { .staged = true }).receiveInPlace == PackWhy::Staged);
    CHECK(PackPlan::choose(PackFields { .rowsContiguous = false }).sendInPlace == PackWhy::Layout);
    CHECK(
        PackPlan::choose(PackFields { .neighbourhood = true }).sendInPlace == PackWhy::Neighbourhood
    );
    CHECK(
        PackPlan::choose(PackFields { .count = 2, .staged = true }).sendInPlace ==
        PackWhy::SeveralFields
    );
    const PackChoice several = PackPlan::choose(PackFields { .count = 2 });
    CHECK(several.byRuns()); // runs do not care how many fields
    CHECK(
        formsOf(plan.send(), 4, several, true) ==
        std::vector<F> { F::Indices, F::Indices, F::Runs, F::Indices }
    );

    // a reverse exchange sends in place but unpacks every list it receives
    const PackChoice reverse = PackPlan::choose(PackFields { .reverse = true });
    CHECK(reverse.sendInPlace == PackWhy::Allowed);
    CHECK(reverse.receiveInPlace == PackWhy::Reverse);
    CHECK(formsOf(plan.from(true), 2, reverse, true) == std::vector<F> { F::Indices, F::InPlace });
    CHECK(
        formsOf(plan.to(true), 4, reverse, false) ==
        std::vector<F> { F::Indices, F::Indices, F::Runs, F::Indices }
    );

    // kernels on a GPU (or any asynchronous space): the gather, never runs
    const PackChoice device = PackPlan::choose(PackFields { .synchronousHost = false });
    CHECK(device.runs == PackWhy::NotHost);
    CHECK(
        formsOf(plan.send(), 4, device, true) ==
        std::vector<F> { F::InPlace, F::Indices, F::Indices, F::Indices }
    );
    CHECK(
        std::string(fieldsync::halo::toString(PackWhy::NotHost)).find("host") != std::string::npos
    );
}

TEST_CASE(
    "PackPlan::forEachRange groups lists of one form, split by lists in place", "[halo][packPlan]"
)
{
    using namespace packPlanTest;
    const PackPlan plan(sends(), receives(), me);
    const RankSimplexCommMap map = sends();
    using R = Ranges;
    const PackChoice open = PackPlan::choose(PackFields {});
    CHECK(
        rangesOf(plan.send(), map, open, true, false) ==
        R { { { 1, 2 }, false }, { { 2, 3 }, true }, { { 3, 4 }, false } }
    );
    const PackChoice gather =
        PackPlan::choose(PackFields { .synchronousHost = false, .inPlaceOn = false });
    CHECK(rangesOf(plan.send(), map, gather, true, false) == R { { { 0, 4 }, false } });
    CHECK(
        rangesOf(plan.send(), map, gather, true, true) ==
        R { { { 0, 1 }, false }, { { 1, 2 }, false }, { { 2, 3 }, false }, { { 3, 4 }, false } }
    );
    // in place off, its own list and rank 2's in one range; nothing when all lists go in place
    const RankSimplexCommMap in = receives();
    CHECK(rangesOf(plan.receive(), in, gather, false, false) == R { { { 0, 2 }, false } });
    const RankSimplexCommMap contiguous(ranks, { 0, 2 }, { 0, 2, 3 }, { 4, 5, 9 });
    const PackPlan alone(contiguous, contiguous, me);
    CHECK_FALSE(PackPlan::anyThroughBuffer(alone.send(), open, true));
    CHECK(rangesOf(alone.send(), contiguous, open, true, false).empty());
}

namespace packPlanTest
{
using fieldsync::halo::Communicator;
using fieldsync::test::cellsNotTruth;
using fieldsync::test::fieldOfTruth;
using fieldsync::test::Setup;

/** @brief How many of @p map's non-empty receive lists take @p form under @p choice. */
int listsIn(
    const PackPlan& plan, const RankSimplexCommMap& map, const PackChoice& choice, PackForm form
)
{
    int count { 0 };
    for (std::size_t k = 0; k < map.neighbourCount(); ++k)
    {
        const bool cells = map.offsets()[k] < map.offsets()[k + 1];
        count += cells && PackPlan::form(plan.receive(), k, choice, false) == form ? 1 : 0;
    }
    return count;
}
} // namespace packPlanTest

TEST_CASE("Exchanges through each form of the plan give the truth", "[halo][packPlan]")
{
    using namespace packPlanTest;
    using View1 = Kokkos::View<double*>;
    using ViewL = Kokkos::View<double**, Kokkos::LayoutLeft>;
    const fieldsync::mpi::MPIEnvironment env(MPI_COMM_WORLD);
    const int size = env.sizeRank();
    // ghosts numbered neighbour after neighbour (each list one run: in place), in shuffled
    // blocks of 6 (runs of up to 6 cells: by runs), in shuffled single cells (by indices)
    struct Case
    {
        int block;     /**< 0: not shuffled */
        PackForm form; /**< the form of a rank-1 field's receive lists from other ranks */
    };
    for (const Case& c : { Case { 0, PackForm::InPlace },
                           Case { 6, PackForm::Runs },
                           Case { 1, PackForm::Indices } })
    {
        CAPTURE(c.block);
        const Setup setup = fieldsync::test::makeSetup(
            env.rank(),
            size,
            fieldsync::test::Shape::AllToAll,
            61,
            40,
            c.block != 0,
            c.block == 0 ? 1 : c.block
        );
        const PackPlan plan(setup.send, setup.receive, env.rank());
        const PackChoice one = PackPlan::choose(PackFields {});
        // the premise, on more than one rank: some list from another rank takes the form
        if (size > 1)
        {
            REQUIRE(listsIn(plan, setup.receive, one, c.form) > 0);
        }
        // one rank-1 field: the form of the case
        Communicator comm(env, setup.send, setup.receive);
        auto field = fieldOfTruth<View1>(setup, 1);
        comm.startComm(field);
        comm.finaliseComm(field);
        CHECK(cellsNotTruth(field, setup, 1) == 0);

        // two fields, and a LayoutLeft field of 3 components: never in place
        auto a = fieldOfTruth<View1>(setup, 1);
        auto b = fieldOfTruth<View1>(setup, 1);
        comm.startComm({ a, b }, "two");
        comm.finaliseComm({ a, b }, "two");
        CHECK(cellsNotTruth(a, setup, 1) == 0);
        CHECK(cellsNotTruth(b, setup, 1) == 0);
        auto left = fieldOfTruth<ViewL>(setup, 3);
        comm.startComm(left, "left");
        comm.finaliseComm(left, "left");
        CHECK(cellsNotTruth(left, setup, 3) == 0);

        // in place switched off: runs or indices only
        comm.setOptions({ .inPlace = false });
        const PackChoice off = PackPlan::choose(PackFields { .inPlaceOn = false });
        CHECK(listsIn(plan, setup.receive, off, PackForm::InPlace) == 0);
        auto again = fieldOfTruth<View1>(setup, 1);
        comm.startComm(again, "off");
        comm.finaliseComm(again, "off");
        CHECK(cellsNotTruth(again, setup, 1) == 0);
    }
}
