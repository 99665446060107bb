// SPDX-License-Identifier: MIT
// The collectives on views of every memory space (fieldsync_test::MemorySpaces), filled by
// kernels in that space's execution space, each result checked against a closed form of the
// ranks and indices. Direct and with staging asked for; the forced-staging variant of the test
// stages every call.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/memorySpaces.hpp"

#include "fieldsync/compat.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/mpi/collectives.hpp"

#include <Kokkos_Core.hpp>

#include <mpi.h>

namespace fm = fieldsync::mpi;

namespace
{
constexpr int count { 5 }; /**< values per rank */

/** @brief What rank @p rank sends at index @p i: 1000 rank + i (exact in double). */
KOKKOS_INLINE_FUNCTION double rankValue(int rank, std::int64_t i)
{
    return 1000.0 * rank + static_cast<double>(i);
}

/** @brief Kernel functor: rankValue(rank, i). */
struct RankValue
{
    int rank { 0 }; /**< the sender */
    KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i, int /*c*/) const
    {
        return rankValue(rank, i);
    }
};

/** @brief Kernel functor: 7 k + 0.5 at global index k (what the root scatters). */
struct ScatterValue
{
    KOKKOS_INLINE_FUNCTION double operator()(std::int64_t k, int /*c*/) const
    {
        return 7.0 * static_cast<double>(k) + 0.5;
    }
};

template<typename Space>
using Values = Kokkos::View<double*, fieldsync_test::DeviceFor<Space>>;

/** @brief A view's values on the host (copied after every kernel on it has finished). */
template<typename View>
auto onHost(const View& view)
{
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
}

struct World
{
    int rank { 0 }; /**< this rank */
    int size { 1 }; /**< ranks in MPI_COMM_WORLD */
};

World world()
{
    World w;
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
    return w;
}
} // namespace

TEMPLATE_LIST_TEST_CASE(
    "collectives on views of each memory space match closed forms of rank and index",
    "[collectives][memory-spaces]",
    fieldsync_test::MemorySpaces
)
{
    using Space = TestType;
    using Exec = fieldsync_test::ExecutionSpaceFor<Space>;
    FIELDSYNC_TEST_SKIP_UNLESS_RUNS_HERE(Space);
    const World w = world();
    const auto staging = GENERATE(fm::Staging::Auto, fm::Staging::Always);
    CAPTURE(Space::name(), staging == fm::Staging::Always);
    const Exec exec;
    // the library fences exec before MPI reads what the kernels wrote (no fence here)
    const auto options = fm::withExecutionSpace(exec, staging);
    const double n = w.size;
    const double rankSum = n * (n - 1) / 2;

    Values<Space> send("send", count);
    fieldsync_test::fill(exec, send, RankValue { w.rank });

    SECTION("allReduce with Sum and Max")
    {
        Values<Space> sum("sum", count);
        Values<Space> max("max", count);
        fm::allReduce(send, sum, fm::ReduceOp::Sum, MPI_COMM_WORLD, options);
        fm::allReduce(send, max, fm::ReduceOp::Max, MPI_COMM_WORLD, options);
        const auto sumHost = onHost(sum);
        const auto maxHost = onHost(max);
        for (int i = 0; i < count; ++i)
        {
            CHECK(sumHost(i) == 1000.0 * rankSum + n * i);
            CHECK(maxHost(i) == rankValue(w.size - 1, i));
        }
    }

    SECTION("broadcast from the last rank")
    {
        fm::broadcast(send, w.size - 1, MPI_COMM_WORLD, options);
        const auto host = onHost(send);
        for (int i = 0; i < count; ++i)
        {
            CHECK(host(i) == rankValue(w.size - 1, i));
        }
    }

    SECTION("allGather")
    {
        Values<Space> all("all", static_cast<std::size_t>(count * w.size));
        fm::allGather(send, all, MPI_COMM_WORLD, options);
        const auto host = onHost(all);
        for (int r = 0; r < w.size; ++r)
        {
            for (int i = 0; i < count; ++i)
            {
                CHECK(host(r * count + i) == rankValue(r, i));
            }
        }
    }

    SECTION("gather to rank 0, scatter from the last rank")
    {
        Values<Space> all("all", static_cast<std::size_t>(count * w.size));
        fm::gather(send, all, 0, MPI_COMM_WORLD, options);
        if (w.rank == 0)
        {
            const auto host = onHost(all);
            for (int r = 0; r < w.size; ++r)
            {
                for (int i = 0; i < count; ++i)
                {
                    CHECK(host(r * count + i) == rankValue(r, i));
                }
            }
        }
        fieldsync_test::fill(exec, all, ScatterValue {}); // read on the root only
        Values<Space> mine("mine", count);
        fm::scatter(all, mine, w.size - 1, MPI_COMM_WORLD, options);
        const auto host = onHost(mine);
        for (int i = 0; i < count; ++i)
        {
            CHECK(host(i) == ScatterValue {}(w.rank * count + i, 0));
        }
    }

    SECTION("non-blocking allReduce and allGather")
    {
        Values<Space> sum("sum", count);
        Values<Space> all("all", static_cast<std::size_t>(count * w.size));
        const std::size_t liveBefore = fieldsync::liveObjectCount();
        auto reduced = fm::iAllReduce(send, sum, fm::ReduceOp::Sum, MPI_COMM_WORLD, options);
        auto gathered = fm::iAllGather(send, all, MPI_COMM_WORLD, options);
        gathered.wait();
        reduced.wait();
        // completed requests are no live objects (the state kept for reuse included)
        CHECK(fieldsync::liveObjectCount() == liveBefore);
        const auto sumHost = onHost(sum);
        const auto allHost = onHost(all);
        for (int i = 0; i < count; ++i)
        {
            CHECK(sumHost(i) == 1000.0 * rankSum + n * i);
            CHECK(
                allHost(((w.rank + 1) % w.size) * count + i) == rankValue((w.rank + 1) % w.size, i)
            );
        }
    }

    SECTION("reduceAllScalar of a sum computed in the space")
    {
        double total = fieldsync_test::sumOf(exec, send);
        fm::reduceAllScalar(&total, fm::ReduceOp::Sum, MPI_COMM_WORLD);
        CHECK(total == 1000.0 * count * rankSum + n * count * (count - 1) / 2);
    }
}
