// SPDX-License-Identifier: MIT
// Must NOT compile: a dependency without an instance named to run the call (CallOptions<> holds
// no dependencies: the call would have no instance of that type to order after it).
#include "fieldsync/mpi/collectives.hpp"

#include <Kokkos_Core.hpp>

#include <vector>

void dependencyWithoutInstance(std::vector<double>& values)
{
    const Kokkos::DefaultExecutionSpace writer;
    fieldsync::mpi::allReduce(
        values,
        fieldsync::mpi::ReduceOp::Sum,
        MPI_COMM_WORLD,
        fieldsync::mpi::CallOptions<> { .dependsOn = { writer } }
    );
}
