// SPDX-License-Identifier: MIT
// The names that moved into a layer's namespace, used under their old names (compat/fieldsync/
// deprecated.hpp through compat.hpp), and a deprecated pointer form of a collective: each is the
// new type or calls the new function. Compiled with -Wno-deprecated-declarations; every use here
// warns without it.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/compat.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reductionBatch.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace old = fieldsync; // the old spellings, all in namespace fieldsync (or fieldsync::mpi)
namespace fs = fieldsync;

static_assert(std::is_same_v<old::ExchangeStats, fs::halo::ExchangeStats>);
static_assert(std::is_same_v<old::ReverseOp, fs::halo::ReverseOp>);
static_assert(std::is_same_v<old::GlobalIndex, fs::partition::GlobalIndex>);
static_assert(std::is_same_v<old::CellGraph, fs::partition::CellGraph>);
static_assert(std::is_same_v<old::DistributedGraph, fs::partition::DistributedGraph>);
static_assert(std::is_same_v<old::HaloBuilder, fs::partition::HaloBuilder>);
static_assert(std::is_same_v<old::HaloLayout, fs::partition::HaloLayout>);
static_assert(std::is_same_v<old::OwnerDirectory, fs::partition::OwnerDirectory>);
static_assert(std::is_same_v<old::Partition, fs::partition::Partition>);
static_assert(std::is_same_v<old::MetisPartitioner, fs::partition::MetisPartitioner>);
static_assert(std::is_same_v<old::SparseMessage, fs::mpi::SparseMessage>);
static_assert(std::is_same_v<old::mpi::BufferState, fs::halo::detail::BufferState>);
static_assert(std::is_same_v<old::mpi::CommBufferCore, fs::halo::detail::CommBufferCore>);
// issue #31: the halo engine's vocabulary, internal now (fieldsync::halo::detail)
static_assert(std::is_same_v<old::halo::CommBufferCore, fs::halo::detail::CommBufferCore>);
static_assert(std::is_same_v<old::halo::Message, fs::halo::detail::Message>);
static_assert(std::is_same_v<old::halo::DuplexBuffer, fs::halo::detail::DuplexBuffer>);
static_assert(std::is_same_v<old::halo::FieldShape, fs::halo::detail::FieldShape>);
static_assert(std::is_same_v<old::halo::RunRange, fs::halo::detail::RunRange>);
static_assert(std::is_same_v<old::halo::FieldKeeper, fs::halo::detail::FieldKeeper>);
static_assert(std::is_same_v<old::halo::Fields, fs::halo::detail::Fields>);
static_assert(std::is_same_v<
              old::halo::ViewKeeper<Kokkos::View<double*>>,
              fs::halo::detail::ViewKeeper<Kokkos::View<double*>>>);
static_assert(std::is_same_v<
              old::halo::ViewFields<Kokkos::View<double*>>,
              fs::halo::detail::ViewFields<Kokkos::View<double*>>>);
static_assert(std::is_same_v<old::halo::IndexRuns, fs::halo::detail::IndexRuns>);
static_assert(std::is_same_v<old::halo::ThreadCells, fs::halo::detail::ThreadCells>);
static_assert(std::is_same_v<old::halo::ValueOrder, fs::halo::detail::ValueOrder>);
// the value order by hand: 3 components of a LayoutRight row are values 3i + c (cell stride 3)
static_assert(old::halo::valueOrder(3, 3, 1) == fs::halo::detail::ValueOrder::Rows);
static_assert(old::halo::valueOrder(3, 1, 8) == fs::halo::detail::ValueOrder::Columns);
// issue #31: CallOptions' helper types, internal now (truth: what CallOptions<> holds)
static_assert(std::is_same_v<
              fs::mpi::CallOptions<>,
              fs::mpi::CallOptions<old::mpi::ViewExecutionSpace>>);
static_assert(std::is_same_v<
              decltype(fs::mpi::CallOptions<> {}.dependsOn),
              old::mpi::NoDependencies>);
static_assert(std::is_same_v<
              decltype(fs::mpi::CallOptions<Kokkos::DefaultHostExecutionSpace> {}.dependsOn),
              old::mpi::DependenciesOf<Kokkos::DefaultHostExecutionSpace>>);
static_assert(std::is_same_v<
              old::mpi::DependenciesOf<Kokkos::DefaultHostExecutionSpace>,
              std::vector<Kokkos::DefaultHostExecutionSpace>>);
