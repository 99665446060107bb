// SPDX-License-Identifier: MIT
// fieldsync-poisson: one implicit (backward-Euler) diffusion step on fieldsync-heat's meshes and
// partitioners, solved matrix-free with Jacobi-preconditioned CG and pipelined CG; prints the
// iterations, the residual, the time per iteration and how much of the reductions and
// exchanges the solver hid behind its work.
//
//   mpiexec -n 4 fieldsync-poisson [options]      (fieldsync-poisson --help lists them)
#include "heatSolver.hpp"
#include "meshOptions.hpp"
#include "meshPartition.hpp"
#include "poissonProblem.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>
#include <string>
#include <vector>

using namespace fieldsync;

namespace
{

/** @brief The command line; what CLI11 parses into. */
struct Arguments
{
    heat::MeshOptions mesh;                /**< the mesh and the partitioner */
    std::string solver { "both" };         /**< cg, pipecg or both */
    std::string batchAlgorithm { "auto" }; /**< native, doubling or auto */
    double dtFactor { 100.0 };             /**< dt in mean explicit stable steps */
    bool inPlace { true };                 /**< Communicator receives contiguous ghosts in place */
    poisson::SolveOptions options;         /**< the solver's settings */
};

/** @brief The options of fieldsync-poisson, declared once for parsing and for --help. */
void declareOptions(CLI::App& app, Arguments& a)
{
    a.mesh.declare(app);
    app.add_option("--solver", a.solver, "cg, pipecg (pipelined CG) or both, one after the other")
        ->check(CLI::IsMember({ "cg", "pipecg", "both" }))
        ->capture_default_str();
    app.add_option("--tolerance", a.options.tolerance, "stop when ||r|| <= tolerance * ||b||")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--max-iterations", a.options.maxIterations, "give up after so many")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option(
           "--dt-factor",
           a.dtFactor,
           "the backward-Euler time step in mean explicit stable steps (larger: harder to solve)"
    )
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option(
           "--progress-chunk",
           a.options.progressChunk,
           "interior cells per chunk, with Communicator::progress() (and the pipelined "
           "reduction's test) between chunks (0: one product)"
    )
        ->capture_default_str();
    app.add_option(
           "--batch-algorithm",
           a.batchAlgorithm,
           "pipelined CG's started reduction: native (MPI_Iallreduce), doubling (fieldsync's "
           "recursive doubling, moved on by each test) or auto (the ReductionBatch's choice by "
           "size: doubling for its 24 bytes)"
    )
        ->check(CLI::IsMember({ "native", "doubling", "auto" }))
        ->capture_default_str();
    app.add_flag_function(
        "--no-inplace",
        [&a](std::int64_t) { a.inPlace = false; },
        "packed halo receives instead of receiving straight into the field"
    );
    app.footer(
        "Kokkos options (--kokkos-...) are passed to Kokkos. Run under mpiexec, for example\n"
        "  mpiexec -n 4 fieldsync-poisson --shape hex --solver pipecg"
    );
}

/**
 * @brief Parses the command line before MPI and Kokkos start (so --help prints only this
 * program's options). Returns the exit code when the program should stop, or -1 to go on.
 */
int parse(int argc, char** argv, Arguments& a)
{
    CLI::App app { "fieldsync-poisson: an implicit finite-volume diffusion step solved "
                   "matrix-free with CG and pipelined CG, halo and reductions by fieldsync" };
    declareOptions(app, a);
    const int stop { heat::parseCommandLine(app, argc, argv) };
    if (stop < 0)
    {
        a.mesh.complete("fieldsync-poisson");
        if (a.batchAlgorithm != "auto")
        {
            a.options.batchAlgorithm = a.batchAlgorithm == "native"
                                           ? mpi::Algorithm::Native
                                           : mpi::Algorithm::RecursiveDoubling;
        }
    }
    return stop;
}

/** @brief Collective: the largest and the sum over the ranks of @p value. */
std::pair<double, double> maxAndSum(const mpi::MPIEnvironment& env, double value)
{
    double largest { value };
    double sum { value };
    mpi::ReductionBatch(env.comm())
        .add(largest, mpi::ReduceOp::Max)
        .add(sum, mpi::ReduceOp::Sum)
        .run();
    return { largest, sum };
}

