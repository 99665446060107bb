// SPDX-License-Identifier: MIT
// The Communicator on fields of every memory space (fieldsync_test::MemorySpaces): owned cells
// hold a known function of their global id, ghosts are poisoned first, and after finaliseComm
// every cell must hold the function of its global id. In-place and packed, in the default layout
// and LayoutLeft (one column and several); on a non-default execution space instance while a
// long kernel runs on another.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/memorySpaces.hpp"

#include "haloPatterns.hpp"

#include "fieldsync/halo/communicator.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

using fieldsync::halo::Communicator;
using fieldsync::test::Setup;
namespace mpi = fieldsync::mpi;

namespace
{
/** @brief What a ghost holds before the exchange: no cell's value. */
constexpr double poison { -12345.5 };

/** @brief The value of component @p c of the cell of global id @p g. */
KOKKOS_INLINE_FUNCTION double valueOf(long g, int c)
{
    return static_cast<double>(g) * 8.0 + c * 0.25;
}

template<typename Space>
using GlobalIds = Kokkos::View<long*, fieldsync_test::DeviceFor<Space>>;

/** @brief Kernel functor: valueOf(global id, c) in owned cells, poison in ghost cells. */
template<typename Space>
struct OwnedValues
{
    GlobalIds<Space> globalId; /**< global id of each local cell */
    std::int64_t nOwned { 0 }; /**< owned cells come first */
    KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i, int c) const
    {
        return i < nOwned ? valueOf(globalId(i), c) : poison;
    }
};

template<typename Space>
OwnedValues<Space> ownedValues(const Setup& setup)
{
    GlobalIds<Space> ids("globalId", setup.globalId.size());
    const Kokkos::View<const long*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        host(setup.globalId.data(), setup.globalId.size());
    Kokkos::deep_copy(ids, host);
    return { ids, setup.nOwned };
}

/** @brief Cells (owned and ghost) of @p field that differ from valueOf(global id). */
template<typename View>
int countWrong(const View& field, const Setup& setup)
{
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
    const int components = View::rank == 2 ? static_cast<int>(field.extent(1)) : 1;
    int wrong { 0 };
    for (int i = 0; i < setup.nLocal; ++i)
    {
        const long g = setup.globalId[static_cast<std::size_t>(i)];
        for (int c = 0; c < components; ++c)
        {
            double value { 0 };
            if constexpr (View::rank == 1)
            {
                value = host(i);
            }
            else
            {
                value = host(i, c);
            }
            wrong += value == valueOf(g, c) ? 0 : 1;
        }
    }
    return wrong;
}

/**
 * @brief Each rank ghosts all owned cells of the next rank (periodic), received into one run
 * after its owned cells, and sends all its owned cells in order: one ascending run each way, so
 * a rank-1 field goes to MPI in place (from and into the field) when in-place is on.
 */
Setup wholeBlockRing(int me, int n)
{
    const int next = (me + 1) % n;
    const int previous = (me + n - 1) % n;
    Setup setup;
    setup.nOwned = fieldsync::test::ownedCount(me);
    const int ghosts = fieldsync::test::ownedCount(next);
    setup.nLocal = setup.nOwned + ghosts;
    setup.send = fieldsync::halo::RankSimplexCommMap(n);
    setup.receive = fieldsync::halo::RankSimplexCommMap(n);
    std::vector<fieldsync::LocalIndex> owned(static_cast<std::size_t>(setup.nOwned));
    std::iota(owned.begin(), owned.end(), 0);
    setup.send.setRank(previous, owned);
    std::vector<fieldsync::LocalIndex> slots(static_cast<std::size_t>(ghosts));
    std::iota(slots.begin(), slots.end(), setup.nOwned);
    setup.receive.setRank(next, slots);
    for (int i = 0; i < setup.nOwned; ++i)
    {
        setup.globalId.push_back(fieldsync::test::globalOffset(me) + i);
    }
    for (int k = 0; k < ghosts; ++k)
    {
        setup.globalId.push_back(fieldsync::test::globalOffset(next) + k);
    }
    return setup;
}

/** @brief The pattern of @p name: contiguous runs ("ring") or random ghosts, scattered. */
Setup setupFor(const std::string& name)
{
    const mpi::MPIEnvironment env(MPI_COMM_WORLD);
    if (name == "ring")
    {
        return wholeBlockRing(env.rank(), env.sizeRank());
    }
    return fieldsync::test::makeSetup(
        env.rank(), env.sizeRank(), fieldsync::test::Shape::Random, 23, 12, true
    );
}

