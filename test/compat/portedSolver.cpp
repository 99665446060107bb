// SPDX-License-Identifier: MIT
// The "after" file of doc/porting.md: a NeoN-style explicit solver ported to fieldsync by
// renaming NeoN to fieldsync in the namespace and the include paths, and NeoN's Vector to a
// Kokkos::View. Heat diffusion on a periodic chain of cells split over the ranks: each rank owns
// a block and has one ghost cell on each side, filled through a Communicator built from NeoN's
// maps; the largest change per step is all-reduced. At the end every rank runs the same steps
// on the whole chain alone and compares its block, value by value (the same arithmetic in the
// same order, so the results must be identical).
#include "fieldsync/core/mpi/environment.hpp"
#include "fieldsync/core/mpi/operators.hpp"
#include "fieldsync/mesh/unstructured/communicator.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace fieldsync;

namespace
{
constexpr int cellsPerRank { 5 };
constexpr int steps { 40 };
constexpr double alpha { 0.25 };

/** The initial temperature of global cell @p cell. */
double initial(int cell)
{
    return std::sin(0.3 * cell) + 0.1 * (cell % 7);
}

/** One explicit step of cell value @p centre between @p left and @p right. */
double update(double left, double centre, double right)
{
    return centre + alpha * (left - 2.0 * centre + right);
}

/** The chain of @p total cells, @p steps steps on one rank: the truth to compare with. */
std::vector<double> serialRun(int total)
{
    std::vector<double> t(static_cast<std::size_t>(total));
    for (int c = 0; c < total; ++c)
    {
        t[static_cast<std::size_t>(c)] = initial(c);
    }
    std::vector<double> next(t.size());
    for (int s = 0; s < steps; ++s)
    {
        for (int c = 0; c < total; ++c)
        {
            const auto at = [&](int i)
            {
                return t[static_cast<std::size_t>((i + total) % total)];
            };
            next[static_cast<std::size_t>(c)] = update(at(c - 1), at(c), at(c + 1));
        }
        t.swap(next);
    }
    return t;
}
} // namespace

int main(int argc, char* argv[])
{
    mpi::MPIInit mpi(argc, argv);
    Kokkos::initialize(argc, argv);
    bool right { true };
    {
        mpi::MPIEnvironment mpiEnviron;
        const int nRanks { mpiEnviron.sizeRank() };
        const int me { mpiEnviron.rank() };
        const int left { (me + nRanks - 1) % nRanks };
        const int right_ { (me + 1) % nRanks };

        // local cells: 0 = ghost of the left neighbour, 1..cellsPerRank owned, then the ghost of
        // the right neighbour; NeoN's plain maps, one list per rank of the communicator
        const label lastOwned { cellsPerRank };
        const label rightGhost { cellsPerRank + 1 };
        CommMap sendMap(static_cast<std::size_t>(nRanks));
        CommMap receiveMap(static_cast<std::size_t>(nRanks));
        // one order on both sides, so that on one or two ranks (the left and the right neighbour
        // are one rank) each cell lands in its ghost: the rightward value first
        sendMap[static_cast<std::size_t>(right_)].push_back(NodeCommMap { .local_idx = lastOwned });
        sendMap[static_cast<std::size_t>(left)].push_back(NodeCommMap { .local_idx = 1 });
        receiveMap[static_cast<std::size_t>(left)].push_back(NodeCommMap { .local_idx = 0 });
        receiveMap[static_cast<std::size_t>(right_)].push_back(NodeCommMap { .local_idx =
                                                                                 rightGhost });
        Communicator comm;
        comm = Communicator(mpiEnviron, sendMap, receiveMap);

        Kokkos::View<double*, Kokkos::HostSpace> T("T", cellsPerRank + 2);
        Kokkos::View<double*, Kokkos::HostSpace> next("next", cellsPerRank + 2);
        for (int c = 1; c <= cellsPerRank; ++c)
        {
            T(c) = initial(me * cellsPerRank + c - 1);
        }
        double change { 0.0 };
        for (int s = 0; s < steps; ++s)
        {
            comm.startComm(T, "T");
            comm.finaliseComm(T, "T");
            double largest { 0.0 };
            for (int c = 1; c <= cellsPerRank; ++c)
            {
                next(c) = update(T(c - 1), T(c), T(c + 1));
                largest = std::max(largest, std::abs(next(c) - T(c)));
            }
            mpi::allReduce(largest, mpi::ReduceOp::Max, mpiEnviron.comm());
            change = largest;
            std::swap(T, next);
        }

        const std::vector<double> truth = serialRun(nRanks * cellsPerRank);
        for (int c = 1; c <= cellsPerRank; ++c)
        {
            right = right && T(c) == truth[static_cast<std::size_t>(me * cellsPerRank + c - 1)];
        }
        right = right && change > 0.0;
    }
    Kokkos::finalize();
    std::printf("ported solver: %s\n", right ? "right" : "WRONG");
    return right ? 0 : 1;
}
