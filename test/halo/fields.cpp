// SPDX-License-Identifier: MIT
// Field layouts through the Communicator (ViewFields, fieldsync/halo/fields.hpp): LayoutLeft and
// LayoutStride rank-2 fields of 1, 2, 4 and 8 components (strides equal to LayoutLeft's, to
// LayoutRight's, with a padded column and with padded rows), forward with in-place on and off and
// reverse (Sum), on all-to-all receive lists that are one run per neighbour, runs of 6 cells and
// single cells: every cell is checked against a closed form of its global id and component,
// computed here from the pattern alone; column-major fields of 1 to 8 components through every
// back end with check mode on, and a field held LayoutLeft on some ranks and LayoutRight on the
// others. A one-column LayoutLeft or LayoutStride field goes to MPI in place as a rank-1 field
// does: seen in its ExchangeStats (no pack and no unpack time at all).
#include "fieldsync_test/catch.hpp"

#include "haloPatterns.hpp"
#include "packPlan.hpp"

#include "fieldsync/halo/communicator.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using fieldsync::halo::Communicator;
using fieldsync::halo::detail::ValueOrder;
using fieldsync::test::Setup;
using fieldsync::test::Shape;
namespace mpi = fieldsync::mpi;

namespace
{
using Host = Kokkos::HostSpace;
using Left = Kokkos::View<double**, Kokkos::LayoutLeft, Host>;
using Right = Kokkos::View<double**, Kokkos::LayoutRight, Host>;
using Strided = Kokkos::View<double**, Kokkos::LayoutStride, Host>;
using Span = Kokkos::pair<std::size_t, std::size_t>;

/** @brief The LayoutStride fields of the tests: whose strides they have. */
enum class Form
{
    AsLeft,        /**< LayoutLeft's strides */
    AsRight,       /**< LayoutRight's strides */
    PaddedColumns, /**< LayoutLeft's, each column 3 values longer than the cells */
    PaddedRows     /**< LayoutRight's, each row one value longer than the components */
};

const char* name(Form form)
{
    switch (form)
    {
    case Form::AsLeft:
        return "as LayoutLeft";
    case Form::AsRight:
        return "as LayoutRight";
    case Form::PaddedColumns:
        return "padded columns";
    case Form::PaddedRows:
        return "padded rows";
    }
    return "?";
}

/** @brief A LayoutStride field of @p form, @p cells x @p comps (its memory held by the view). */
Strided strided(Form form, std::size_t cells, std::size_t comps)
{
    switch (form)
    {
    case Form::AsLeft:
        return Strided(Left("field", cells, comps));
    case Form::AsRight:
        return Strided(Right("field", cells, comps));
    case Form::PaddedColumns:
        return Kokkos::subview(Left("field", cells + 3, comps), Span(0, cells), Kokkos::ALL);
    case Form::PaddedRows:
        return Kokkos::subview(Right("field", cells, comps + 1), Kokkos::ALL, Span(0, comps));
    }
    return {};
}

/** @brief The ValueOrder a field of @p form and @p comps components must have (by hand). */
ValueOrder expectedOrder(Form form, std::size_t comps)
{
    switch (form)
    {
    case Form::AsLeft:
    case Form::PaddedColumns:
        return comps == 1 ? ValueOrder::Rows : ValueOrder::Columns;
    case Form::AsRight:
        return ValueOrder::Rows;
    case Form::PaddedRows:
        return ValueOrder::Other;
    }
    return ValueOrder::Other;
}

/** @brief The most ghosts a rank takes from one rank (haloPatterns.hpp's maxSize). */
constexpr int maxGhosts { 40 };

/** @brief Component @p c of the cell of global id @p g sent back by rank @p r (reverse). */
double backValue(int r, long g, int c)
{
    return fieldsync::test::backValue(r, g) + 0.25 * c;
}

/** @brief Owned cells hold truth(global id, c), ghost cells -1. */
template<typename V>
void fillForward(const V& field, const Setup& setup)
{
    for (int i = 0; i < setup.nLocal; ++i)
    {
        const long g = setup.globalId[static_cast<std::size_t>(i)];
        for (int c = 0; c < static_cast<int>(field.extent(1)); ++c)
        {
            field(i, c) = i < setup.nOwned ? fieldsync::test::truth(g, c) : -1.0;
        }
    }
}

/** @brief Cells (owned and ghost) that differ from truth(global id, c); -1 where no id. */
template<typename V>
int wrongForward(const V& field, const Setup& setup)
{
    int wrong { 0 };
    for (int i = 0; i < setup.nLocal; ++i)
    {
        const long g = setup.globalId[static_cast<std::size_t>(i)];
        for (int c = 0; c < static_cast<int>(field.extent(1)); ++c)
        {
            wrong += field(i, c) == (g < 0 ? -1.0 : fieldsync::test::truth(g, c)) ? 0 : 1;
        }
    }
    return wrong;
}

/**
 * @brief One forward exchange of @p field (in place or not) and one reverse Sum; the wrong
 * cells after each, against sums computed from the pattern (@p shape, @p seed) alone.
 */
template<typename V>
int wrongAfterBoth(
    Communicator& comm, const V& field, const Setup& setup, Shape shape, std::uint64_t seed
)
{
    const mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    const int comps = static_cast<int>(field.extent(1));
    fillForward(field, setup);
    comm.startComm(field, "forward");
    comm.finaliseComm(field, "forward");
    int wrong = wrongForward(field, setup);

    // reverse: owned cells start at 500, each ghost sends backValue(me, g, c) to its owner
    for (int i = 0; i < setup.nLocal; ++i)
    {
        const long g = setup.globalId[static_cast<std::size_t>(i)];
        for (int c = 0; c < comps; ++c)
        {
            field(i, c) = i < setup.nOwned ? 500.0 : backValue(me, g, c);
        }
    }
    std::vector<double> sum(static_cast<std::size_t>(setup.nOwned), 0.0);
    for (int r = 0; r < n; ++r)
    {
        for (const auto cell : fieldsync::test::ghostsOf(r, me, n, shape, seed, maxGhosts))
        {
            sum[static_cast<std::size_t>(cell)] +=
                backValue(r, setup.globalId[static_cast<std::size_t>(cell)], 0);
        }
    }
    std::vector<int> times(static_cast<std::size_t>(setup.nOwned), 0); // ghosts of each cell
    for (int r = 0; r < n; ++r)
    {
        for (const auto cell : fieldsync::test::ghostsOf(r, me, n, shape, seed, maxGhosts))
        {
            ++times[static_cast<std::size_t>(cell)];
        }
    }
    comm.startReverse(field, fieldsync::halo::ReverseOp::Sum, "reverse");
    comm.finaliseReverse(field, "reverse");
    for (int i = 0; i < setup.nOwned; ++i)
    {
        const auto k = static_cast<std::size_t>(i);
        for (int c = 0; c < comps; ++c)
        {
            wrong += field(i, c) == 500.0 + sum[k] + 0.25 * c * times[k] ? 0 : 1;
        }
    }
    return wrong;
}

/**
 * @brief All-to-all graphs whose receive lists are one run per neighbour (@p block 0), runs of
 * @p block cells in random order, or single cells (@p block 1); send lists in random order.
 */
Setup allToAllSetup(std::uint64_t seed, int block)
{
    const mpi::MPIEnvironment env;
    return fieldsync::test::makeSetup(
        env.rank(),
        env.sizeRank(),
        Shape::AllToAll,
        seed,
        maxGhosts,
        block > 0,
        block > 0 ? block : 1
    );
}
} // namespace

