// SPDX-License-Identifier: MIT
// README.md's first program, compiled and run as it is printed there (tools/docs/checkSnippets.py
// holds the README's block equal to the region below): rank 0 prints the number of ranks.
// [readme-main]
#include <fieldsync/fieldsync.hpp>
#include <iostream>

int main(int argc, char** argv)
{
    fieldsync::mpi::MPIInit mpi(argc, argv); // MPI (and Kokkos, when fieldsync starts it)
    fieldsync::mpi::MPIEnvironment mpiEnv;   // MPI_COMM_WORLD, rank(), sizeRank()

    double value = 1.0;
    fieldsync::mpi::allReduce(value, fieldsync::mpi::ReduceOp::SUM, mpiEnv.comm());
    if (mpiEnv.rank() == 0)
        std::cout << "Value " << value << std::endl; // the number of ranks
}
// [readme-main]
