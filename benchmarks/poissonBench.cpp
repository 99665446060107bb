// SPDX-License-Identifier: MIT
// poisson_bench: the implicit solve of fieldsync-poisson (one backward-Euler diffusion step,
// matrix-free, Jacobi-preconditioned) against PETSc's KSP on the same mesh, partition,
// right-hand side, initial guess (0) and tolerance (||r|| <= rtol ||b||, unpreconditioned norm).
// Built only where PETSc is found. Six methods:
//   fieldsync CG, fieldsync pipelined CG      (PoissonSolver, the Communicator, ReductionBatch)
//   PETSc KSPCG, KSPPIPECG on a MATMPIAIJ     (the operator assembled on the same partition)
//   PETSc KSPCG, KSPPIPECG on a MATSHELL      (the same face loop as ours, ghosts moved by a
//                                               VecScatter, begun before the interior cells and
//                                               ended before the boundary cells)
// Method: the six interleaved, solve by solve (the order rotating), --solves of each (at least
// 11); per solve the time per iteration of the slowest rank; the median over the solves.
// --methods cg,aij-cg,... runs only those (to count one method's work alone); --cpu-time times
// the solves by the thread's CPU time (on a loaded machine), and the least of the solves is
// printed beside the median.
// Checked (exit 1 otherwise): the iteration counts agree with PETSc's within one, and the
// residual history ||r_k|| / ||b|| of fieldsync's CG equals KSPCG's (both forms) to 1e-10
// relative at every iteration both made: the two run the same recurrence, so the histories
// differ only by rounding. Pipelined CG's difference from KSPPIPECG is printed, not judged: its
// recurrences amplify rounding (test/examples/poissonSolver.cpp bounds it against CG).
//
//   mpiexec -n 2 --bind-to core build/release/benchmarks/poisson_bench [--nx N] [--solves 11]
#include "median.hpp"

#include "meshOptions.hpp"
#include "poissonProblem.hpp"

#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <petscksp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

using namespace fieldsync;
using fieldsync_bench::interleaved;
using fieldsync_bench::median;