TEST_CASE("The value order of LayoutLeft, LayoutRight and LayoutStride fields")
{
    // truth: the strides Kokkos gives each layout, as the Kokkos documentation states them
    for (const std::size_t comps : { 1, 2, 4, 8 })
    {
        CAPTURE(comps);
        REQUIRE(
            fieldsync::halo::detail::valueOrderOf(Left("l", 10, comps)) ==
            (comps == 1 ? ValueOrder::Rows : ValueOrder::Columns)
        );
        REQUIRE(fieldsync::halo::detail::valueOrderOf(Right("r", 10, comps)) == ValueOrder::Rows);
        for (const Form form :
             { Form::AsLeft, Form::AsRight, Form::PaddedColumns, Form::PaddedRows })
        {
            CAPTURE(name(form));
            REQUIRE(
                fieldsync::halo::detail::valueOrderOf(strided(form, 10, comps)) ==
                expectedOrder(form, comps)
            );
        }
    }
    REQUIRE(
        fieldsync::halo::detail::valueOrderOf(Kokkos::View<double*, Host>("v", 10)) ==
        ValueOrder::Rows
    );
    // one column of a LayoutLeft field is a rank-1 field: packed by runs with a copy per run
    REQUIRE(fieldsync::halo::copiesRuns(Left("l", 10, 1), 1));
    REQUIRE_FALSE(fieldsync::halo::copiesRuns(Left("l", 10, 2), 2));
    REQUIRE_FALSE(fieldsync::halo::copiesRuns(Left("l", 10, 1), 3)); // a buffer of three fields
}

