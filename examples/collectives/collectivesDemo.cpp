// SPDX-License-Identifier: MIT
// Runs every collective once on Kokkos views and prints one line per collective on rank 0:
//   mpiexec -n 4 fieldsync-collectives-demo
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/mpi/collectives.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
std::string list(const std::vector<double>& values)
{
    std::string text { "[" };
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        if (i > 0)
        {
            text += ' ';
        }
        text += std::to_string(static_cast<long long>(values[i]));
    }
    text += ']';
    return text;
}

/** The first @p n values of a (possibly device) view, copied to the host. */
template<typename View>
std::vector<double> first(const View& view, std::size_t n)
{
    auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    return std::vector<double>(mirror.data(), mirror.data() + n);
}

/** A view of n values rank * 10 + i. */
Kokkos::View<double*> ramp(std::size_t n, int rank)
{
    Kokkos::View<double*> view("ramp", n);
    Kokkos::parallel_for(
        "fieldsync::demo::ramp",
        Kokkos::RangePolicy<>(0, n),
        KOKKOS_LAMBDA(const std::size_t i) { view(i) = rank * 10.0 + static_cast<double>(i); }
    );
    return view;
}
} // namespace

int main(int argc, char** argv)
{
    fm::MPIInit init(argc, argv);
    fm::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    {
        fm::MPIEnvironment env;
        const MPI_Comm comm = env.comm();
        const int rank = env.rank();
        const int size = env.sizeRank();
        const auto P = static_cast<std::size_t>(size);
        auto say = [&](const char* name, const std::string& result)
        {
            if (rank == 0)
            {
                std::printf("%-14s %s\n", name, result.c_str());
            }
        };
        std::vector<int> counts(P);
        std::iota(counts.begin(), counts.end(), 1); // rank r holds r + 1 values
        const std::size_t total = P * (P + 1) / 2;

        Kokkos::View<double*> out("out", 2 * total + 2 * P);
        auto sub = [&](std::size_t n)
        {
            return Kokkos::subview(out, std::make_pair(std::size_t { 0 }, n));
        };

        fm::allReduce(ramp(2, rank), sub(2), fm::ReduceOp::Sum, comm);
        say("allReduce", list(first(out, 2)));
        fm::reduce(ramp(2, rank), sub(2), fm::ReduceOp::Max, 0, comm);
        say("reduce(max)", list(first(out, 2)));
        auto b = ramp(2, rank);
        fm::broadcast(b, size - 1, comm);
        say("broadcast", list(first(b, 2)));
        fm::allGather(ramp(1, rank), sub(P), comm);
        say("allGather", list(first(out, P)));
        fm::allGatherV(ramp(static_cast<std::size_t>(rank + 1), rank), sub(total), counts, comm);
        say("allGatherV", list(first(out, total)));
        fm::gather(ramp(1, rank), sub(P), 0, comm);
        say("gather", list(first(out, P)));
        fm::gatherV(ramp(static_cast<std::size_t>(rank + 1), rank), sub(total), counts, 0, comm);
        say("gatherV", list(first(out, total)));
        Kokkos::View<double*> piece("piece", 2);
        fm::scatter(ramp(2 * P, 0), piece, 0, comm);
        say("scatter", "rank 0 got " + list(first(piece, 2)));
        Kokkos::View<double*> mine("mine", static_cast<std::size_t>(rank + 1));
        fm::scatterV(ramp(total, 0), counts, mine, 0, comm);
        say("scatterV", "rank 0 got " + list(first(mine, 1)));
        fm::allToAll(ramp(P, rank), sub(P), comm);
        say("allToAll", "rank 0 got " + list(first(out, P)));
        std::vector<int> ones(P, 1);
        fm::allToAllV(ramp(P, rank), ones, sub(P), ones, comm);
        say("allToAllV", "rank 0 got " + list(first(out, P)));
        fm::reduceScatter(ramp(2 * P, rank), piece, fm::ReduceOp::Sum, comm);
        say("reduceScatter", "rank 0 got " + list(first(piece, 2)));
        fm::scan(ramp(1, rank), sub(1), fm::ReduceOp::Sum, comm);
        say("scan", "rank 0 got " + list(first(out, 1)));
        fm::exScan(ramp(1, rank), sub(1), fm::ReduceOp::Sum, comm);
        say("exScan", "done (rank 0's result is undefined in MPI)");
        auto request = fm::iAllReduce(ramp(1, rank), sub(1), fm::ReduceOp::Sum, comm);
        request.wait();
        say("iAllReduce", list(first(out, 1)));
        fm::barrier(comm);
        say("barrier", "all " + std::to_string(size) + " ranks arrived");
    }
    return 0;
}
