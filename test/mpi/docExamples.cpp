// SPDX-License-Identifier: MIT
// The examples of doc/collectives.md, doc/algorithms.md and doc/topology.md, compiled and run;
// tools/docs/checkSnippets.py (test docs.snippets) holds each block equal to its region here.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"
#include "fieldsync/mpi/environment.hpp"
#include "fieldsync/mpi/graphTopology.hpp"
#include "fieldsync/mpi/reordering.hpp"
#include "fieldsync/mpi/operators.hpp"

#include <Kokkos_Core.hpp>

#include <numeric>
#include <span>
#include <vector>

namespace fm = fieldsync::mpi;

TEST_CASE("doc/collectives.md examples", "[collectives][doc]")
{
    fm::MPIEnvironment env;
    const MPI_Comm comm = env.comm();
    const int rank = env.rank();
    const int size = env.sizeRank();
    const auto P = static_cast<std::size_t>(size);

    // [allReduce]
    double residual = 0.5 * rank;
    fm::allReduce(residual, fm::ReduceOp::Max, comm); // scalar, in place
    Kokkos::View<double*> flux("flux", 8);
    Kokkos::deep_copy(flux, 1.0);
    fm::allReduce(flux, fm::ReduceOp::Sum, comm); // a whole view, in place
    // [allReduce]
    CHECK(residual == 0.5 * (size - 1));
    auto fluxHost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), flux);
    CHECK(fluxHost(7) == static_cast<double>(size));

    // [reduce]
    std::vector<int> cells { rank, 1 };
    std::vector<int> totals(2);
    fm::reduce(cells, totals, fm::ReduceOp::Sum, /*root*/ 0, comm);
    // [reduce]
    CHECK((rank != 0 || totals[1] == size));

    // [broadcast]
    std::vector<double> settings(3, rank == 0 ? 2.5 : 0.0);
    fm::broadcast(settings, /*root*/ 0, comm);
    // [broadcast]
    CHECK(settings[2] == 2.5);

    // [allGather]
    std::vector<int> counts(P);
    fm::allGather(std::vector<int> { rank + 1 }, counts, comm);
    // [allGather]
    CHECK(counts.back() == size);

    // [allGatherV]
    std::vector<double> mine(static_cast<std::size_t>(rank + 1), rank);
    std::vector<double> everyone(static_cast<std::size_t>(std::reduce(counts.begin(), counts.end()))
    );
    fm::allGatherV(mine, everyone, counts, comm);
    // [allGatherV]
    CHECK(everyone.back() == size - 1);

    // [gather]
    std::vector<int> atRoot(rank == 0 ? P : 0);
    fm::gather(std::vector<int> { rank }, atRoot, /*root*/ 0, comm);
    // [gather]
    CHECK((rank != 0 || atRoot.back() == size - 1));

    // [gatherV]
    std::vector<double> gathered(rank == 0 ? everyone.size() : 0);
    fm::gatherV(mine, gathered, counts, /*root*/ 0, comm); // counts are read on the root
    // [gatherV]
    CHECK((rank != 0 || gathered.back() == size - 1));

    // [scatter]
    std::vector<int> work(rank == 0 ? 2 * P : 0);
    std::iota(work.begin(), work.end(), 0);
    std::vector<int> myWork(2);
    fm::scatter(work, myWork, /*root*/ 0, comm);
    // [scatter]
    CHECK(myWork[1] == 2 * rank + 1);

    // [scatterV]
    std::vector<double> piece(static_cast<std::size_t>(rank + 1));
    fm::scatterV(gathered, counts, piece, /*root*/ 0, comm);
    // [scatterV]
    CHECK(piece.front() == rank);

    // [allToAll]
    std::vector<int> outgoing(P, rank);
    std::vector<int> incoming(P);
    fm::allToAll(outgoing, incoming, comm);
    // [allToAll]
    CHECK(incoming.back() == size - 1);

    // [allToAllV]
    std::vector<int> ones(P, 1);
    fm::allToAllV(outgoing, ones, incoming, ones, comm);
    // [allToAllV]
    CHECK(incoming.front() == 0);

    // [reduceScatter]
    std::vector<double> contributions(2 * P, 1.0);
    std::vector<double> myBlock(2);
    fm::reduceScatter(contributions, myBlock, fm::ReduceOp::Sum, comm);
    // [reduceScatter]
    CHECK(myBlock[0] == size);

    // [scan]
    int owned { 10 };
    int offset { 0 };
    fm::exScan(std::span<int>(&owned, 1), std::span<int>(&offset, 1), fm::ReduceOp::Sum, comm);
    offset = rank == 0 ? 0 : offset; // rank 0's exScan result is undefined in MPI
    int upTo { 0 };
    fm::scan(std::span<int>(&owned, 1), std::span<int>(&upTo, 1), fm::ReduceOp::Sum, comm);
    // [scan]
    CHECK(offset == 10 * rank);
    CHECK(upTo == 10 * (rank + 1));

    // [nonBlocking]
    Kokkos::View<double*> norms("norms", 4);
    auto request = fm::iAllReduce(norms, fm::ReduceOp::Sum, comm);
    // ... work that does not touch norms ...
    request.wait(); // results are in norms now
    std::vector<fm::Request> requests;
    requests.push_back(fm::iBroadcast(settings, 0, comm));
    requests.push_back(fm::iBarrier(comm));
    fm::Request::waitAll(requests);
    // [nonBlocking]

    {
        std::vector<double> sendValues(2, rank + 1.0);
        std::vector<double> recvValues(2 * P, -1.0);
        const double* send = sendValues.data();
        double* recv = recvValues.data();
        const int count = 2;
        const std::size_t ranks = P;
        // [pointers]
        fm::allReduce(send, recv, count, fm::ReduceOp::Sum, comm); // the specification's form
        fm::gather(std::span(send, count), std::span(recv, count * ranks), 0, comm);
        // [pointers]
        // rank 0 holds every rank's block (r + 1 twice)
        CHECK((rank != 0 || recvValues[2 * P - 1] == static_cast<double>(size)));
        CHECK((rank == 0 || recvValues[1] == size * (size + 1) / 2.0));
    }

    // [options]
    Kokkos::DefaultExecutionSpace exec;
    fm::allReduce(norms, fm::ReduceOp::Sum, comm, fm::withExecutionSpace(exec));
    fm::allReduce(norms, fm::ReduceOp::Sum, comm, { .staging = fm::Staging::Always });
    // [options]
    CHECK(norms.size() == 4);

    // [inPlace]
    std::vector<int> table(2 * P, -1);
    table[2 * static_cast<std::size_t>(rank)] = rank;
    table[2 * static_cast<std::size_t>(rank) + 1] = 2 * rank;
    fm::allGather(fm::inPlace, table, comm); // every rank's block is already in place
    // [inPlace]
    CHECK(table.back() == 2 * (size - 1));
}