TEST_CASE("LayoutLeft and LayoutStride fields of 1 to 8 components, forward and reverse")
{
    constexpr std::uint64_t seed { 43 };
    for (const int block : { 0, 6, 1 })
    {
        const Setup setup = allToAllSetup(seed, block);
        // the premise: runs of 6 cells are unpacked by runs (the rest by the gather or in place)
        REQUIRE(
            (block != 6 ||
             fieldsync::halo::PackPlan(setup.send, setup.receive, mpi::MPIEnvironment().rank())
                 .receive()
                 .anyLongRuns ||
             setup.receive.totalSize() == 0)
        );
        const auto cells = static_cast<std::size_t>(setup.nLocal);
        for (const bool inPlace : { true, false })
        {
            Communicator comm(mpi::MPIEnvironment(), setup.send, setup.receive);
            comm.setOptions({ .inPlace = inPlace });
            for (const std::size_t comps : { 1, 2, 4, 8 })
            {
                CAPTURE(block, inPlace, comps);
                REQUIRE(
                    wrongAfterBoth(
                        comm, Left("left", cells, comps), setup, Shape::AllToAll, seed
                    ) == 0
                );
                for (const Form form :
                     { Form::AsLeft, Form::AsRight, Form::PaddedColumns, Form::PaddedRows })
                {
                    CAPTURE(name(form));
                    REQUIRE(
                        wrongAfterBoth(
                            comm, strided(form, cells, comps), setup, Shape::AllToAll, seed
                        ) == 0
                    );
                }
            }
        }
    }
}

namespace
{
/** @brief The back ends this MPI library has (PersistentNeighbour needs MPI-4's). */
std::vector<fieldsync::halo::BackEnd> availableBackEnds()
{
    using fieldsync::halo::BackEnd;
    std::vector<BackEnd> backEnds { BackEnd::PointToPoint, BackEnd::NeighbourCollective };
    if (fieldsync::halo::persistentNeighbourAvailable())
    {
        backEnds.push_back(BackEnd::PersistentNeighbour);
    }
    return backEnds;
}

/** @brief A Communicator of @p setup on @p backEnd with check mode on. */
Communicator checkedCommunicator(const Setup& setup, fieldsync::halo::BackEnd backEnd)
{
    return Communicator(
        mpi::MPIEnvironment(),
        setup.send,
        setup.receive,
        fieldsync::halo::CommitOptions { .backEnd = backEnd, .check = true }
    );
}
} // namespace

TEST_CASE("Column-major fields of 1 to 8 components through every back end in check mode")
{
    // the loop per run copies blocks of 4 columns and the 1 to 3 left: 3 and 5 take both
    constexpr std::uint64_t seed { 47 };
    for (const int block : { 0, 6 })
    {
        const Setup setup = allToAllSetup(seed, block);
        const auto cells = static_cast<std::size_t>(setup.nLocal);
        for (const auto backEnd : availableBackEnds())
        {
            Communicator comm = checkedCommunicator(setup, backEnd);
            for (const std::size_t comps : { 1, 2, 3, 4, 5, 8 })
            {
                CAPTURE(block, fieldsync::halo::toString(backEnd), comps);
                REQUIRE(
                    wrongAfterBoth(
                        comm, Left("left", cells, comps), setup, Shape::AllToAll, seed
                    ) == 0
                );
                for (const Form form : { Form::AsLeft, Form::PaddedColumns })
                {
                    CAPTURE(name(form));
                    REQUIRE(
                        wrongAfterBoth(
                            comm, strided(form, cells, comps), setup, Shape::AllToAll, seed
                        ) == 0
                    );
                }
            }
        }
    }
}

TEST_CASE("A LayoutLeft field on some ranks and a LayoutRight one on the others agree")
{
    // the message is the same for every layout (each cell's components together), so ranks
    // may hold one field in different layouts; the truth is the pattern's, as for one layout
    constexpr std::uint64_t seed { 53 };
    const int me = mpi::MPIEnvironment().rank();
    for (const int block : { 0, 6, 1 })
    {
        const Setup setup = allToAllSetup(seed, block);
        const auto cells = static_cast<std::size_t>(setup.nLocal);
        for (const auto backEnd : availableBackEnds())
        {
            Communicator comm = checkedCommunicator(setup, backEnd);
            for (const std::size_t comps : { 1, 4, 8 })
            {
                CAPTURE(block, fieldsync::halo::toString(backEnd), comps);
                const int wrong =
                    me % 2 == 0
                        ? wrongAfterBoth(
                              comm, Left("left", cells, comps), setup, Shape::AllToAll, seed
                          )
                        : wrongAfterBoth(
                              comm, Right("right", cells, comps), setup, Shape::AllToAll, seed
                          );
                REQUIRE(wrong == 0);
            }
        }
    }
}

