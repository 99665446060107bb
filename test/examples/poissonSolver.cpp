// SPDX-License-Identifier: MIT
// The implicit solve of fieldsync-poisson on 1..4 ranks: the solution of a manufactured discrete
// problem (b = A u* computed by a serial loop over the whole mesh here, independently of the
// solver's operator), pipelined CG against plain CG, and the residual history of a distributed
// solve against a serial solve computed in the test.
#include "fieldsync_test/catch.hpp"

#include "gridMesh.hpp"
#include "heatSolver.hpp"
#include "meshPartition.hpp"
#include "poissonSolver.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace fieldsync;
using partition::GlobalIndex;
using poisson::Method;
using poisson::PoissonSolver;

namespace
{
constexpr double dt { 2e-3 }; // a few hundred explicit steps on these meshes

/** @brief The whole mesh of @p source on this rank. */
heat::MeshPiece whole(const heat::MeshSource& source)
{
    std::vector<GlobalIndex> ids(static_cast<std::size_t>(source.nCells()));
    for (std::size_t c { 0 }; c < ids.size(); ++c)
    {
        ids[c] = static_cast<GlobalIndex>(c);
    }
    return source.piece(ids);
}

/** @brief The manufactured solution: a known function of the centroid. */
double exact(const heat::Point& c)
{
    return std::sin(3.0 * c[0]) + std::cos(2.0 * c[1]) + 0.5 * c[2] + 1.0;
}

/**
 * @brief b = A u by global id, written from the discrete problem's definition on the whole
 * mesh: (V/dt) u_c plus, per face, c_f (u_c - u_nb), with u_nb = 0 behind a boundary face.
 */
std::vector<double> operatorGlobal(const heat::MeshPiece& all, const std::vector<double>& u)
{
    std::vector<double> b(all.nCells());
    for (std::size_t c { 0 }; c < all.nCells(); ++c)
    {
        double flux { 0.0 };
        for (std::size_t f { all.faceOffsets()[c] }; f < all.faceOffsets()[c + 1]; ++f)
        {
            const GlobalIndex nb { all.faceNeighbours()[f] };
            const double other { nb >= 0 ? u[static_cast<std::size_t>(nb)] : 0.0 };
            flux += all.faceCoefficients()[f] * (u[c] - other);
        }
        b[c] = all.volume(c) / dt * u[c] + flux;
    }
    return b;
}

/** @brief The entries of @p byId (by global id) of the owned cells of @p layout, in its order. */
std::vector<double> ownedPart(const partition::HaloLayout& layout, const std::vector<double>& byId)
{
    std::vector<double> owned(layout.nOwned());
    for (std::size_t i { 0 }; i < owned.size(); ++i)
    {
        owned[i] = byId[static_cast<std::size_t>(layout.globalIds()[i])];
    }
    return owned;
}

/** @brief One rank's share of a distributed problem, and its solver. */
struct Distributed
{
    heat::PartitionedMesh mesh; /**< this rank's cells */
    halo::Communicator comm;    /**< their halo */
    PoissonSolver solver;       /**< the operator on them */

    Distributed(
        const mpi::MPIEnvironment& env,
        const heat::MeshSource& source,
        heat::PartitionerKind partitioner
    )
        : mesh(heat::partitionMesh(env, source, partitioner)),
          comm(env, mesh.layout.sendMap(), mesh.layout.receiveMap()),
          solver(mesh.piece, mesh.layout, dt)
    {
    }

    /** @brief Solves for the right-hand side @p bById (by global id) from x = 0. */
    std::pair<poisson::SolveStats, std::vector<double>> solve(
        const mpi::MPIEnvironment& env,
        const std::vector<double>& bById,
        Method method,
        double tolerance
    )
    {
        const PoissonSolver::View b { solver.vector(ownedPart(mesh.layout, bById)) };
        const PoissonSolver::View x("x", solver.nLocal());
        poisson::SolveOptions options;
        options.method = method;
        options.tolerance = tolerance;
        options.progressChunk = 16; // several chunks, with progress() and tests between them
        poisson::SolveStats stats { solver.solve(&comm, env, b, x, options) };
        return { std::move(stats), solver.owned(x) };
    }
};

/** @brief The meshes the tests run on: 2-D triangles, 3-D hexahedra and tetrahedra. */
std::vector<heat::GridMesh> meshes()
{
    std::vector<heat::GridMesh> all;
    all.push_back(heat::GridMesh::triangles(24, 17, 5));
    all.emplace_back(heat::CellShape::Hexahedron, 7, 6, 5, 3);
    all.emplace_back(heat::CellShape::Tetrahedron, 5, 4, 4, 3);
    return all;
}

/** @brief Largest |a - b| over the entries. */
double maxDifference(const std::vector<double>& a, const std::vector<double>& b)
{
    REQUIRE(a.size() == b.size());
    double largest { 0.0 };
    for (std::size_t i { 0 }; i < a.size(); ++i)
    {
        largest = std::max(largest, std::abs(a[i] - b[i]));
    }
    return largest;
}
} // namespace

