// SPDX-License-Identifier: MIT
// A collective called before MPI is initialised throws a fieldsync::Error naming this line.
#include "fieldsync/mpi/operators.hpp"

#include <cstdio>

int main()
{
    double value { 1.0 };
    try
    {
        fieldsync::mpi::allReduce(value, fieldsync::mpi::ReduceOp::Sum, MPI_COMM_WORLD);
    }
    catch (const fieldsync::Error& error)
    {
        std::printf("%s\n", error.what());
        return 0;
    }
    std::printf("no error thrown\n");
    return 1;
}