// issue #31: the core machinery, the mpi layer's traits, memory-space interface and set-up calls,
// and two halo types, internal now (truth: the detail types, and what the public API returns)
static_assert(std::is_same_v<old::CallerValue<int>, fs::detail::CallerValue<int>>);
static_assert(std::is_same_v<old::FaultSettings, fs::detail::FaultSettings>);
static_assert(std::is_same_v<const old::FaultSettings&, decltype(fs::faultSettings())>);
static_assert(std::is_same_v<old::LiveObject, fs::detail::LiveObject>);
static_assert(std::is_same_v<old::Setting, fs::detail::Setting>);
static_assert(std::is_same_v<std::span<const old::Setting>, decltype(fs::settingsTable())>);
static_assert(std::is_same_v<old::TelemetryClock, fs::detail::TelemetryClock>);
static_assert(std::is_same_v<old::mpi::MpiTypeInfo<double>, fs::mpi::detail::MpiTypeInfo<double>>);
static_assert(std::is_same_v<old::mpi::ScalarTraits<int>, fs::mpi::detail::ScalarTraits<int>>);
static_assert(std::is_same_v<old::mpi::TypeClass, fs::mpi::detail::TypeClass>);
static_assert(std::is_same_v<old::mpi::SpaceOps, fs::mpi::detail::SpaceOps>);
static_assert(std::is_same_v<old::mpi::StagingBytes, fs::mpi::detail::StagingBytes>);
static_assert(std::is_same_v<old::mpi::SetUpCall, fs::mpi::detail::SetUpCall>);
static_assert(std::is_same_v<old::halo::BufferState, fs::halo::detail::BufferState>);
static_assert(std::is_same_v<old::halo::BlockShape, fs::halo::detail::BlockShape>);
static_assert(std::is_same_v<
              const std::optional<old::halo::BlockShape>&,
              decltype(fs::halo::RankSimplexCommMap {}.blockShape())>);
// MPI_DOUBLE is not a constant in Open MPI: the traits' values are checked at run time below

// issue #37: the layout predicates valueOrderOf() replaced (truth: Kokkos's layouts)
static_assert(old::halo::cellsFastest<Kokkos::View<double**, Kokkos::LayoutLeft>>);
static_assert(!old::halo::cellsFastest<Kokkos::View<double**, Kokkos::LayoutRight>>);

TEST_CASE("The old names of moved functions call the new ones", "[compat][deprecated]")
{
    CHECK(old::toReverseOp(fs::mpi::ReduceOp::Max) == fs::halo::ReverseOp::Max);
    CHECK_THROWS_AS(old::toReverseOp(fs::mpi::ReduceOp::Prod), fs::Error);
    CHECK(old::halo::rowsContiguous(Kokkos::View<double**, Kokkos::LayoutRight>("r", 4, 3)));
    CHECK_FALSE(old::halo::rowsContiguous(Kokkos::View<double**, Kokkos::LayoutLeft>("l", 4, 3)));
    CHECK(
        old::halo::valueOrderOf(Kokkos::View<double**, Kokkos::LayoutLeft>("l", 4, 3)) ==
        fs::halo::detail::ValueOrder::Columns
    );

    const fs::mpi::MPIEnvironment env;
    const fs::mpi::MPIEnvironment own { env.duplicate() };
    // a ring: each rank sends its rank and the next rank's number to the next rank
    const int next = (env.rank() + 1) % env.sizeRank();
    const int previous = (env.rank() + env.sizeRank() - 1) % env.sizeRank();
    const std::vector<old::SparseMessage> out {
        { next, { std::int64_t { env.rank() }, std::int64_t { next } } }
    };
    const auto in = old::sparseExchange(own.comm(), 11, out, "deprecated test");
    REQUIRE(in.size() == 1);
    CHECK(in[0].rank == previous);
    CHECK(in[0].data == std::vector<std::int64_t> { previous, env.rank() });

    CHECK_NOTHROW(old::raiseIfAnyFailed(own.comm(), ""));
    CHECK_THROWS_AS(
        old::raiseIfAnyFailed(own.comm(), env.rank() == 0 ? "rank 0 fails" : ""), fs::Error
    );

    // the moved mpi traits and memory-space interface (truth: MPI's predefined types, Kokkos's
    // HostSpace)
    CHECK(old::mpi::MpiTypeInfo<double>::datatype() == MPI_DOUBLE);
    CHECK(old::mpi::MpiTypeInfo<std::array<float, 3>>::multiplicity() == 3);
    CHECK(old::mpi::ScalarTraits<int>::datatype() == MPI_INT);
    CHECK(old::mpi::MpiTypeInfo<bool>::typeClass() == old::mpi::TypeClass::Logical);
    CHECK(
        &old::mpi::spaceOps<Kokkos::HostSpace>() == &fs::mpi::detail::spaceOps<Kokkos::HostSpace>()
    );
    CHECK(std::string(old::mpi::spaceOps<Kokkos::HostSpace>().name()) == Kokkos::HostSpace::name());
    CHECK(&old::mpi::stagingSpaceOps() == &fs::mpi::detail::stagingSpaceOps());
    old::mpi::StagingBytes staging;
    CHECK(staging.reserve(64) != nullptr);
    CHECK(staging.capacity() >= 64);
    const old::halo::BufferState free { old::halo::BufferState::Free };
    CHECK(std::string(fs::halo::toString(free)) == "free");

    const old::CellGraph graph = old::CellGraph::global({ 0, 1, 2 }, { 1, 0 });
    CHECK(graph.nCells() == 2);
    old::ExchangeStats stats {};
    CHECK(stats.exchanges == 0);
}

