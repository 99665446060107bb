// SPDX-License-Identifier: MIT
#include "poissonSolver.hpp"

#include "overlapTimeline.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

namespace fieldsync::poisson
{

namespace
{
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since)
{
    return std::chrono::duration<double>(Clock::now() - since).count();
}

/** @brief The faces of @p piece between two cells (not on the boundary). */
std::size_t innerFaces(const MeshPiece& piece)
{
    const auto& nb = piece.faceNeighbours();
    return static_cast<std::size_t>(
        std::count_if(nb.begin(), nb.end(), [](const auto cell) { return cell >= 0; })
    );
}

Kokkos::View<LocalIndex*> cellList(const char* name, std::span<const LocalIndex> cells)
{
    Kokkos::View<LocalIndex*> view(std::string(name), cells.size());
    const auto host = Kokkos::create_mirror_view(view);
    std::copy(cells.begin(), cells.end(), host.data());
    Kokkos::deep_copy(view, host);
    return view;
}

using View = PoissonSolver::View;

/** @brief y = A x on a list of cells: PoissonSolver::apply()'s kernel. */
struct RowProduct
{
    Kokkos::View<LocalIndex*> cells;        /**< the cells */
    View diagonal;                          /**< A's diagonal */
    Kokkos::View<std::size_t*> faceOffsets; /**< CSR offsets of the inner faces */
    Kokkos::View<LocalIndex*> faceCell;     /**< per inner face: the local neighbour */
    View coefficient;                       /**< per inner face: its coefficient */
    View x;                                 /**< the vector, ghosts current */
    View y;                                 /**< A x */
    /** @brief y(i) = (A x)_i for the k-th cell i; returns x(i) y(i). */
    KOKKOS_INLINE_FUNCTION double operator()(std::size_t k) const
    {
        const auto i = static_cast<std::size_t>(cells(k));
        double sum { diagonal(i) * x(i) };
        for (std::size_t f { faceOffsets(i) }; f < faceOffsets(i + 1); ++f)
        {
            sum -= coefficient(f) * x(static_cast<std::size_t>(faceCell(f)));
        }
        y(i) = sum;
        return x(i) * sum;
    }
};

/**
 * @brief Counts one reduction of a solve that waited @p waited seconds for it: its share hidden
 * is 1 - waited / (one reduction alone), at least 0 (SolveStats::reductionHidden).
 */
void countReduction(SolveStats& stats, double waited)
{
    ++stats.reductions;
    stats.reductionWait += waited;
    if (stats.reductionAlone > 0.0)
    {
        stats.reductionHidden += 1.0 - std::min(waited / stats.reductionAlone, 1.0);
    }
}

/**
 * @brief Cells per kernel call of the vector kernels: on the host a block, whose loop inside the
 * call the compiler vectorizes (the vectors' pointers restrict-qualified: it cannot prove
 * otherwise that ten views do not overlap) and whose sums run in independent lanes; on a device
 * one cell per thread.
 */
constexpr std::size_t block { heat::kernelsOnHost ? 512 : 1 };

/**
 * @brief Partial sums per product in a host block: a plain sum is one chain of dependent
 * additions (the adder's latency per cell, as the reference BLAS ddot PETSc calls); four chains
 * run side by side.
 */
constexpr std::size_t lanes { heat::kernelsOnHost ? 4 : 1 };

/** @brief Kernel calls covering @p n cells. */
std::size_t blocks(std::size_t n)
{
    return (n + block - 1) / block;
}

/** @brief The cells [first, last) of block @p b of @p n cells. */
struct Block
{
    KOKKOS_INLINE_FUNCTION Block(std::size_t b, std::size_t n)
        : first(b * block), last(first + block < n ? first + block : n)
    {
    }
    std::size_t first; /**< its first cell */
    std::size_t last;  /**< one past its last cell */
};

/** @brief N sums reduced together (the value type of one parallel_reduce). */
template<std::size_t N>
struct Sums
{
    double value[N] {}; /**< the sums, 0 when constructed */

