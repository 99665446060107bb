// SPDX-License-Identifier: MIT
// The umbrella header alone: a file that includes only fieldsync/fieldsync.hpp compiles and uses
// one name of each layer (core, mpi, halo, partition, compat), each against a value computed
// here.
#include "fieldsync/fieldsync.hpp"

#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char** argv)
{
    const fieldsync::mpi::MPIInit init(argc, argv); // mpi
    const fieldsync::mpi::MPIEnvironment env;
    bool right { true };

    // mpi: the sum of 1..n
    int value { env.rank() + 1 };
    fieldsync::mpi::reduceAllScalar(&value, fieldsync::mpi::ReduceOp::Sum, env.comm()); // compat
    right = right && value == env.sizeRank() * (env.sizeRank() + 1) / 2;

    // core: a call site as a key, and the Error type
    const fieldsync::CommKey key { "umbrella" };
    right = right && key.name() == "umbrella";
    try
    {
        // halo: Prod is no reverse op
        static_cast<void>(fieldsync::halo::toReverseOp(fieldsync::mpi::ReduceOp::Prod));
        right = false;
    }
    catch (const fieldsync::Error&)
    {
    }
    right = right && fieldsync::halo::toReverseOp(fieldsync::mpi::ReduceOp::Sum) ==
                         fieldsync::halo::ReverseOp::Sum;

    // halo: a map with one neighbour (the next rank) of two cells
    const std::vector<int> neighbours { (env.rank() + 1) % env.sizeRank() };
    const fieldsync::halo::RankSimplexCommMap map(env.sizeRank(), neighbours, { 0, 2 }, { 4, 5 });
    right = right && map.totalSize() == 2 && map.neighbourCount() == 1;

    // partition: a path graph 0 - 1 - 2 of the whole mesh
    const auto graph = fieldsync::partition::CellGraph::global({ 0, 1, 3, 4 }, { 1, 0, 2, 1 });
    right = right && graph.nCells() == 3 && graph.neighbours(1).size() == 2;

    std::printf("umbrella header: %s\n", right ? "right" : "WRONG");
    return right ? 0 : 1;
}
