// SPDX-License-Identifier: MIT
// The main of every test executable: starts MPI and Kokkos through MPIInit, runs Catch2 on each
// rank, and fails on every rank when a test failed on any rank.
#include "fieldsync_test/catchSession.hpp"

#include "fieldsync/mpi/mpiInit.hpp"

#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv)
{
    fieldsync::mpi::MPIInit init(argc, argv);
    fieldsync::mpi::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    const int failed { fieldsync::test::runCatchSession(argc, argv) };
    int anyFailed { 0 };
    MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int rank { 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (anyFailed != 0 && failed == 0 && rank == 0)
    {
        std::fprintf(stderr, "fieldsync tests: a test failed on another rank\n");
    }
    return anyFailed != 0 ? 1 : 0;
}