    /** @brief Adds @p other's sums (joining two threads' partial sums). */
    KOKKOS_INLINE_FUNCTION Sums& operator+=(const Sums& other)
    {
        for (std::size_t k { 0 }; k < N; ++k)
        {
            value[k] += other.value[k];
        }
        return *this;
    }

    /** @brief The same on volatile operands (Kokkos 3 joins through them). */
    KOKKOS_INLINE_FUNCTION void operator+=(const volatile Sums& other) volatile
    {
        for (std::size_t k { 0 }; k < N; ++k)
        {
            value[k] = value[k] + other.value[k]; // (C++20 deprecates += on volatile)
        }
    }
};

/** @brief No update: updateAndSum() only sums (localSums()). */
struct NoUpdate
{
    /** @brief Does nothing to cells [first, last). */
    KOKKOS_INLINE_FUNCTION void operator()(std::size_t, std::size_t) const {}
};

/**
 * @brief One pass over the first @p n cells: per block, update(first, last) updates its cells
 * (a vectorized loop), then the N products @p terms writes per cell (terms(i, t): t[k] its
 * k-th product at cell i) of the updated values, read again while the block is in cache, are
 * summed in `lanes` partial sums per product, added up at the block's end. Returns the local
 * sums: the vector update and the next reduction's local part in one kernel.
 */
template<std::size_t N, class Update, class Terms>
Sums<N> updateAndSum(const char* name, std::size_t n, const Update& update, const Terms& terms)
{
    Sums<N> total;
    Kokkos::parallel_reduce(
        name,
        Kokkos::RangePolicy<>(0, blocks(n)),
        KOKKOS_LAMBDA(const std::size_t b, Sums<N>& partial) {
            const Block cells(b, n);
            update(cells.first, cells.last);
            double lane[lanes][N] {};
            double t[N];
            std::size_t i { cells.first };
            for (; i + lanes <= cells.last; i += lanes)
            {
                for (std::size_t l { 0 }; l < lanes; ++l)
                {
                    terms(i + l, t);
                    for (std::size_t k { 0 }; k < N; ++k)
                    {
                        lane[l][k] += t[k];
                    }
                }
            }
            for (; i < cells.last; ++i)
            {
                terms(i, t);
                for (std::size_t k { 0 }; k < N; ++k)
                {
                    lane[0][k] += t[k];
                }
            }
            for (std::size_t k { 0 }; k < N; ++k)
            {
                double sum { 0.0 };
                for (std::size_t l { 0 }; l < lanes; ++l)
                {
                    sum += lane[l][k];
                }
                partial.value[k] += sum;
            }
        },
        total
    );
    return total;
}

/** @brief The local sums over the first @p n cells of the N products @p terms writes per cell. */
template<std::size_t N, class Terms>
Sums<N> localSums(const char* name, std::size_t n, const Terms& terms)
{
    return updateAndSum<N>(name, n, NoUpdate {}, terms);
}

/** @brief The product a(i) b(i). */
struct DotTerms
{
    View a; /**< first vector */
    View b; /**< second vector */
    /** @brief t[0] = a(i) b(i). */
    KOKKOS_INLINE_FUNCTION void operator()(std::size_t i, double* t) const { t[0] = a(i) * b(i); }
};

/** @brief The local part of (a, b) over the first @p n cells. */
double localDot(std::size_t n, const View& a, const View& b)
{
    return localSums<1>("poisson::dot", n, DotTerms { a, b }).value[0];
}

/** @brief The products of CG's second reduction: r z, r r. */
struct ResidualTerms
{
    View r; /**< residual */
    View z; /**< preconditioned residual */
    /** @brief t = (r(i) z(i), r(i) r(i)). */
    KOKKOS_INLINE_FUNCTION void operator()(std::size_t i, double* t) const
    {
        t[0] = r(i) * z(i);
        t[1] = r(i) * r(i);
    }
};

/** @brief The products of the pipelined reduction: r u, w u, r r. */
struct PipelinedTerms
{
    View r; /**< residual */
    View u; /**< preconditioned residual */
    View w; /**< A u */
    /** @brief t = (r(i) u(i), w(i) u(i), r(i) r(i)). */
    KOKKOS_INLINE_FUNCTION void operator()(std::size_t i, double* t) const
    {
        t[0] = r(i) * u(i);
        t[1] = w(i) * u(i);
        t[2] = r(i) * r(i);
    }
};

/** @brief Copies N local sums into @p out (the variables a ReductionBatch reduces). */
template<std::size_t N>
void store(const Sums<N>& sums, double (&out)[N])
{
    for (std::size_t k { 0 }; k < N; ++k)
    {
        out[k] = sums.value[k];
    }
}

/** @brief r = b - r (r held A x), z = D^-1 r: the initial residual, preconditioned. */
void residual(std::size_t n, const View& b, const View& inverse, const View& r, const View& z)
{
    Kokkos::parallel_for(
        "poisson::residual",
        Kokkos::RangePolicy<>(0, n),
        KOKKOS_LAMBDA(const std::size_t i) {
            r(i) = b(i) - r(i);
            z(i) = inverse(i) * r(i);
        }
    );
}

/**
 * @brief CG's update on cells [first, last): x += alpha p, r -= alpha q, z = D^-1 r (restrict
 * parameters: the compiler vectorizes the loop).
 */
KOKKOS_INLINE_FUNCTION void cgStep(
    std::size_t first,
    std::size_t last,
    double alpha,
    const double* KOKKOS_RESTRICT inverse,
    const double* KOKKOS_RESTRICT p,
    const double* KOKKOS_RESTRICT q,
    double* KOKKOS_RESTRICT x,
    double* KOKKOS_RESTRICT r,
    double* KOKKOS_RESTRICT z
)
{
    for (std::size_t i { first }; i < last; ++i)
    {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        z[i] = inverse[i] * r[i];
    }
}

/** @brief CG's update on a block (cgStep()). */
struct CgUpdate
{
    double alpha; /**< the step length */
    View inverse; /**< D^-1 */
    View p;       /**< the direction */
    View q;       /**< A p */
    View x;       /**< the solution */
    View r;       /**< the residual */
    View z;       /**< D^-1 r */
    /** @brief On cells [first, last). */
    KOKKOS_INLINE_FUNCTION void operator()(std::size_t first, std::size_t last) const
    {
        cgStep(
            first, last, alpha, inverse.data(), p.data(), q.data(), x.data(), r.data(), z.data()
        );
    }
};

/**
 * @brief CG's update and its second reduction's local part, one pass: x += alpha p,
 * r -= alpha q, z = D^-1 r, then gamma = (r, z) and rr = (r, r) of the new r and z.
 */
void cgUpdate(std::size_t n, const CgUpdate& update, double& gamma, double& rr)
{
    const Sums<2> sums {
        updateAndSum<2>("poisson::cgStep", n, update, ResidualTerms { update.r, update.z })
    };
    gamma = sums.value[0];
    rr = sums.value[1];
}

/** @brief p = z + beta p. */
void direction(std::size_t n, double beta, const View& z, const View& p)
{
    Kokkos::parallel_for(
        "poisson::cgDir",
        Kokkos::RangePolicy<>(0, n),
        KOKKOS_LAMBDA(const std::size_t i) { p(i) = z(i) + beta * p(i); }
    );
}

/** @brief The Jacobi step of pipelined CG on a block: m = D^-1 w. */
struct Jacobi
{
    View inverse; /**< D^-1 */
    View w;       /**< A u */
    View m;       /**< D^-1 w after */
    /** @brief On cells [first, last). */
    KOKKOS_INLINE_FUNCTION void operator()(std::size_t first, std::size_t last) const
    {
        for (std::size_t i { first }; i < last; ++i)
        {
            m(i) = inverse(i) * w(i);
        }
    }
};

/**
 * @brief Before pipelined CG's first iteration, one pass: m = D^-1 w and the local parts of
 * (r, u), (w, u), (r, r) into @p dots.
 */
void pipelinedStart(
    std::size_t n,
    const View& inverse,
    const View& r,
    const View& u,
    const View& w,
    const View& m,
    double (&dots)[3]
)
{
    store(
        updateAndSum<3>(
            "poisson::pipeStart", n, Jacobi { inverse, w, m }, PipelinedTerms { r, u, w }
        ),
        dots
    );
}

/** @brief The vectors of pipelined CG's update, in the order pipelinedStep() reads them. */
struct PipelinedVectors
{
    View n, m, w, u; /**< A m, D^-1 w, A u, D^-1 r */
    View z, q, s, p; /**< their recurrences: z = A q, q = D^-1 s, s = A p, p the direction */
    View x, r;       /**< the solution and the residual */
};

/** @brief Pipelined CG's update on cells [first, last) (see PipelinedUpdate). */
KOKKOS_INLINE_FUNCTION void pipelinedStep(
    std::size_t first,
    std::size_t last,
    double alpha,
    double beta,
    const double* KOKKOS_RESTRICT inverse,
    const double* KOKKOS_RESTRICT n,
    double* KOKKOS_RESTRICT m,
    double* KOKKOS_RESTRICT w,
    double* KOKKOS_RESTRICT u,
    double* KOKKOS_RESTRICT z,
    double* KOKKOS_RESTRICT q,
    double* KOKKOS_RESTRICT s,
    double* KOKKOS_RESTRICT p,
    double* KOKKOS_RESTRICT x,
    double* KOKKOS_RESTRICT r
)
{
    for (std::size_t i { first }; i < last; ++i)
    {
        z[i] = n[i] + beta * z[i];
        q[i] = m[i] + beta * q[i];
        s[i] = w[i] + beta * s[i];
        p[i] = u[i] + beta * p[i];
        x[i] += alpha * p[i];
        r[i] -= alpha * s[i];
        u[i] -= alpha * q[i];
        w[i] -= alpha * z[i];
        m[i] = inverse[i] * w[i]; // the next iteration's Jacobi step, on the new w
    }
}

/**
 * @brief Pipelined CG's update on a block (Ghysels and Vanroose 2014, algorithm 4):
 * z = n + beta z, q = m + beta q, s = w + beta s, p = u + beta p, x += alpha p, r -= alpha s,
 * u -= alpha q, w -= alpha z, and the next iteration's m = D^-1 w.
 */
struct PipelinedUpdate
{
    double alpha;       /**< the step length */
    double beta;        /**< the direction's factor */
    View inverse;       /**< D^-1 */
    PipelinedVectors v; /**< the vectors */
    /** @brief On cells [first, last). */
    KOKKOS_INLINE_FUNCTION void operator()(std::size_t first, std::size_t last) const
    {
        pipelinedStep(
            first,
            last,
            alpha,
            beta,
            inverse.data(),
            v.n.data(),
            v.m.data(),
            v.w.data(),
            v.u.data(),
            v.z.data(),
            v.q.data(),
            v.s.data(),
            v.p.data(),
            v.x.data(),
            v.r.data()
        );
    }
};

/**
 * @brief Pipelined CG's update fused with the next iteration's Jacobi step and the local parts
 * of its reduction, (r, u), (w, u), (r, r) of the new vectors, into @p dots: one pass.
 */
void pipelinedUpdate(std::size_t count, const PipelinedUpdate& update, double (&dots)[3])
{
    const PipelinedVectors& v { update.v };
    store(updateAndSum<3>("poisson::pipe", count, update, PipelinedTerms { v.r, v.u, v.w }), dots);
}
} // namespace

