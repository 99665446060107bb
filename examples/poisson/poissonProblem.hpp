// SPDX-License-Identifier: MIT
#pragma once

#include "meshPartition.hpp"
#include "meshSource.hpp"
#include "poissonSolver.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

namespace fieldsync::poisson
{

/**
 * @brief One rank's share of fieldsync-poisson's problem, as the program and the benchmark set
 * it up: the partitioned mesh, its halo, the operator for dt = @p dtFactor times the cells' mean
 * explicit stable step (V / sum of the face coefficients) and the right-hand side (V/dt) u_old
 * of initialField().
 */
struct PoissonProblem
{
    /** @brief Collective: partitions @p source with @p partitioner and builds the rest. */
    PoissonProblem(
        const mpi::MPIEnvironment& env,
        const heat::MeshSource& source,
        heat::PartitionerKind partitioner,
        double dtFactor
    );

    heat::PartitionedMesh mesh; /**< this rank's cells */
    halo::Communicator comm;    /**< their halo */
    double dt;                  /**< the time step */
    PoissonSolver solver;       /**< the operator */
    PoissonSolver::View b;      /**< the right-hand side, nLocal() long */
};

} // namespace fieldsync::poisson