TEST_CASE("doc/collectives.md: ReductionBatch", "[collectives][doc]")
{
    const fm::MPIEnvironment env;
    const int rank { env.rank() };
    const int size { env.sizeRank() };
    // truth per rank r: residual 1 + r, CFL 0.1 r, dt 1 / (1 + r), failures only on the last rank
    const auto localResidual = [rank]
    {
        return 1.0 + rank;
    };
    const auto localCfl = [rank]
    {
        return 0.1 * rank;
    };
    const auto localDt = [rank]
    {
        return 1.0F / static_cast<float>(1 + rank);
    };
    const auto localFailures = [rank, size]
    {
        return rank == size - 1 ? 1 : 0;
    };
    // a Communicator with no neighbours: the exchange the batch overlaps with
    fieldsync::halo::Communicator halo(
        env, fieldsync::halo::RankSimplexCommMap(size), fieldsync::halo::RankSimplexCommMap(size)
    );
    Kokkos::View<double*, Kokkos::HostSpace> field("field", 4);
    // [reductionBatch]
    double residual = localResidual();
    double cfl = localCfl();
    float dt = localDt();
    int failed = localFailures();
    fm::ReductionBatch batch(env.comm()); // built once, run every step
    batch.add(residual, fm::ReduceOp::Sum)
        .add(cfl, fm::ReduceOp::Max)
        .add(dt, fm::ReduceOp::Min)
        .add(failed, fm::ReduceOp::LOr);
    batch.run(); // one MPI_Allreduce; the four variables hold the results

    batch.start();         // non-blocking: the values are read now
    halo.startComm(field); // overlaps the halo exchange (a halo::Communicator)
    halo.finaliseComm(field);
    batch.wait(); // the results are written here
    // [reductionBatch]
    // the second run reduces the results of the first again: Max, Min and LOr are idempotent,
    // the sum is taken size times
    CHECK(residual == size * (size * (size + 1) / 2.0));
    CHECK(cfl == 0.1 * (size - 1));
    CHECK(dt == 1.0F / static_cast<float>(size));
    CHECK(failed == 1);
}

