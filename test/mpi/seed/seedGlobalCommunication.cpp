// SPDX-License-Identifier: MIT
// seeds/004 "Global Communication" example, as written apart from the namespace and include path.
#include "fieldsync/mpi/environment.hpp"
#include "fieldsync/mpi/operators.hpp"

// clang-format off
int main(int argc, char** argv)
{
    fieldsync::mpi::MPIInit mpi(argc, argv);
    fieldsync::mpi::MPIEnvironment mpiEnv;

    double value = 1.0;
    fieldsync::mpi::reduceAllScalar(&value, fieldsync::mpi::ReduceOp::SUM, mpiEnv.comm());

    if(mpiEnv.rank() == 0)
        std::cout<<"Value "<<value<<std::endl; // result is number of ranks.
}
// clang-format on
