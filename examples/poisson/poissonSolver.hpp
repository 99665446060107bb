// SPDX-License-Identifier: MIT
#pragma once

#include "heatSolver.hpp"
#include "meshPiece.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reductionBatch.hpp"
#include "fieldsync/partition/haloLayout.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace fieldsync::poisson
{

using heat::MeshPiece;
using partition::HaloLayout;

/** @brief The Krylov solver. */
enum class Method
{
    Cg,         /**< preconditioned CG: two blocking reductions per iteration */
    PipelinedCg /**< Ghysels and Vanroose 2014: one non-blocking fused reduction per iteration */
};

/** @brief Settings of one solve. */
struct SolveOptions
{
    Method method { Method::Cg }; /**< which solver */
    double tolerance { 1e-8 };    /**< stop when ||r|| <= tolerance * ||b|| (2-norm) */
    int maxIterations { 2000 };   /**< give up after so many iterations */
    /** @brief Interior cells per chunk between progress() calls (0: one product). */
    std::size_t progressChunk { heat::defaultProgressChunk };
    /**
     * @brief Measure one reduction and one exchange alone before the loop (SolveStats'
     * reductionAlone, exchangeAlone): a few collective runs with barriers. Off where the solve
     * itself is timed from outside (the benchmark).
     */
    bool calibrate { true };
    /**
     * @brief The algorithm of pipelined CG's started reduction (ReductionBatch's start():
     * Native, MPI_Iallreduce; RecursiveDoubling, fieldsync's own); unset, the batch chooses by
     * its size (its 3 doubles: RecursiveDoubling). The blocking reductions are MPI's.
     */
    std::optional<mpi::Algorithm> batchAlgorithm {};
};

/** @brief The operator's rows on one rank, on the host: CSR over local indices (owned, ghosts). */
struct LocalMatrix
{
    std::vector<std::size_t> offsets { 0 }; /**< per owned row, its first entry; nOwned()+1 */
    std::vector<LocalIndex> columns;        /**< the diagonal first, then the inner faces' cells */
    std::vector<double> values;             /**< A's entries */
};

/**
 * @brief The field before the step on the cells of @p piece: a smooth function of the
 * centroid (fieldsync-poisson's and the benchmark's right-hand side is (V/dt) times it).
 */
[[nodiscard]] std::vector<double> initialField(const MeshPiece& piece);

/** @brief What one solve did and where this rank's time went (seconds). */
struct SolveStats
{
    int iterations { 0 };        /**< iterations until the residual met the tolerance */
    bool converged { false };    /**< whether it did within maxIterations */
    std::vector<double> history; /**< ||r_k|| / ||b||, k = 0 .. iterations */
    double seconds { 0 };        /**< the iteration loop */
    int reductions { 0 };        /**< global reductions in the loop */
    double reductionWait { 0 };  /**< time in their blocking run() or wait() */
    double reductionAlone { 0 }; /**< one fused reduction alone (least of a few), before */
    /**
     * @brief The sum over the loop's reductions of each one's share hidden,
     * 1 - min(its wait / reductionAlone, 1) (0 without calibration): divided by reductions,
     * the mean share of an iteration's reduction hidden behind the work before its wait.
     */
    double reductionHidden { 0 };
    /** @brief Pipelined CG: the products' interior cells, the work its reduction hides behind. */
    double interiorSeconds { 0 };
    int exchanges { 0 };        /**< halo exchanges in the loop */
    double exchangeWait { 0 };  /**< waiting for them (Communicator stats) */
    double exchangeAlone { 0 }; /**< one exchange alone (least of a few), before */
    /** @brief The final relative residual ||r|| / ||b||. */
    [[nodiscard]] double residual() const { return history.empty() ? 0.0 : history.back(); }
};

/**
 * @brief One implicit (backward-Euler) diffusion step on an unstructured mesh, matrix-free:
 * (V/dt) u - div(grad u) = (V/dt) u_old with u = 0 on the boundary, on one rank's cells (owned
 * plus ghosts, as a HaloLayout numbers them). The operator A is applied from the mesh's face
 * coefficients c_f = |face| / distance: (A x)_i = (V_i/dt + sum_f c_f) x_i - sum_f c_f x_nb(f),
 * symmetric positive definite; the Jacobi preconditioner is its diagonal.
 *
 * Each product starts the halo exchange of x, applies A to the interior cells while it travels
 * (with Communicator::progress() between chunks, and the pipelined solver's reduction tested
 * there too), finishes the exchange and applies A to the cells next to the partition boundary.
 */
class PoissonSolver
{
public:
    /** @brief Kokkos views in the default execution space. */
    using View = Kokkos::View<double*>;

    /**
     * @brief The operator for time step @p dt on the cells of @p layout, whose owned cells are
     * the cells of @p piece in the same order.
     */
    PoissonSolver(const MeshPiece& piece, const HaloLayout& layout, double dt);

    /** @brief Owned cells. */
    [[nodiscard]] std::size_t nOwned() const noexcept { return nOwned_; }

    /** @brief Owned plus ghost cells: the size of the vectors solve() takes. */
    [[nodiscard]] std::size_t nLocal() const noexcept { return nLocal_; }

    /** @brief A vector of nLocal() cells whose owned part is @p owned (ghosts 0). */
    [[nodiscard]] View vector(std::span<const double> owned) const;

    /** @brief The right-hand side (V/dt) u_old of the owned cells (@p uOld: owned values). */
    [[nodiscard]] View backwardEulerRhs(std::span<const double> uOld) const;

    /**
     * @brief Collective: solves A x = b from the initial guess in @p x (nLocal() cells; its
     * owned part is the solution afterwards). @p comm is null for a serial run on a layout
     * that owns every cell; @p env gives the ranks of the reductions.
     * @throws Error when b or x is not nLocal() long.
     */
    SolveStats solve(
        halo::Communicator* comm,
        const mpi::MPIEnvironment& env,
        const View& b,
        const View& x,
        const SolveOptions& options
    );

    /**
     * @brief y = A x on @p cells (one kernel; x's ghosts must be current); with @p dot, returns
     * the sum over @p cells of x(i) y(i) from the same kernel (0 without). Public only because
     * nvcc rejects a KOKKOS_LAMBDA in a private member function.
     */
    double apply(
        const Kokkos::View<LocalIndex*>& cells, const View& x, const View& y, bool dot = false
    ) const;

    /** @brief The operator's rows as a CSR matrix over local indices (for assembling it). */
    [[nodiscard]] LocalMatrix localMatrix() const;

    /** @brief The owned values of @p v, on the host. */
    [[nodiscard]] std::vector<double> owned(const View& v) const;

private:
    /** @brief The vectors of one solve, each nLocal() long. */
    struct Work;

    /**
     * @brief y = A x on the owned cells: exchange of x under @p key overlapped with the
     * interior product (and @p pending, a reduction in flight, tested between chunks). Returns
     * true when those tests (and one after the exchange's wait) completed @p pending (it must
     * not be waited for then). Adds the interior product's time to @p interior, if not null;
     * writes the local (x, y) over the owned cells to @p dot, if not null, summed in the
     * product's kernels.
     */
    bool product(
        halo::Communicator* comm,
        const CommKey& key,
        const View& x,
        const View& y,
        mpi::ReductionBatch* pending,
        std::size_t chunk,
        double* interior = nullptr,
        double* dot = nullptr
    );
    /** @brief Collective: the least time of a few runs of @p batch alone. */
    static double reductionAlone(mpi::ReductionBatch& batch, MPI_Comm ranks);
    /**
     * @brief Collective, before a loop, when @p enabled: the reduction alone (@p batch, whose
     * variables it overwrites) and the exchange of @p x under @p key alone; resets the exchange
     * telemetry.
     */
    static void calibrate(
        halo::Communicator* comm,
        const CommKey& key,
        const View& x,
        mpi::ReductionBatch& batch,
        MPI_Comm ranks,
        bool enabled,
        SolveStats& stats
    );
    /** @brief After a loop: the exchanges under @p key and their wait, from the telemetry. */
    static void collect(halo::Communicator* comm, const CommKey& key, SolveStats& stats);
    /** @brief Preconditioned CG on @p v (two blocking reductions per iteration). */
    void
    cg(halo::Communicator* comm,
       MPI_Comm ranks,
       Work& v,
       const SolveOptions& options,
       SolveStats& stats);
    /** @brief Pipelined CG on @p v (one non-blocking reduction, overlapped with the product). */
    void pipelinedCg(
        halo::Communicator* comm,
        MPI_Comm ranks,
        Work& v,
        const SolveOptions& options,
        SolveStats& stats
    );

    std::size_t nOwned_;   /**< owned cells */
    std::size_t nLocal_;   /**< owned + ghost cells */
    double dt_;            /**< the time step */
    View volume_;          /**< owned cell volumes (areas in 2-D) */
    View diagonal_;        /**< A's diagonal, V/dt + sum of the face coefficients */
    View inverseDiagonal_; /**< the Jacobi preconditioner */
    Kokkos::View<std::size_t*> faceOffsets_; /**< CSR offsets of the owned cells' inner faces */
    Kokkos::View<LocalIndex*> faceCell_;     /**< per inner face: the local neighbour */
    View faceCoefficient_;                   /**< per inner face: |face| / distance */
    Kokkos::View<LocalIndex*> interior_;     /**< owned cells without ghost neighbours */
    Kokkos::View<LocalIndex*> boundary_;     /**< owned cells with a ghost neighbour */
};

} // namespace fieldsync::poisson