TEST_CASE("doc/algorithms.md: selecting an algorithm", "[collectives][doc]")
{
    const fm::MPIEnvironment env;
    const MPI_Comm comm { env.comm() };
    const int size { env.sizeRank() };
    std::vector<double> residuals(5, 1.0);
    Kokkos::View<double*> field("field", 6);
    Kokkos::deep_copy(field, env.rank() == 0 ? 3.0 : -1.0);
    // [selecting]
    namespace fm = fieldsync::mpi;
    fm::allReduce(residuals, fm::ReduceOp::Sum, comm, { .algorithm = fm::Algorithm::Ring });
    auto request = fm::iBroadcast(field, 0, comm, { .algorithm = fm::Algorithm::ScatterAllGather });
    request.wait();
    // [selecting]
    CHECK(residuals.back() == size);
    const auto fieldHost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
    CHECK(fieldHost(5) == 3.0);
}

TEST_CASE("doc/topology.md: topologies and reordering", "[topology][doc]")
{
    using namespace fieldsync;
    const mpi::MPIEnvironment env;
    const int n { env.sizeRank() };
    const int rank { env.rank() };
    {
        // [cartesian]
        mpi::CartesianTopology topo(
            env, { 0, 0, 0 }, { true, false, false }
        ); // MPI chooses 3-D dims
        mpi::CartesianTopology line(env, { env.sizeRank() }, { false }, true); // MPI may reorder
        // [cartesian]
        CHECK(topo.dims()[0] * topo.dims()[1] * topo.dims()[2] == n);
        CHECK(line.dims()[0] == n);
    }
    {
        // a ring: receive from the previous rank, send to the next, one cell each
        const std::vector<int> sources { (rank + n - 1) % n };
        const std::vector<int> sourceWeights { 1 };
        const std::vector<int> destinations { (rank + 1) % n };
        const std::vector<int> destinationWeights { 1 };
        // [graph]
        mpi::GraphTopology graph(env, sources, sourceWeights, destinations, destinationWeights);
        // [graph]
        // no reordering: the same numbering
        CHECK(std::vector<int>(graph.sources().begin(), graph.sources().end()) == sources);
        CHECK(
            std::vector<int>(graph.destinations().begin(), graph.destinations().end()) ==
            destinations
        );
    }
    // [reorder]
    mpi::MPIEnvironment reversed = mpi::reorder(env, [n](int r) { return n - 1 - r; });
    std::vector<int> rotated(static_cast<std::size_t>(n)); // entry r: the new rank of old rank r
    for (int r = 0; r < n; ++r)
    {
        rotated[static_cast<std::size_t>(r)] = (r + 1) % n;
    }
    mpi::MPIEnvironment shifted = mpi::reorder(env, rotated);
    // [reorder]
    CHECK(reversed.rank() == n - 1 - rank);
    CHECK(shifted.rank() == (rank + 1) % n);
}