namespace
{

void petscCheck(PetscErrorCode code, const char* call)
{
    if (code != 0)
    {
        std::fprintf(stderr, "poisson_bench: %s failed (PETSc error %d)\n", call, code);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/** @brief The command line. */
struct Arguments
{
    heat::MeshOptions mesh;           /**< mesh and partitioner, as fieldsync-poisson's */
    int solves { 11 };                /**< solves per method */
    double tolerance { 1e-8 };        /**< relative tolerance */
    double dtFactor { 100.0 };        /**< dt in mean explicit stable steps */
    std::vector<std::string> methods; /**< the methods to run (methodKeys); empty: all six */
    bool cpuTime { false }; /**< time the solves by this thread's CPU time, not the wall clock */
};

/**
 * @brief Seconds on the wall clock, or (@p cpu) this thread's CPU time, which other processes
 * on a loaded machine hardly disturb (it leaves out the time the thread waited for a core).
 */
double now(bool cpu)
{
    if (cpu)
    {
        timespec t {};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/** @brief The methods, in the table's order. */
constexpr std::array<const char*, 6> methodNames { "fieldsync CG",    "fieldsync pipelined CG",
                                                   "PETSc CG, AIJ",   "PETSc PIPECG, AIJ",
                                                   "PETSc CG, shell", "PETSc PIPECG, shell" };

/** @brief The methods' names on the command line (--methods), in methodNames' order. */
constexpr std::array<const char*, 6> methodKeys { "cg",         "pipecg",   "aij-cg",
                                                  "aij-pipecg", "shell-cg", "shell-pipecg" };

/**
 * @brief The MATSHELL's context: the local matrix (owned rows over local columns), the ghosts'
 * scatter and their values, the interior and boundary rows.
 */
struct Shell
{
    poisson::LocalMatrix matrix;      /**< A's rows, local columns (owned, then ghosts) */
    std::size_t nOwned { 0 };         /**< owned rows */
    VecScatter scatter { nullptr };   /**< global x -> ghosts */
    Vec ghosts { nullptr };           /**< the ghosts' values (sequential) */
    std::vector<LocalIndex> interior; /**< rows without ghost columns */
    std::vector<LocalIndex> boundary; /**< rows with ghost columns */
    Vec diagonal { nullptr };         /**< A's diagonal, for PCJACOBI */
};

/** @brief y = A x on @p rows: the face loop over the local columns. */
void shellRows(
    const Shell& s,
    const std::vector<LocalIndex>& rows,
    const PetscScalar* x,
    const PetscScalar* ghosts,
    PetscScalar* y
)
{
    const auto owned = static_cast<LocalIndex>(s.nOwned);
    for (const LocalIndex row : rows)
    {
        const auto i = static_cast<std::size_t>(row);
        double sum { 0.0 };
        for (std::size_t k { s.matrix.offsets[i] }; k < s.matrix.offsets[i + 1]; ++k)
        {
            const LocalIndex c { s.matrix.columns[k] };
            const double value { c < owned ? x[c] : ghosts[c - owned] };
            sum += s.matrix.values[k] * value;
        }
        y[i] = sum;
    }
}

/** @brief MATOP_MULT of the shell: scatter begun, interior rows, scatter ended, boundary rows. */
PetscErrorCode shellMult(Mat a, Vec x, Vec y)
{
    Shell* s { nullptr };
    PetscCall(MatShellGetContext(a, &s));
    PetscCall(VecScatterBegin(s->scatter, x, s->ghosts, INSERT_VALUES, SCATTER_FORWARD));
    const PetscScalar* xa { nullptr };
    const PetscScalar* ga { nullptr };
    PetscScalar* ya { nullptr };
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArray(y, &ya));
    shellRows(*s, s->interior, xa, nullptr, ya);
    PetscCall(VecScatterEnd(s->scatter, x, s->ghosts, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(s->ghosts, &ga));
    shellRows(*s, s->boundary, xa, ga, ya);
    PetscCall(VecRestoreArrayRead(s->ghosts, &ga));
    PetscCall(VecRestoreArray(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    return 0;
}

/** @brief MATOP_GET_DIAGONAL of the shell (PCJACOBI asks for it). */
PetscErrorCode shellDiagonal(Mat a, Vec d)
{
    Shell* s { nullptr };
    PetscCall(MatShellGetContext(a, &s));
    PetscCall(VecCopy(s->diagonal, d));
    return 0;
}

/** @brief Everything PETSc needs, built once from the fieldsync layout and matrix. */
class PetscProblem
{
public:
    PetscProblem(
        const partition::HaloLayout& layout,
        halo::Communicator& comm,
        const poisson::LocalMatrix& matrix,
        const std::vector<double>& rhs
    )
    {
        const auto n = static_cast<PetscInt>(layout.nOwned());
        PetscInt first { 0 };
        MPI_Exscan(&n, &first, 1, MPIU_INT, MPI_SUM, MPI_COMM_WORLD);
        int rank { 0 };
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        first = rank == 0 ? 0 : first;
        // each local cell's PETSc row: owned from the offset, ghosts from their owners (a halo
        // exchange of the row numbers)
        Kokkos::View<double*> rows("rows", layout.nLocal());
        const auto host = Kokkos::create_mirror_view(rows);
        for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
        {
            host(i) = static_cast<double>(first + static_cast<PetscInt>(i));
        }
        Kokkos::deep_copy(rows, host);
        comm.startComm(rows, CommKey { "poissonBench::rows" });
        comm.finaliseComm(rows, CommKey { "poissonBench::rows" });
        Kokkos::deep_copy(host, rows);
        std::vector<PetscInt> global(layout.nLocal());
        for (std::size_t i { 0 }; i < global.size(); ++i)
        {
            global[i] = static_cast<PetscInt>(host(i));
        }
        assemble(layout, matrix, global, n);
        shell(layout, matrix, global, n);
        petscCheck(MatCreateVecs(aij_, &x_, &b_), "MatCreateVecs");
        for (PetscInt i { 0 }; i < n; ++i)
        {
            petscCheck(
                VecSetValue(b_, first + i, rhs[static_cast<std::size_t>(i)], INSERT_VALUES),
                "VecSetValue"
            );
        }
        petscCheck(VecAssemblyBegin(b_), "VecAssemblyBegin");
        petscCheck(VecAssemblyEnd(b_), "VecAssemblyEnd");
    }

    ~PetscProblem()
    {
        MatDestroy(&aij_);
        MatDestroy(&shell_);
        VecScatterDestroy(&context_.scatter);
        VecDestroy(&context_.ghosts);
        VecDestroy(&context_.diagonal);
        VecDestroy(&x_);
        VecDestroy(&b_);
    }

    PetscProblem(const PetscProblem&) = delete;
    PetscProblem& operator=(const PetscProblem&) = delete;

    /**
     * @brief Solves from x = 0 with @p type on the AIJ (or shell) matrix: seconds (CPU seconds
     * with @p cpu), iterations.
     */
    std::pair<double, int>
    solve(KSPType type, bool shell, double tolerance, bool cpu, std::vector<double>& history)
    {
        KSP ksp { nullptr };
        PC pc { nullptr };
        Mat a { shell ? shell_ : aij_ };
        petscCheck(KSPCreate(PETSC_COMM_WORLD, &ksp), "KSPCreate");
        petscCheck(KSPSetOperators(ksp, a, a), "KSPSetOperators");
        petscCheck(KSPSetType(ksp, type), "KSPSetType");
        petscCheck(KSPGetPC(ksp, &pc), "KSPGetPC");
        petscCheck(PCSetType(pc, PCJACOBI), "PCSetType");
        petscCheck(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
        petscCheck(KSPSetTolerances(ksp, tolerance, 0.0, PETSC_DEFAULT, 10000), "KSPSetTolerances");
        petscCheck(KSPSetUp(ksp), "KSPSetUp");
        std::vector<PetscReal> norms(10001);
        petscCheck(
            KSPSetResidualHistory(
                ksp, norms.data(), static_cast<PetscInt>(norms.size()), PETSC_TRUE
            ),
            "KSPSetResidualHistory"
        );
        petscCheck(VecSet(x_, 0.0), "VecSet");
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 { now(cpu) };
        petscCheck(KSPSolve(ksp, b_, x_), "KSPSolve");
        const double seconds { now(cpu) - t0 };
        PetscInt iterations { 0 };
        KSPConvergedReason reason {};
        petscCheck(KSPGetIterationNumber(ksp, &iterations), "KSPGetIterationNumber");
        petscCheck(KSPGetConvergedReason(ksp, &reason), "KSPGetConvergedReason");
        const PetscReal* recorded { nullptr };
        PetscInt recordedCount { 0 };
        petscCheck(KSPGetResidualHistory(ksp, &recorded, &recordedCount), "KSPGetResidualHistory");
        PetscReal normB { 0.0 };
        petscCheck(VecNorm(b_, NORM_2, &normB), "VecNorm");
        history.assign(recorded, recorded + recordedCount);
        for (double& r : history)
        {
            r /= normB; // as fieldsync's history: ||r_k|| / ||b||
        }
        petscCheck(KSPDestroy(&ksp), "KSPDestroy");
        if (reason <= 0)
        {
            std::fprintf(stderr, "poisson_bench: PETSc %s did not converge (%d)\n", type, reason);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        return { seconds, static_cast<int>(iterations) };
    }

private:
    /** @brief The MATMPIAIJ: each owned row's entries at the PETSc columns. */
    void assemble(
        const partition::HaloLayout& layout,
        const poisson::LocalMatrix& matrix,
        const std::vector<PetscInt>& global,
        PetscInt n
    )
    {
        petscCheck(
            MatCreateAIJ(
                PETSC_COMM_WORLD,
                n,
                n,
                PETSC_DETERMINE,
                PETSC_DETERMINE,
                7,
                nullptr,
                6,
                nullptr,
                &aij_
            ),
            "MatCreateAIJ"
        );
        for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
        {
            std::vector<PetscInt> columns;
            for (std::size_t k { matrix.offsets[i] }; k < matrix.offsets[i + 1]; ++k)
            {
                columns.push_back(global[static_cast<std::size_t>(matrix.columns[k])]);
            }
            const PetscInt row { global[i] };
            petscCheck(
                MatSetValues(
                    aij_,
                    1,
                    &row,
                    static_cast<PetscInt>(columns.size()),
                    columns.data(),
                    matrix.values.data() + matrix.offsets[i],
                    INSERT_VALUES
                ),
                "MatSetValues"
            );
        }
        petscCheck(MatAssemblyBegin(aij_, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
        petscCheck(MatAssemblyEnd(aij_, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
    }

    /** @brief The MATSHELL: the face loop with the ghosts scattered from their owners. */
    void shell(
        const partition::HaloLayout& layout,
        const poisson::LocalMatrix& matrix,
        const std::vector<PetscInt>& global,
        PetscInt n
    )
    {
        context_.matrix = matrix;
        context_.nOwned = layout.nOwned();
        context_.interior.assign(layout.interiorCells().begin(), layout.interiorCells().end());
        context_.boundary.assign(layout.boundaryCells().begin(), layout.boundaryCells().end());
        const auto nGhost = static_cast<PetscInt>(layout.nGhost());
        Vec x { nullptr };
        petscCheck(VecCreateMPI(PETSC_COMM_WORLD, n, PETSC_DETERMINE, &x), "VecCreateMPI");
        petscCheck(VecCreateSeq(PETSC_COMM_SELF, nGhost, &context_.ghosts), "VecCreateSeq");
        IS from { nullptr };
        petscCheck(
            ISCreateGeneral(
                PETSC_COMM_SELF, nGhost, global.data() + layout.nOwned(), PETSC_COPY_VALUES, &from
            ),
            "ISCreateGeneral"
        );
        petscCheck(
            VecScatterCreate(x, from, context_.ghosts, nullptr, &context_.scatter),
            "VecScatterCreate"
        );
        petscCheck(ISDestroy(&from), "ISDestroy");
        petscCheck(VecDuplicate(x, &context_.diagonal), "VecDuplicate");
        PetscScalar* d { nullptr };
        petscCheck(VecGetArray(context_.diagonal, &d), "VecGetArray");
        for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
        {
            d[i] = matrix.values[matrix.offsets[i]]; // the diagonal comes first in each row
        }
        petscCheck(VecRestoreArray(context_.diagonal, &d), "VecRestoreArray");
        petscCheck(VecDestroy(&x), "VecDestroy");
        petscCheck(
            MatCreateShell(
                PETSC_COMM_WORLD, n, n, PETSC_DETERMINE, PETSC_DETERMINE, &context_, &shell_
            ),
            "MatCreateShell"
        );
        petscCheck(
            MatShellSetOperation(shell_, MATOP_MULT, reinterpret_cast<void (*)(void)>(shellMult)),
            "MatShellSetOperation"
        );
        petscCheck(
            MatShellSetOperation(
                shell_, MATOP_GET_DIAGONAL, reinterpret_cast<void (*)(void)>(shellDiagonal)
            ),
            "MatShellSetOperation"
        );
    }

    Shell context_;         /**< the shell's data */
    Mat aij_ { nullptr };   /**< assembled */
    Mat shell_ { nullptr }; /**< matrix-free */
    Vec x_ { nullptr };     /**< solution */
    Vec b_ { nullptr };     /**< right-hand side */
};

/** @brief Parses the command line; exits on --help or a bad option. */
Arguments parse(int argc, char** argv)
{
    Arguments a;
    a.mesh.nx = 64;
    CLI::App app { "poisson_bench: fieldsync CG and pipelined CG against PETSc KSPCG and "
                   "KSPPIPECG (assembled and matrix-free), time per iteration" };
    a.mesh.declare(app);
    app.add_option("--solves", a.solves, "solves per method (median; at least 11)")
        ->check(CLI::Range(11, 100000))
        ->capture_default_str();
    app.add_option("--tolerance", a.tolerance, "stop when ||r|| <= tolerance * ||b||")
        ->capture_default_str();
    app.add_option("--dt-factor", a.dtFactor, "the time step in mean explicit stable steps")
        ->capture_default_str();
    app.add_option(
           "--methods",
           a.methods,
           "run only these (cg, pipecg, aij-cg, aij-pipecg, shell-cg, shell-pipecg; default all), "
           "for example to count one method's instructions alone"
    )
        ->delimiter(',')
        ->check(CLI::IsMember(std::vector<std::string>(methodKeys.begin(), methodKeys.end())));
    app.add_flag(
        "--cpu-time",
        a.cpuTime,
        "time each solve by the thread's CPU time (on a loaded machine; includes MPI's spinning)"
    );
    const int stop { heat::parseCommandLine(app, argc, argv) };
    if (stop >= 0)
    {
        std::exit(stop);
    }
    a.mesh.complete("poisson_bench");
    return a;
}

/** @brief Collective: runs the benchmark and prints the table (rank 0); 1 when counts differ. */
int run(const Arguments& args)
{
    const mpi::MPIEnvironment env;
    const std::unique_ptr<heat::MeshSource> source { args.mesh.source(env) };
    poisson::PoissonProblem problem(env, *source, args.mesh.partitionerKind(), args.dtFactor);
    poisson::PoissonSolver& solver { problem.solver };
    const poisson::PoissonSolver::View& b { problem.b };
    PetscProblem petsc(problem.mesh.layout, problem.comm, solver.localMatrix(), solver.owned(b));
    std::array<std::vector<double>, methodNames.size()> perIteration;
    std::array<int, methodNames.size()> iterations {};
    std::array<std::vector<double>, methodNames.size()> histories; // of each method's last solve
    std::vector<int> selected;
    for (std::size_t m { 0 }; m < methodKeys.size(); ++m)
    {
        if (args.methods.empty() ||
            std::find(args.methods.begin(), args.methods.end(), methodKeys[m]) !=
                args.methods.end())
        {
            selected.push_back(static_cast<int>(m));
        }
    }
    interleaved(
        args.solves + 1,
        static_cast<int>(selected.size()),
        [&](int solve, int k)
        {
            const int method { selected[static_cast<std::size_t>(k)] };
            double seconds { 0.0 };
            int count { 0 };
            if (method < 2)
            {
                poisson::SolveOptions options;
                options.method = method == 0 ? poisson::Method::Cg : poisson::Method::PipelinedCg;
                options.tolerance = args.tolerance;
                options.calibrate = false;
                const poisson::PoissonSolver::View x("x", solver.nLocal());
                mpi::barrier(env.comm());
                const double t0 { now(args.cpuTime) };
                const poisson::SolveStats stats { solver.solve(&problem.comm, env, b, x, options) };
                seconds = now(args.cpuTime) - t0;
                count = stats.iterations;
                histories[static_cast<std::size_t>(method)] = stats.history;
            }
            else
            {
                const bool shell { method >= 4 };
                const KSPType type { method % 2 == 0 ? KSPCG : KSPPIPECG };
                std::tie(seconds, count) = petsc.solve(
                    type,
                    shell,
                    args.tolerance,
                    args.cpuTime,
                    histories[static_cast<std::size_t>(method)]
                );
            }
            iterations[static_cast<std::size_t>(method)] = count;
            if (solve > 0) // the first round warms up
            {
                mpi::allReduce(seconds, mpi::ReduceOp::Max, env.comm());
                perIteration[static_cast<std::size_t>(method)].push_back(
                    seconds / std::max(1, count)
                );
            }
        }
    );
    if (env.rank() == 0)
    {
        std::printf(
            "poisson_bench: %lld cells (%s), %d ranks, tolerance %g, median (and least) of %d "
            "interleaved solves, max over ranks, %s\n  %-24s %12s %8s %10s\n",
            static_cast<long long>(source->nCells()),
            source->describe().c_str(),
            env.sizeRank(),
            args.tolerance,
            args.solves,
            args.cpuTime ? "CPU time" : "wall clock",
            "method",
            "us/iteration",
            "least",
            "iterations"
        );
        for (const int k : selected)
        {
            const auto m = static_cast<std::size_t>(k);
            std::printf(
                "  %-24s %12.2f %8.2f %10d\n",
                methodNames[m],
                1e6 * median(perIteration[m]),
                1e6 * *std::min_element(perIteration[m].begin(), perIteration[m].end()),
                iterations[m]
            );
        }
    }
    // where both of a pair ran (a method not run has 0 iterations)
    const auto close = [&](std::size_t one, std::size_t other)
    {
        return iterations[one] == 0 || iterations[other] == 0 ||
               std::abs(iterations[one] - iterations[other]) <= 1;
    };
    const bool agree { close(0, 2) && close(0, 4) && close(1, 3) && close(1, 5) };
    // the largest relative difference of two residual histories over the iterations both made
    // (0 where either method did not run)
    const auto apart = [&](std::size_t one, std::size_t other)
    {
        const std::vector<double>& mine { histories[one] };
        const std::vector<double>& theirs { histories[other] };
        double worst { 0.0 };
        for (std::size_t k { 0 }; k < std::min(mine.size(), theirs.size()); ++k)
        {
            worst = std::max(worst, std::abs(mine[k] - theirs[k]) / theirs[k]);
        }
        return worst;
    };
    const double cgApart { std::max(apart(0, 2), apart(0, 4)) };
    const bool sameHistory { cgApart <= 1e-10 };
    if (env.rank() == 0)
    {
        std::printf("iteration counts agree with PETSc's within one: %s\n", agree ? "yes" : "NO");
        std::printf(
            "residual histories, largest relative difference: CG / KSPCG %.1e (at most 1e-10: %s), "
            "pipelined CG / KSPPIPECG %.1e\n",
            cgApart,
            sameHistory ? "yes" : "NO",
            std::max(apart(1, 3), apart(1, 5))
        );
    }
    return agree && sameHistory ? 0 : 1;
}
} // namespace

int main(int argc, char** argv)
{
    const Arguments args { parse(argc, argv) };
    mpi::MPIInit init(argc, argv);
    mpi::ensureKokkos();
    petscCheck(PetscInitializeNoArguments(), "PetscInitialize");
    int status { 0 };
    try
    {
        status = run(args);
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        status = 2;
    }
    petscCheck(PetscFinalize(), "PetscFinalize");
    return status;
}
