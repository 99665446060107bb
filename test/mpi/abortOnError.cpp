// SPDX-License-Identifier: MIT
// With FIELDSYNC_ON_ERROR=abort, a library Error ends the job through MPI_Abort after printing
// its message: run under mpiexec, this program must exit non-zero with the message.
#include "fieldsync/mpi/broadcast.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
    const fieldsync::mpi::MPIInit init(argc, argv);
    std::vector<double> data(2, 1.0);
    try
    {
        fieldsync::mpi::broadcast(data, /*root*/ 7, MPI_COMM_WORLD);
    }
    catch (...)
    {
        std::printf("the Error was thrown, not aborted on\n");
        return 0;
    }
    std::printf("no Error\n");
    return 0;
}