namespace
{
constexpr int chainOwned { 10 }; /**< owned cells per rank of chainSetup() */
constexpr int chainWidth { 3 };  /**< ghost cells from each neighbour */

/**
 * @brief A chain of ranks (not periodic): rank r sends its first chainWidth cells to r - 1 and
 * its last to r + 1, and receives r - 1's into cells [owned, owned + width) and r + 1's into
 * the next width cells (global id -1 where there is no neighbour): every list one ascending
 * run, so every message of a rank-1 field goes in place.
 */
Setup chainSetup()
{
    const mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    Setup setup;
    setup.nOwned = chainOwned;
    setup.nLocal = chainOwned + 2 * chainWidth;
    setup.send = fieldsync::halo::RankSimplexCommMap(n);
    setup.receive = fieldsync::halo::RankSimplexCommMap(n);
    setup.globalId.assign(static_cast<std::size_t>(setup.nLocal), -1);
    for (int i = 0; i < chainOwned; ++i)
    {
        setup.globalId[static_cast<std::size_t>(i)] = static_cast<long>(me) * chainOwned + i;
    }
    const auto run = [](int from)
    {
        std::vector<fieldsync::LocalIndex> cells;
        for (int j = 0; j < chainWidth; ++j)
        {
            cells.push_back(from + j);
        }
        return cells;
    };
    for (const int side : { -1, 1 })
    {
        const int peer = me + side;
        if (peer < 0 || peer >= n)
        {
            continue;
        }
        setup.send.setRank(peer, run(side < 0 ? 0 : chainOwned - chainWidth));
        const int slot = chainOwned + (side < 0 ? 0 : chainWidth);
        setup.receive.setRank(peer, run(slot));
        for (int j = 0; j < chainWidth; ++j)
        {
            // the peer sends its last cells to me when it is before me, its first otherwise
            setup.globalId[static_cast<std::size_t>(slot + j)] =
                static_cast<long>(peer) * chainOwned + (side < 0 ? chainOwned - chainWidth : 0) + j;
        }
    }
    return setup;
}

/** @brief The statistics of three exchanges of @p field under @p key; counts wrong cells. */
template<typename V>
fieldsync::halo::ExchangeStats threeExchanges(
    Communicator& comm, const V& field, const Setup& setup, const std::string& key, int& wrong
)
{
    for (int step = 0; step < 3; ++step)
    {
        fillForward(field, setup);
        comm.startComm(field, key);
        comm.finaliseComm(field, key);
        wrong += wrongForward(field, setup);
    }
    return comm.stats(key);
}
} // namespace

TEST_CASE("A one-column LayoutLeft or LayoutStride field goes in place as a rank-1 field does")
{
    const mpi::MPIEnvironment env;
    const Setup setup = chainSetup();
    const auto cells = static_cast<std::size_t>(setup.nLocal);
    Communicator comm(
        env,
        setup.send,
        setup.receive,
        fieldsync::halo::CommitOptions { .backEnd = fieldsync::halo::BackEnd::PointToPoint }
    );
    comm.setOptions({ .staging = mpi::Staging::Auto, .timing = true });
    int wrong { 0 };
    // one LayoutRight column, in place before issue #37 as a rank-1 field: the reference path
    const auto rank1 = threeExchanges(comm, Right("one", cells, 1), setup, "right", wrong);
    const auto left = threeExchanges(comm, Left("left", cells, 1), setup, "left", wrong);
    const auto stride =
        threeExchanges(comm, strided(Form::AsLeft, cells, 1), setup, "stride", wrong);
    const auto padded =
        threeExchanges(comm, strided(Form::PaddedColumns, cells, 1), setup, "padded", wrong);
    const auto two = threeExchanges(comm, Left("two", cells, 2), setup, "two columns", wrong);
    comm.setOptions({ .inPlace = false, .timing = true });
    const auto off = threeExchanges(comm, Left("off", cells, 1), setup, "in place off", wrong);
    REQUIRE(wrong == 0);
    if (env.sizeRank() < 2)
    {
        return; // no neighbour: nothing goes in place or through a buffer
    }
    // in place: no pack and no unpack at all (the engine reads no clock for them)
    for (const auto* s : { &rank1, &left, &stride, &padded })
    {
        REQUIRE(s->messages > 0);
        REQUIRE(s->packSeconds == 0.0);
        REQUIRE(s->unpackSeconds == 0.0);
    }
    // two columns (a run of cells is two stretches) and in-place off: packed and unpacked
    for (const auto* s : { &two, &off })
    {
        REQUIRE(s->packSeconds > 0.0);
        REQUIRE(s->unpackSeconds > 0.0);
    }
}