/** @brief The vectors of one solve (CG uses r, z, p, q; pipelined CG all of them). */
struct PoissonSolver::Work
{
    explicit Work(std::size_t n, bool pipelined)
        : r("poisson::r", n), z("poisson::z", n), p("poisson::p", n), q("poisson::q", n),
          u("poisson::u", pipelined ? n : 0), w("poisson::w", pipelined ? n : 0),
          m("poisson::m", pipelined ? n : 0), nv("poisson::n", pipelined ? n : 0),
          s("poisson::s", pipelined ? n : 0)
    {
    }
    View b;                          /**< right-hand side */
    View x;                          /**< solution */
    View r, z, p, q, u, w, m, nv, s; /**< the Krylov vectors (names as in the papers) */
};

PoissonSolver::PoissonSolver(const MeshPiece& piece, const HaloLayout& layout, double dt)
    : nOwned_(layout.nOwned()), nLocal_(layout.nLocal()), dt_(dt),
      volume_("poisson::volume", layout.nOwned()), diagonal_("poisson::diagonal", layout.nOwned()),
      inverseDiagonal_("poisson::inverseDiagonal", layout.nOwned()),
      faceOffsets_("poisson::faceOffsets", layout.nOwned() + 1),
      faceCell_("poisson::faceCell", innerFaces(piece)),
      faceCoefficient_("poisson::faceCoefficient", innerFaces(piece)),
      interior_(cellList("poisson::interior", layout.interiorCells())),
      boundary_(cellList("poisson::boundary", layout.boundaryCells()))
{
    FIELDSYNC_CHECK(
        piece.nCells() == layout.nOwned() && dt > 0.0,
        "PoissonSolver: the mesh piece has " + std::to_string(piece.nCells()) +
            " cells, the layout owns " + std::to_string(layout.nOwned()) +
            ", dt = " + std::to_string(dt)
    );
    const auto volume = Kokkos::create_mirror_view(volume_);
    const auto diagonal = Kokkos::create_mirror_view(diagonal_);
    const auto inverse = Kokkos::create_mirror_view(inverseDiagonal_);
    const auto offsets = Kokkos::create_mirror_view(faceOffsets_);
    const auto faceCell = Kokkos::create_mirror_view(faceCell_);
    const auto coefficient = Kokkos::create_mirror_view(faceCoefficient_);
    offsets(0) = 0;
    for (std::size_t i { 0 }; i < nOwned_; ++i)
    {
        // the layout lists a cell's neighbours in the piece's face order, boundary faces left out
        const std::span<const LocalIndex> local { layout.neighbours(i) };
        std::size_t next { 0 };
        volume(i) = piece.volume(i);
        diagonal(i) = piece.volume(i) / dt;
        for (std::size_t f { piece.faceOffsets()[i] }; f < piece.faceOffsets()[i + 1]; ++f)
        {
            // a boundary face (u = 0 beyond it) adds to the diagonal only: the product's face
            // lists leave it out (no branch per face)
            diagonal(i) += piece.faceCoefficients()[f];
            if (piece.faceNeighbours()[f] >= 0)
            {
                faceCell(offsets(i) + next) = local[next];
                coefficient(offsets(i) + next) = piece.faceCoefficients()[f];
                ++next;
            }
        }
        FIELDSYNC_CHECK(
            next == local.size(),
            "PoissonSolver: owned cell " + std::to_string(i) + " has " +
                std::to_string(local.size()) + " neighbours in the layout, " +
                std::to_string(next) + " inner faces in the mesh piece"
        );
        inverse(i) = 1.0 / diagonal(i);
        offsets(i + 1) = offsets(i) + next;
    }
    Kokkos::deep_copy(volume_, volume);
    Kokkos::deep_copy(diagonal_, diagonal);
    Kokkos::deep_copy(inverseDiagonal_, inverse);
    Kokkos::deep_copy(faceOffsets_, offsets);
    Kokkos::deep_copy(faceCell_, faceCell);
    Kokkos::deep_copy(faceCoefficient_, coefficient);
}

