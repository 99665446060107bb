// SPDX-License-Identifier: MIT
// NeoN's mpi::Environment made in a program that never starts MPI: rank() and sizeRank() are
// -1 and isInitialized() is false (NeoN's answer); fieldsync's MPIEnvironment throws instead,
// and a buffer made with the environment without MPI is an Error, not a silent no-op.
#include "fieldsync/core/mpi/environment.hpp"
#include "fieldsync/core/mpi/fullDuplexCommBuffer.hpp"

#include <cstdio>
#include <vector>

int main()
{
    using namespace fieldsync::mpi;
    bool right { true };
    const Environment mpiEnviron;
    right = right && mpiEnviron.sizeRank() == -1 && mpiEnviron.rank() == -1;
    right = right && !mpiEnviron.isInitialized() && mpiEnviron.comm() == MPI_COMM_NULL;
    try
    {
        const MPIEnvironment seed;
        right = false;
    }
    catch (const fieldsync::Error&)
    {
    }
    try
    {
        FullDuplexCommBuffer buffer(mpiEnviron, std::vector<std::size_t> {}, {});
        buffer.initComm<int>("without MPI");
        buffer.startComm();
        right = false;
    }
    catch (const fieldsync::Error&)
    {
    }
    int initialised { 1 };
    MPI_Initialized(&initialised);
    right = right && initialised == 0;
    std::printf("environment without MPI: %s\n", right ? "right" : "WRONG");
    return right ? 0 : 1;
}
