// SPDX-License-Identifier: MIT
// Must NOT compile: a struct that is neither an MPI scalar nor a registered aggregate.
#include "fieldsync/mpi/operators.hpp"

#include <vector>

struct NotRegistered
{
    int id;
    double weight;
};

void reduceUnsupported(std::vector<NotRegistered>& values)
{
    fieldsync::mpi::allReduce(values, fieldsync::mpi::ReduceOp::Sum, MPI_COMM_WORLD);
}