PoissonSolver::View PoissonSolver::vector(std::span<const double> owned) const
{
    FIELDSYNC_CHECK(
        owned.size() == nOwned_,
        "PoissonSolver::vector: " + std::to_string(owned.size()) + " values for " +
            std::to_string(nOwned_) + " owned cells"
    );
    View v("poisson::vector", nLocal_);
    const auto host = Kokkos::create_mirror_view(v);
    std::copy(owned.begin(), owned.end(), host.data());
    Kokkos::deep_copy(v, host);
    return v;
}

PoissonSolver::View PoissonSolver::backwardEulerRhs(std::span<const double> uOld) const
{
    View b { vector(uOld) };
    const auto volume = volume_;
    const double dt { dt_ };
    Kokkos::parallel_for(
        "poisson::rhs",
        Kokkos::RangePolicy<>(0, nOwned_),
        KOKKOS_LAMBDA(const std::size_t i) { b(i) *= volume(i) / dt; }
    );
    return b;
}

LocalMatrix PoissonSolver::localMatrix() const
{
    const auto diagonal = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, diagonal_);
    const auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, faceOffsets_);
    const auto faceCell = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, faceCell_);
    const auto coefficient =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, faceCoefficient_);
    LocalMatrix matrix;
    for (std::size_t i { 0 }; i < nOwned_; ++i)
    {
        matrix.columns.push_back(static_cast<LocalIndex>(i));
        matrix.values.push_back(diagonal(i));
        for (std::size_t f { offsets(i) }; f < offsets(i + 1); ++f)
        {
            matrix.columns.push_back(faceCell(f));
            matrix.values.push_back(-coefficient(f));
        }
        matrix.offsets.push_back(matrix.columns.size());
    }
    return matrix;
}