TEST_CASE("A deprecated pointer form of a collective calls its span form", "[compat][deprecated]")
{
    // every form: test/compat/pointerCollectives.cpp; this one use is here so that the build
    // with -Werror=deprecated-declarations shows its message (test_compat_deprecated_warns)
    const fs::mpi::MPIEnvironment env;
    const double mine { env.rank() + 1.0 };
    std::vector<double> all(static_cast<std::size_t>(env.sizeRank()), -1.0);
    old::mpi::allGather(&mine, 1, all.data(), env.comm());
    for (std::size_t r = 0; r < all.size(); ++r)
    {
        CHECK(all[r] == static_cast<double>(r) + 1.0);
    }
}

TEST_CASE(
    "The deprecated knob setters of a Communicator set its ExchangeOptions", "[compat][deprecated]"
)
{
    // all to all: cell r goes to rank r, ghost n + r comes from rank r (truth: 100 * sender + r)
    const fs::mpi::MPIEnvironment env;
    const int me = env.rank();
    const int n = env.sizeRank();
    fs::halo::RankSimplexCommMap send(n);
    fs::halo::RankSimplexCommMap receive(n);
    for (int r = 0; r < n; ++r)
    {
        send.setRank(r, { r });
        receive.setRank(r, { n + r });
    }
    fs::halo::Communicator comm(env, send, receive);
    comm.setWaitPolicy({ 7.0, fs::mpi::TimeoutAction::Error });
    comm.setPersistent(true);
    comm.setStaging(fs::mpi::Staging::Always);
    comm.setInPlace(false);
    comm.setTiming(false);
    const fs::halo::ExchangeOptions& options = comm.options();
    REQUIRE(options.waitPolicy.has_value());
    CHECK(options.waitPolicy->timeoutSeconds == 7.0);
    CHECK(options.waitPolicy->action == fs::mpi::TimeoutAction::Error);
    CHECK(options.persistentFrom == 0);
    CHECK(options.staging == fs::mpi::Staging::Always);
    CHECK_FALSE(options.inPlace);
    CHECK_FALSE(options.timing);
    comm.setPersistent(false);
    CHECK(comm.options().persistentFrom == fs::halo::ExchangeOptions::neverPersistent);
    CHECK(comm.options().waitPolicy->timeoutSeconds == 7.0); // the other knobs stay

    std::vector<double> field(2 * static_cast<std::size_t>(n), -1.0);
    for (int r = 0; r < n; ++r)
    {
        field[static_cast<std::size_t>(r)] = 100.0 * me + r;
    }
    comm.startComm(field, "deprecated setters");
    comm.finaliseComm(field, "deprecated setters");
    for (int r = 0; r < n; ++r)
    {
        CHECK(field[static_cast<std::size_t>(n + r)] == 100.0 * r + me);
    }
}

TEST_CASE(
    "The deprecated inPlace spelling of the reductions calls their one-buffer form",
    "[compat][deprecated]"
)
{
    // truth: the sum over ranks r of (r + 1) * (k + 1) is (k + 1) * n * (n + 1) / 2
    const fs::mpi::MPIEnvironment env;
    const int n = env.sizeRank();
    const double total = n * (n + 1) / 2.0;
    std::vector<double> data(3);
    const auto fill = [&]
    {
        for (std::size_t k = 0; k < data.size(); ++k)
        {
            data[k] = (env.rank() + 1.0) * static_cast<double>(k + 1);
        }
    };
    fill();
    fs::mpi::allReduce(fs::mpi::inPlace, data, fs::mpi::ReduceOp::Sum, env.comm());
    for (std::size_t k = 0; k < data.size(); ++k)
    {
        CHECK(data[k] == static_cast<double>(k + 1) * total);
    }
    fill();
    fs::mpi::iAllReduce(fs::mpi::inPlace, data, fs::mpi::ReduceOp::Sum, env.comm()).wait();
    CHECK(data[2] == 3.0 * total);
    fill();
    fs::mpi::reduce(fs::mpi::inPlace, data, fs::mpi::ReduceOp::Sum, 0, env.comm());
    if (env.rank() == 0)
    {
        CHECK(data[1] == 2.0 * total);
    }
    fill();
    fs::mpi::iReduce(fs::mpi::inPlace, data, fs::mpi::ReduceOp::Sum, 0, env.comm()).wait();
    if (env.rank() == 0)
    {
        CHECK(data[0] == total);
    }
}

TEST_CASE(
    "The deprecated ReductionBatch(comm, where) builds a batch chosen by size",
    "[compat][deprecated]"
)
{
    // truth: the sum over ranks r of (r + 1) is n (n + 1) / 2
    const fs::mpi::MPIEnvironment env;
    const int n = env.sizeRank();
    fs::mpi::ReductionBatch batch(env.comm(), std::source_location::current());
    CHECK(batch.startAlgorithm() == fs::mpi::Algorithm::RecursiveDoubling);
    double value = env.rank() + 1.0;
    batch.add(value, fs::mpi::ReduceOp::Sum);
    batch.start();
    batch.wait();
    CHECK(value == n * (n + 1) / 2.0);
}
