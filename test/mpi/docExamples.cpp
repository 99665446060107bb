// SPDX-License-Identifier: MIT
// The examples of doc/collectives.md, compiled and run (keep the two in step).
#include "fieldsync_test/catch.hpp"

#include "fieldsync/mpi/environment.hpp"
#include "fieldsync/mpi/operators.hpp"

#include <Kokkos_Core.hpp>

#include <numeric>
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