std::vector<double> initialField(const MeshPiece& piece)
{
    std::vector<double> u(piece.nCells());
    for (std::size_t i { 0 }; i < u.size(); ++i)
    {
        const heat::Point& c { piece.centroid(i) };
        const double z { heat::dimension(piece.shape(i)) == 3 ? std::sin(M_PI * c[2]) : 1.0 };
        u[i] = std::sin(M_PI * c[0]) * std::sin(2.0 * M_PI * c[1]) * z + c[0] * c[1];
    }
    return u;
}

std::vector<double> PoissonSolver::owned(const View& v) const
{
    const auto host = Kokkos::create_mirror_view(v);
    Kokkos::deep_copy(host, v);
    return std::vector<double>(host.data(), host.data() + nOwned_);
}

double PoissonSolver::apply(
    const Kokkos::View<LocalIndex*>& cells, const View& x, const View& y, bool dot
) const
{
    const RowProduct row { cells, diagonal_, faceOffsets_, faceCell_, faceCoefficient_, x, y };
    const Kokkos::RangePolicy<> all(0, cells.extent(0));
    if (!dot)
    {
        Kokkos::parallel_for(
            "poisson::apply", all, KOKKOS_LAMBDA(const std::size_t k) { (void)row(k); }
        );
        return 0.0;
    }
    double sum { 0.0 };
    Kokkos::parallel_reduce(
        "poisson::applyDot",
        all,
        KOKKOS_LAMBDA(const std::size_t k, double& partial) { partial += row(k); },
        sum
    );
    return sum;
}

