// SPDX-License-Identifier: MIT
// The compatibility suite's main, written as a NeoN test main is: MPIInit first, then the
// program's own Kokkos::initialize, the tests, Kokkos::finalize, and MPI ending with MPIInit's
// scope. Kokkos 4 aborts if fieldsync started or finalised Kokkos a second time.
#include "fieldsync_test/catchSession.hpp"

#include "fieldsync/core/mpi/environment.hpp"

#include <Kokkos_Core.hpp>

#include <mpi.h>

int main(int argc, char* argv[])
{
    fieldsync::mpi::MPIInit mpi(argc, argv);
    Kokkos::initialize(argc, argv);
    int result { fieldsync::test::runCatchSession(argc, argv) };
    MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    Kokkos::finalize();
    return result != 0 ? 1 : 0;
}
