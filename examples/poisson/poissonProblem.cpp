// SPDX-License-Identifier: MIT
#include "poissonProblem.hpp"

#include "heatSolver.hpp"

#include "fieldsync/mpi/collectives.hpp"

namespace fieldsync::poisson
{

namespace
{
/** @brief Collective: the largest stable explicit step over all ranks' cells of @p mesh. */
double explicitStep(const mpi::MPIEnvironment& env, const heat::PartitionedMesh& mesh)
{
    double dt { heat::HeatSolver(mesh.piece, mesh.layout).localStableTimeStep() };
    mpi::allReduce(dt, mpi::ReduceOp::Min, env.comm());
    return dt;
}
} // namespace

PoissonProblem::PoissonProblem(
    const mpi::MPIEnvironment& env,
    const heat::MeshSource& source,
    heat::PartitionerKind partitioner,
    double dtFactor
)
    : mesh(heat::partitionMesh(env, source, partitioner)),
      comm(env, mesh.layout.sendMap(), mesh.layout.receiveMap()),
      dt(dtFactor * explicitStep(env, mesh)), solver(mesh.piece, mesh.layout, dt),
      b(solver.backwardEulerRhs(initialField(mesh.piece)))
{
}

} // namespace fieldsync::poisson