TEST_CASE("PoissonSolver: CG and pipelined CG find the manufactured discrete solution")
{
    const mpi::MPIEnvironment env;
    for (const heat::GridMesh& source : meshes())
    {
        const heat::MeshPiece all { whole(source) };
        std::vector<double> uStar(all.nCells());
        for (std::size_t c { 0 }; c < uStar.size(); ++c)
        {
            uStar[c] = exact(all.centroid(c));
        }
        const std::vector<double> b { operatorGlobal(all, uStar) };
        for (const heat::PartitionerKind partitioner :
             { heat::PartitionerKind::Metis, heat::PartitionerKind::Slab })
        {
            Distributed problem(env, source, partitioner);
            const std::vector<double> expected { ownedPart(problem.mesh.layout, uStar) };
            for (const Method method : { Method::Cg, Method::PipelinedCg })
            {
                INFO(source.describe() << ", method " << static_cast<int>(method));
                const auto [stats, u] { problem.solve(env, b, method, 1e-11) };
                REQUIRE(stats.converged);
                REQUIRE(stats.iterations > 3);
                REQUIRE(stats.residual() <= 1e-11);
                // the error is at most the condition number times the relative residual
                double error { maxDifference(u, expected) };
                mpi::allReduce(error, mpi::ReduceOp::Max, env.comm());
                REQUIRE(error <= 1e-8);
            }
        }
    }
}

TEST_CASE("PoissonSolver: pipelined CG agrees with CG")
{
    const mpi::MPIEnvironment env;
    for (const heat::GridMesh& source : meshes())
    {
        const heat::MeshPiece all { whole(source) };
        std::vector<double> uOld(all.nCells());
        for (std::size_t c { 0 }; c < uOld.size(); ++c)
        {
            uOld[c] = all.volume(c) / dt * std::cos(4.0 * all.centroid(c)[0]);
        }
        Distributed problem(env, source, heat::PartitionerKind::Metis);
        const double tolerance { 1e-9 };
        const auto [cg, xCg] { problem.solve(env, uOld, Method::Cg, tolerance) };
        const auto [pipelined, xPipelined] {
            problem.solve(env, uOld, Method::PipelinedCg, tolerance)
        };
        INFO(source.describe());
        REQUIRE(cg.converged);
        REQUIRE(pipelined.converged);
        REQUIRE(std::abs(cg.iterations - pipelined.iterations) <= 1);
        // one reduction per product (the last is spent), each hidden by a share in [0, 1]
        REQUIRE(pipelined.reductions == pipelined.iterations + 1);
        REQUIRE(pipelined.reductionHidden >= 0.0);
        REQUIRE(pipelined.reductionHidden <= pipelined.reductions);
        REQUIRE(pipelined.interiorSeconds > 0.0);
        REQUIRE(cg.reductions == 2 * cg.iterations);
        REQUIRE(cg.interiorSeconds == 0.0);
        double scale { 0.0 };
        for (const double v : xCg)
        {
            scale = std::max(scale, std::abs(v));
        }
        double difference { maxDifference(xCg, xPipelined) };
        mpi::allReduce(scale, mpi::ReduceOp::Max, env.comm());
        mpi::allReduce(difference, mpi::ReduceOp::Max, env.comm());
        REQUIRE(scale > 0.0);
        REQUIRE(difference <= 1e3 * tolerance * scale);
    }
}

TEST_CASE("PoissonSolver: the residual history does not depend on the number of ranks")
{
    const mpi::MPIEnvironment env;
    const mpi::MPIEnvironment self { MPI_COMM_SELF };
    for (const heat::GridMesh& source : meshes())
    {
        const heat::MeshPiece all { whole(source) };
        std::vector<double> b(all.nCells());
        for (std::size_t c { 0 }; c < b.size(); ++c)
        {
            b[c] = all.volume(c) / dt * (1.0 + all.centroid(c)[0] * all.centroid(c)[1]);
        }
        Distributed problem(env, source, heat::PartitionerKind::Metis);
        // the serial run: every cell owned, no halo
        PoissonSolver serial(all, heat::HeatSolver::serialLayout(all), dt);
        for (const Method method : { Method::Cg, Method::PipelinedCg })
        {
            INFO(source.describe() << ", method " << static_cast<int>(method));
            const auto [stats, x] { problem.solve(env, b, method, 1e-10) };
            poisson::SolveOptions options;
            options.method = method;
            options.tolerance = 1e-10;
            const PoissonSolver::View xSerial("xSerial", serial.nLocal());
            const poisson::SolveStats reference {
                serial.solve(nullptr, self, serial.vector(b), xSerial, options)
            };
            REQUIRE(reference.converged);
            REQUIRE(stats.iterations == reference.iterations);
            REQUIRE(stats.history.size() == reference.history.size());
            // CG: each entry to 1e-10 of itself. Pipelined CG's recurrences carry rounding of
            // the order of the machine epsilon times ||b|| (Cools et al. 2018), which is large
            // relative to the last residuals: each entry to 1e-10 of itself or 1e-12 of ||b||.
            const double floor { method == Method::Cg ? 0.0 : 1e-12 };
            for (std::size_t k { 0 }; k < stats.history.size(); ++k)
            {
                INFO(
                    "iteration " << k << ": " << stats.history[k] << " here, "
                                 << reference.history[k] << " serial"
                );
                REQUIRE(
                    std::abs(stats.history[k] - reference.history[k]) <=
                    std::max(1e-10 * reference.history[k], floor)
                );
            }
        }
    }
}
