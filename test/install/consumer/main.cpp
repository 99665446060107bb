// SPDX-License-Identifier: MIT
// Uses the installed fieldsync through its umbrella header only.
#include <fieldsync/fieldsync.hpp>

#include <iostream>

int main(int argc, char** argv)
{
    fieldsync::mpi::MPIInit init(argc, argv);
    fieldsync::mpi::MPIEnvironment env;
    double value { 1.0 };
    fieldsync::mpi::reduceAllScalar(&value, fieldsync::mpi::ReduceOp::SUM, env.comm());
    if (env.rank() == 0)
    {
        std::cout << "consumer: sum of ranks 1 over " << env.sizeRank() << " ranks = " << value
                  << std::endl;
    }
    return 0;
}