/** @brief Of @p total seconds of waiting for @p count operations of @p alone each: hidden. */
double hiddenShare(double total, int count, double alone)
{
    const double exposed { count * alone };
    return exposed > 0.0 ? std::clamp(1.0 - total / exposed, 0.0, 1.0) : 0.0;
}

/** @brief Collective: prints one solve's summary (rank 0). */
void summary(const mpi::MPIEnvironment& env, const char* name, const poisson::SolveStats& s)
{
    const int iterations { std::max(1, s.iterations) };
    const double ranks { static_cast<double>(env.sizeRank()) };
    const auto [perIteration, sumPerIteration] { maxAndSum(env, s.seconds / iterations) };
    const double reductionWait { maxAndSum(env, s.reductionWait).second / ranks };
    const double reductionAlone { maxAndSum(env, s.reductionAlone).second / ranks };
    const double reductionHidden {
        maxAndSum(env, s.reductions > 0 ? s.reductionHidden / s.reductions : 0.0).second / ranks
    };
    const double interior { maxAndSum(env, s.interiorSeconds / iterations).second / ranks };
    const double exchangeWait { maxAndSum(env, s.exchangeWait).second / ranks };
    const double exchangeAlone { maxAndSum(env, s.exchangeAlone).second / ranks };
    if (env.rank() != 0)
    {
        return;
    }
    std::printf(
        "%-6s %s after %d iterations, ||r||/||b|| = %.3e; %.3g s per iteration (slowest rank, "
        "mean %.3g s)\n",
        name,
        s.converged ? "converged" : "NOT CONVERGED",
        s.iterations,
        s.residual(),
        perIteration,
        sumPerIteration / ranks
    );
    std::printf(
        "       reductions: %d, waited %.3g s in all (mean over ranks; one alone %.3g s): %.0f%% "
        "of an iteration's reduction hidden (mean)\n",
        s.reductions,
        reductionWait,
        reductionAlone,
        100.0 * reductionHidden
    );
    if (interior > 0.0)
    {
        std::printf(
            "       the interior of a product, which hides the reduction: %.3g s (mean)\n", interior
        );
    }
    std::printf(
        "       exchanges: %d, waited %.3g s in all (mean over ranks; one alone %.3g s): %.0f%% "
        "hidden\n",
        s.exchanges,
        exchangeWait,
        exchangeAlone,
        100.0 * hiddenShare(exchangeWait, s.exchanges, exchangeAlone)
    );
}

int run(const Arguments& args)
{
    const mpi::MPIEnvironment env;
    const std::unique_ptr<heat::MeshSource> source { args.mesh.source(env) };
    poisson::PoissonProblem problem(env, *source, args.mesh.partitionerKind(), args.dtFactor);
    problem.comm.setOptions({ .inPlace = args.inPlace, .timing = true }); // the hidden share
    if (env.rank() == 0)
    {
        std::printf(
            "fieldsync-poisson: backward-Euler diffusion step, %lld cells (%s), %d ranks, "
            "partitioner %s, dt = %g mean explicit steps, Jacobi preconditioner, tolerance %g, "
            "pipelined reduction %s\n",
            static_cast<long long>(source->nCells()),
            source->describe().c_str(),
            env.sizeRank(),
            args.mesh.partitioner.c_str(),
            args.dtFactor,
            args.options.tolerance,
            args.batchAlgorithm.c_str()
        );
    }
    int status { 0 };
    for (const std::string name : { "cg", "pipecg" })
    {
        if (args.solver != "both" && args.solver != name)
        {
            continue;
        }
        poisson::SolveOptions options { args.options };
        options.method = name == "cg" ? poisson::Method::Cg : poisson::Method::PipelinedCg;
        const poisson::PoissonSolver::View x("poisson::x", problem.solver.nLocal());
        const poisson::SolveStats stats {
            problem.solver.solve(&problem.comm, env, problem.b, x, options)
        };
        summary(env, name.c_str(), stats);
        status |= stats.converged ? 0 : 1;
    }
    return status;
}

} // namespace

int main(int argc, char** argv)
{
    Arguments args;
    return heat::exampleMain(
        argc, argv, [&] { return parse(argc, argv, args); }, [&] { return run(args); }
    );
}
