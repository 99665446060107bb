// SPDX-License-Identifier: MIT
// seeds/004 "MPI Wrapping" example, as written apart from the namespace and include path.
#include "fieldsync/mpi/environment.hpp"

int main(int argc, char** argv)
{
    fieldsync::mpi::MPIInit mpi(argc, argv);

    // main solver

    // MPI_finalize is called in the destructor
}