bool PoissonSolver::product(
    halo::Communicator* comm,
    const CommKey& key,
    const View& x,
    const View& y,
    mpi::ReductionBatch* pending,
    std::size_t chunk,
    double* interior,
    double* dot
)
{
    const bool sum { dot != nullptr };
    double local { 0.0 }; // (x, y) over the cells done so far, when asked for
    if (comm == nullptr)
    {
        local += apply(interior_, x, y, sum);
        local += apply(boundary_, x, y, sum);
        if (sum)
        {
            *dot = local;
        }
        return false;
    }
    // [overlappedProduct]
    comm->startComm(x, key);
    const std::size_t n { interior_.extent(0) };
    const std::size_t step { chunk == 0 ? std::max<std::size_t>(n, 1) : chunk };
    bool reduced { pending == nullptr };
    const auto t0 = interior != nullptr ? Clock::now() : Clock::time_point {};
    for (std::size_t begin { 0 }; begin < n; begin += step)
    {
        const std::pair<std::size_t, std::size_t> range { begin, std::min(n, begin + step) };
        local += apply(Kokkos::subview(interior_, range), x, y, sum);
        if (chunk > 0)
        {
            Kokkos::fence(); // a chunk at a time, even where kernels run asynchronously
        }
        if (chunk > 0 || !heat::kernelsOnHost) // (one kernel on a device runs meanwhile)
        {
            (void)comm->progress(); // the exchange travels while the interior is computed
            reduced = reduced || pending->test(); // and so does the reduction
        }
    }
    if (interior != nullptr)
    {
        *interior += seconds(t0);
    }
    comm->waitComplete(key);
    reduced = reduced || pending->test(); // the exchange's wait progressed it too
    comm->finaliseComm(x, key);
    local += apply(boundary_, x, y, sum);
    // [overlappedProduct]
    if (sum)
    {
        *dot = local;
    }
    return pending != nullptr && reduced;
}

