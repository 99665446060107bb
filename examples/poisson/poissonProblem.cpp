// SPDX-License-Identifier: MIT
#include "poissonProblem.hpp"

#include "fieldsync/mpi/reductionBatch.hpp"

namespace fieldsync::poisson
{

namespace
{
/**
 * @brief Collective: the mean over all cells of a cell's own explicit stable step,
 * V / sum of its face coefficients. Not the minimum: on the jittered meshes the smallest cell's
 * step shrinks as the mesh grows, and with it the implicit problem's difficulty.
 */
double explicitStep(const mpi::MPIEnvironment& env, const heat::PartitionedMesh& mesh)
{
    const heat::MeshPiece& piece { mesh.piece };
    double sum { 0.0 };
    double cells { static_cast<double>(piece.nCells()) };
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        double coefficients { 0.0 };
        for (std::size_t f { piece.faceOffsets()[i] }; f < piece.faceOffsets()[i + 1]; ++f)
        {
            coefficients += piece.faceCoefficients()[f];
        }
        sum += piece.volume(i) / coefficients;
    }
    mpi::ReductionBatch(env.comm())
        .add(sum, mpi::ReduceOp::Sum)
        .add(cells, mpi::ReduceOp::Sum)
        .run();
    return sum / cells;
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