/** @brief A field of @p components components (a rank-1 view for 1) filled by OwnedValues. */
template<typename View, typename Exec>
View makeField(const Exec& exec, const Setup& setup, int components)
{
    View field;
    if constexpr (View::rank == 1)
    {
        field = View("field", static_cast<std::size_t>(setup.nLocal));
    }
    else
    {
        field = View(
            "field", static_cast<std::size_t>(setup.nLocal), static_cast<std::size_t>(components)
        );
    }
    using Space = typename View::memory_space;
    fieldsync_test::fill(exec, field, ownedValues<Space>(setup));
    return field;
}

/** @brief One exchange of a fresh field; the number of wrong cells after it. */
template<typename View>
int exchangeOnce(const Setup& setup, bool inPlace, int components)
{
    using Exec = typename View::execution_space;
    Communicator comm(mpi::MPIEnvironment(MPI_COMM_WORLD), setup.send, setup.receive);
    comm.setOptions({ .inPlace = inPlace });
    // filled on the default instance of the field's execution space, which the exchange uses
    // (and fences) when given no instance
    View field = makeField<View>(Exec(), setup, components);
    comm.startComm(field, "field");
    comm.finaliseComm(field, "field");
    return countWrong(field, setup);
}
} // namespace

TEMPLATE_LIST_TEST_CASE(
    "halo exchange in each memory space: every ghost holds the function of its global id",
    "[halo][memory-spaces]",
    fieldsync_test::MemorySpaces
)
{
    using Space = TestType;
    using Device = fieldsync_test::DeviceFor<Space>;
    FIELDSYNC_TEST_SKIP_UNLESS_RUNS_HERE(Space);
    const std::string pattern = GENERATE(as<std::string> {}, "ring", "random scattered");
    const bool inPlace = GENERATE(true, false);
    CAPTURE(Space::name(), pattern, inPlace);
    const Setup setup = setupFor(pattern);

    SECTION("one component: View<double*>")
    {
        CHECK(exchangeOnce<Kokkos::View<double*, Device>>(setup, inPlace, 1) == 0);
    }
    SECTION("three components: View<double**>")
    {
        CHECK(exchangeOnce<Kokkos::View<double**, Device>>(setup, inPlace, 3) == 0);
    }
    SECTION("LayoutLeft, one column (in place where rank 1 is) and four")
    {
        using Left = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;
        CHECK(exchangeOnce<Left>(setup, inPlace, 1) == 0);
        CHECK(exchangeOnce<Left>(setup, inPlace, 4) == 0);
    }
}

TEMPLATE_LIST_TEST_CASE(
    "halo exchange on one execution space instance while a long kernel runs on another",
    "[halo][memory-spaces][streams]",
    fieldsync_test::MemorySpaces
)
{
    using Space = TestType;
    using Exec = fieldsync_test::ExecutionSpaceFor<Space>;
    using Device = fieldsync_test::DeviceFor<Space>;
    FIELDSYNC_TEST_SKIP_UNLESS_RUNS_HERE(Space);
    const std::string pattern = GENERATE(as<std::string> {}, "ring", "random scattered");
    CAPTURE(Space::name(), pattern);
    const Setup setup = setupFor(pattern);
    const auto [exchange, other] = fieldsync_test::twoInstances<Exec>();
    // on the GPU a kernel of milliseconds (a chain of 200000 dependent steps per cell), checked
    // on every 97th cell; on the host a short one, checked on every cell
    constexpr bool host = std::is_same_v<Exec, Kokkos::DefaultHostExecutionSpace>;
    const int cells = host ? 1 << 10 : 1 << 14;
    const int steps = host ? 100 : 200000;
    const int checkStride = host ? 1 : 97;

    Communicator comm(mpi::MPIEnvironment(MPI_COMM_WORLD), setup.send, setup.receive);
    Kokkos::View<double*, Device> field = makeField<Kokkos::View<double*, Device>>(
        exchange, setup, 1
    ); // not fenced: the exchange must order itself after this kernel on its instance
    Kokkos::View<std::uint64_t*, Device> busy("busy", static_cast<std::size_t>(cells));
    fieldsync_test::busyKernel(other, busy, steps);
    comm.startComm(exchange, field, "two instances");
    comm.finaliseComm(exchange, field, "two instances");
    CHECK(countWrong(field, setup) == 0);

    other.fence();
    const auto busyHost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), busy);
    int wrong { 0 };
    for (int i = 0; i < cells; i += checkStride)
    {
        const std::uint64_t expected =
            fieldsync_test::lcgSteps(static_cast<std::uint64_t>(i), steps);
        wrong += busyHost(i) == expected ? 0 : 1;
    }
    CHECK(wrong == 0);
}