double PoissonSolver::reductionAlone(mpi::ReductionBatch& batch, MPI_Comm ranks)
{
    double best { std::numeric_limits<double>::infinity() };
    for (int i { 0 }; i < 5; ++i)
    {
        mpi::barrier(ranks);
        const auto t0 = Clock::now();
        batch.run();
        best = std::min(best, seconds(t0));
    }
    return best;
}

void PoissonSolver::calibrate(
    halo::Communicator* comm,
    const CommKey& key,
    const View& x,
    mpi::ReductionBatch& batch,
    MPI_Comm ranks,
    bool enabled,
    SolveStats& stats
)
{
    if (!enabled)
    {
        return;
    }
    stats.reductionAlone = reductionAlone(batch, ranks);
    if (comm != nullptr)
    {
        stats.exchangeAlone = heat::exchangeAlone(*comm, key, x, ranks);
        comm->resetStats(); // the loop's waits come from the telemetry
    }
}

void PoissonSolver::collect(halo::Communicator* comm, const CommKey& key, SolveStats& stats)
{
    if (comm != nullptr && stats.iterations > 0)
    {
        const halo::ExchangeStats& exchange { comm->stats(key) };
        stats.exchanges = static_cast<int>(exchange.exchanges);
        stats.exchangeWait = exchange.waitSeconds;
    }
}

SolveStats PoissonSolver::solve(
    halo::Communicator* comm,
    const mpi::MPIEnvironment& env,
    const View& b,
    const View& x,
    const SolveOptions& options
)
{
    FIELDSYNC_CHECK(
        b.extent(0) == nLocal_ && x.extent(0) == nLocal_,
        "PoissonSolver::solve: b has " + std::to_string(b.extent(0)) + " cells, x " +
            std::to_string(x.extent(0)) + ", the layout " + std::to_string(nLocal_)
    );
    Work v(nLocal_, options.method == Method::PipelinedCg);
    v.b = b;
    v.x = x;
    SolveStats stats;
    if (options.method == Method::Cg)
    {
        cg(comm, env.comm(), v, options, stats);
    }
    else
    {
        pipelinedCg(comm, env.comm(), v, options, stats);
    }
    return stats;
}

void PoissonSolver::cg(
    halo::Communicator* comm,
    MPI_Comm ranks,
    Work& v,
    const SolveOptions& options,
    SolveStats& stats
)
{
    const std::size_t n { nOwned_ };
    const std::size_t chunk { options.progressChunk };
    // r = b - A x, z = D^-1 r, p = z
    product(comm, CommKey { "poisson::x" }, v.x, v.r, nullptr, chunk);
    residual(n, v.b, inverseDiagonal_, v.r, v.z);
    Kokkos::deep_copy(v.p, v.z);
    double delta { 0.0 }; // (p, A p)
    double gamma { 0.0 }; // (r, z)
    double rr { 0.0 };    // (r, r)
    double bb { localDot(n, v.b, v.b) };
    mpi::ReductionBatch curvature(ranks);
    curvature.add(delta, mpi::ReduceOp::Sum);
    mpi::ReductionBatch residuals(ranks);
    residuals.add(gamma, mpi::ReduceOp::Sum).add(rr, mpi::ReduceOp::Sum);
    const CommKey key { "poisson::p" };
    calibrate(comm, key, v.p, residuals, ranks, options.calibrate, stats);
    mpi::ReductionBatch(ranks).add(bb, mpi::ReduceOp::Sum).run();
    gamma = localDot(n, v.r, v.z);
    rr = localDot(n, v.r, v.r);
    residuals.run();
    const double norm { std::sqrt(bb) > 0.0 ? std::sqrt(bb) : 1.0 };
    stats.history.push_back(std::sqrt(rr) / norm);
    const auto start = Clock::now();
    while (stats.history.back() > options.tolerance && stats.iterations < options.maxIterations)
    {
        product(comm, key, v.p, v.q, nullptr, chunk, nullptr, &delta); // q = A p, local (p, q)
        auto t0 = Clock::now();
        curvature.run();
        countReduction(stats, seconds(t0));
        const double alpha { gamma / delta };
        const double gammaOld { gamma };
        // x += alpha p, r -= alpha q, z = D^-1 r and the local (r, z), (r, r): one pass
        cgUpdate(n, { alpha, inverseDiagonal_, v.p, v.q, v.x, v.r, v.z }, gamma, rr);
        t0 = Clock::now();
        residuals.run();
        countReduction(stats, seconds(t0));
        ++stats.iterations;
        stats.history.push_back(std::sqrt(rr) / norm);
        direction(n, gamma / gammaOld, v.z, v.p);
    }
    Kokkos::fence();
    stats.seconds = seconds(start);
    stats.converged = stats.history.back() <= options.tolerance;
    collect(comm, key, stats);
}

void PoissonSolver::pipelinedCg(
    halo::Communicator* comm,
    MPI_Comm ranks,
    Work& v,
    const SolveOptions& options,
    SolveStats& stats
)
{
    const std::size_t n { nOwned_ };
    const std::size_t chunk { options.progressChunk };
    // r = b - A x, u = D^-1 r, w = A u
    product(comm, CommKey { "poisson::x" }, v.x, v.r, nullptr, chunk);
    residual(n, v.b, inverseDiagonal_, v.r, v.u);
    product(comm, CommKey { "poisson::u" }, v.u, v.w, nullptr, chunk);
    double dots[3] {}; // (r, u), (w, u), (r, r): one fused reduction per iteration
    double bb { localDot(n, v.b, v.b) };
    mpi::ReductionBatch batch(ranks, options.batchAlgorithm);
    batch.add(dots[0], mpi::ReduceOp::Sum)
        .add(dots[1], mpi::ReduceOp::Sum)
        .add(dots[2], mpi::ReduceOp::Sum);
    const CommKey key { "poisson::m" };
    calibrate(comm, key, v.m, batch, ranks, options.calibrate, stats);
    mpi::ReductionBatch(ranks).add(bb, mpi::ReduceOp::Sum).run();
    const double norm { std::sqrt(bb) > 0.0 ? std::sqrt(bb) : 1.0 };
    double alpha { 0.0 };
    double gammaOld { 0.0 };
    pipelinedStart(n, inverseDiagonal_, v.r, v.u, v.w, v.m, dots); // m = D^-1 w, local dots
    const auto start = Clock::now();
    for (int i { 0 };; ++i)
    {
        // [pipelinedIteration]
        batch.start(); // the reduction travels ...
        const bool reduced {
            product(comm, key, v.m, v.nv, &batch, chunk, &stats.interiorSeconds) // ... n = A m
        };
        double waited { 0.0 }; // none when a test in the product completed it
        if (!reduced)
        {
            const auto t0 = Clock::now();
            batch.wait();
            waited = seconds(t0);
        }
        countReduction(stats, waited);
        stats.history.push_back(std::sqrt(dots[2]) / norm);
        if (stats.history.back() <= options.tolerance || i >= options.maxIterations)
        {
            break;
        }
        const double gamma { dots[0] };
        const double beta { i > 0 ? gamma / gammaOld : 0.0 };
        alpha = i > 0 ? gamma / (dots[1] - beta * gamma / alpha) : gamma / dots[1];
        gammaOld = gamma;
        // the recurrences, m = D^-1 w and the next reduction's local parts: one pass
        pipelinedUpdate(
            n,
            { alpha,
              beta,
              inverseDiagonal_,
              { v.nv, v.m, v.w, v.u, v.z, v.q, v.s, v.p, v.x, v.r } },
            dots
        );
        ++stats.iterations;
        // [pipelinedIteration]
    }
    Kokkos::fence();
    stats.seconds = seconds(start);
    stats.converged = stats.history.back() <= options.tolerance;
    collect(comm, key, stats);
}

} // namespace fieldsync::poisson
