// SPDX-License-Identifier: MIT
#include "heatSolver.hpp"

#include "overlapTimeline.hpp"
#include "sharedView.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/config.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#include "fieldsync/partition/haloBuilder.hpp"
#include "fieldsync/partition/partition.hpp"
#include "fieldsync/partition/rebalanceTrigger.hpp"
#if FIELDSYNC_HAVE_ZOLTAN
#include "fieldsync/partition/rebalancer.hpp"
#endif

#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <span>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

namespace fieldsync::heat
{

namespace
{
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since)
{
    return std::chrono::duration<double>(Clock::now() - since).count();
}

/** @brief A wall and a thread CPU time stamp of the compute (the work, workOnThisThread). */
struct ComputeStamp
{
    Clock::time_point wall { Clock::now() };                        /**< wall clock */
    double cpu { partition::RebalanceTrigger::threadCpuSeconds() }; /**< thread CPU */

    /** @brief Adds the time since the stamp to @p stats (compute and work). */
    void addTo(HeatStats& stats) const
    {
        const double wallSeconds { seconds(wall) };
        stats.compute += wallSeconds;
        stats.work +=
            workOnThisThread ? partition::RebalanceTrigger::threadCpuSeconds() - cpu : wallSeconds;
    }
};

/** @brief The initial temperature at @p p: a hot spot on a smooth background. */
double initial(const Point& p, int dim)
{
    const double dx { p[0] - 0.3 };
    const double dy { p[1] - 0.6 };
    if (dim == 2)
    {
        return std::exp(-(dx * dx + dy * dy) / 0.01) +
               0.5 * std::sin(M_PI * p[0]) * std::sin(M_PI * p[1]);
    }
    const double dz { p[2] - 0.5 };
    return std::exp(-(dx * dx + dy * dy + dz * dz) / 0.01) +
           0.5 * std::sin(M_PI * p[0]) * std::sin(M_PI * p[1]) * std::sin(M_PI * p[2]);
}

Kokkos::View<LocalIndex*> toView(const char* name, std::span<const LocalIndex> cells)
{
    Kokkos::View<LocalIndex*> view(std::string(name), cells.size());
    auto host = Kokkos::create_mirror_view(view);
    for (std::size_t k { 0 }; k < cells.size(); ++k)
    {
        host(k) = cells[k];
    }
    Kokkos::deep_copy(view, host);
    return view;
}
} // namespace

HeatSolver::HeatSolver(const MeshPiece& piece, const HaloLayout& layout)
    : nOwned_(layout.nOwned()), u_("heat::u", layout.nLocal()),
      uNew_("heat::uNew", layout.nLocal()), volume_(sharedView("heat::volume", piece.volumes())),
      faceOffsets_(sharedView("heat::faceOffsets", piece.faceOffsets())),
      faceCell_("heat::faceCell", piece.faceNeighbours().size()),
      faceCoefficient_(sharedView("heat::faceCoefficient", piece.faceCoefficients())),
      extra_("heat::extra", layout.nOwned()), work_("heat::work", layout.nOwned()),
      interior_(toView("heat::interior", layout.interiorCells())),
      boundary_(toView("heat::boundary", layout.boundaryCells()))
{
    FIELDSYNC_CHECK(
        piece.nCells() == layout.nOwned(),
        "HeatSolver: the mesh piece has " + std::to_string(piece.nCells()) +
            " cells, the layout owns " + std::to_string(layout.nOwned())
    );
    // global -> local id: the owned ids are ascending (searched in place), the ghosts sorted
    // apart (a hash map of every cell took about 60 bytes a cell at the set-up's peak)
    const std::span<const GlobalIndex> ownedIds { layout.globalIds().first(nOwned_) };
    FIELDSYNC_CHECK(
        std::is_sorted(ownedIds.begin(), ownedIds.end()),
        "HeatSolver: the layout's owned ids are not ascending"
    );
    std::vector<std::pair<GlobalIndex, LocalIndex>> ghosts;
    ghosts.reserve(layout.nLocal() - nOwned_);
    for (std::size_t i { nOwned_ }; i < layout.nLocal(); ++i)
    {
        ghosts.emplace_back(layout.globalIds()[i], static_cast<LocalIndex>(i));
    }
    std::sort(ghosts.begin(), ghosts.end());
    const auto localOf = [&ownedIds, &ghosts](GlobalIndex id)
    {
        const auto owned { std::lower_bound(ownedIds.begin(), ownedIds.end(), id) };
        if (owned != ownedIds.end() && *owned == id)
        {
            return static_cast<LocalIndex>(owned - ownedIds.begin());
        }
        const auto ghost { std::lower_bound(
            ghosts.begin(),
            ghosts.end(),
            std::pair<GlobalIndex, LocalIndex> { id, LocalIndex { -1 } }
        ) };
        FIELDSYNC_CHECK(
            ghost != ghosts.end() && ghost->first == id,
            "HeatSolver: neighbour " + std::to_string(id) + " is neither owned nor a ghost"
        );
        return ghost->second;
    };
    auto u = Kokkos::create_mirror_view(u_);
    auto faceCell = Kokkos::create_mirror_view(faceCell_);
    Kokkos::deep_copy(u, 0.0);
    for (std::size_t i { 0 }; i < nOwned_; ++i)
    {
        FIELDSYNC_CHECK(
            piece.ids()[i] == layout.globalIds()[i],
            "HeatSolver: owned cell " + std::to_string(i) + " differs between piece and layout"
        );
        u(i) = initial(piece.centroid(i), dimension(piece.shape(i)));
        for (std::size_t f { piece.faceOffsets()[i] }; f < piece.faceOffsets()[i + 1]; ++f)
        {
            const GlobalIndex nb { piece.faceNeighbours()[f] };
            faceCell(f) = nb >= 0 ? localOf(nb) : LocalIndex { -1 };
        }
    }
    Kokkos::deep_copy(u_, u);
    Kokkos::deep_copy(uNew_, u);
    Kokkos::deep_copy(faceCell_, faceCell);
}

HaloLayout HeatSolver::serialLayout(const MeshPiece& whole)
{
    const CellGraph graph { whole.graph() };
    FIELDSYNC_CHECK(graph.isGlobal(), "HeatSolver::serialLayout: needs the whole mesh");
    std::vector<GlobalIndex> ids(graph.globalIds().begin(), graph.globalIds().end());
    std::vector<std::size_t> offsets(graph.offsets().begin(), graph.offsets().end());
    std::vector<LocalIndex> neighbours;
    neighbours.reserve(graph.adjacency().size());
    for (const GlobalIndex n : graph.adjacency())
    {
        neighbours.push_back(static_cast<LocalIndex>(n));
    }
    return HaloLayout(
        graph.nCells(),
        std::move(ids),
        {},
        {},
        std::move(offsets),
        std::move(neighbours),
        halo::RankSimplexCommMap(1),
        halo::RankSimplexCommMap(1),
        0
    );
}

double HeatSolver::localStableTimeStep() const
{
    const auto volume = volume_;
    const auto offsets = faceOffsets_;
    const auto coefficient = faceCoefficient_;
    double dt { std::numeric_limits<double>::max() };
    Kokkos::parallel_reduce(
        "heat::stableTimeStep",
        Kokkos::RangePolicy<>(0, nOwned_),
        KOKKOS_LAMBDA(const std::size_t i, double& smallest) {
            double sum { 0.0 };
            for (std::size_t f { offsets(i) }; f < offsets(i + 1); ++f)
            {
                sum += coefficient(f);
            }
            const double limit { volume(i) / sum };
            smallest = limit < smallest ? limit : smallest;
        },
        Kokkos::Min<double>(dt)
    );
    return dt;
}

void HeatSolver::update(const Kokkos::View<LocalIndex*>& cells, double dt)
{
    const auto u = u_;
    const auto uNew = uNew_;
    const auto volume = volume_;
    const auto offsets = faceOffsets_;
    const auto faceCell = faceCell_;
    const auto coefficient = faceCoefficient_;
    const auto extra = extra_;
    const auto work = work_;
    Kokkos::parallel_for(
        "heat::update",
        Kokkos::RangePolicy<>(0, cells.extent(0)),
        KOKKOS_LAMBDA(const std::size_t k) {
            const auto i = static_cast<std::size_t>(cells(k));
            const double ui { u(i) };
            double sum { 0.0 };
            for (std::size_t f { offsets(i) }; f < offsets(i + 1); ++f)
            {
                const LocalIndex nb { faceCell(f) };
                const double other { nb >= 0 ? u(static_cast<std::size_t>(nb)) : 0.0 };
                sum += coefficient(f) * (other - ui);
            }
            uNew(i) = ui + dt / volume(i) * sum;
            // the moving load: dummy sub-steps whose result goes elsewhere
            double w { ui };
            for (int s { 0 }; s < extra(i); ++s)
            {
                w = 0.999 * w + 0.001 / (1.0 + w * w);
            }
            if (extra(i) > 0)
            {
                work(i) = w;
            }
        }
    );
}

void HeatSolver::updateInterior(halo::Communicator& comm, double dt, std::size_t chunk)
{
    const std::size_t n { interior_.extent(0) };
    if (chunk == 0)
    {
        update(interior_, dt);
        if constexpr (!kernelsOnHost)
        {
            comm.progress(); // the kernel runs on the device meanwhile
        }
        return;
    }
    bool arrived { false }; // once the exchange is complete, no more tests
    for (std::size_t begin { 0 }; begin < n; begin += chunk)
    {
        const std::pair<std::size_t, std::size_t> range { begin, std::min(n, begin + chunk) };
        update(Kokkos::subview(interior_, range), dt);
        Kokkos::fence();
        arrived = arrived || comm.progress(); // the exchange travels while the interior is computed
    }
}

void HeatSolver::commit()
{
    const std::pair<std::size_t, std::size_t> owned { 0, nOwned_ };
    Kokkos::deep_copy(Kokkos::subview(u_, owned), Kokkos::subview(uNew_, owned));
}

std::vector<int> HeatSolver::loadAt(const MeshPiece& piece, const LoadOptions& load, double when)
{
    const double cx { 0.1 + 0.8 * when };
    std::vector<int> extra(piece.nCells(), 0);
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        const double dx { piece.centroid(i)[0] - cx };
        const double dy { piece.centroid(i)[1] - 0.5 };
        extra[i] = dx * dx + dy * dy < load.radius * load.radius ? load.extra : 0;
    }
    return extra;
}

void HeatSolver::setLoad(std::span<const int> extra)
{
    auto host = Kokkos::create_mirror_view(extra_);
    for (std::size_t i { 0 }; i < nOwned_; ++i)
    {
        host(i) = extra[i];
    }
    Kokkos::deep_copy(extra_, host);
}

void HeatSolver::setOwned(const View& field)
{
    const std::pair<std::size_t, std::size_t> owned { 0, nOwned_ };
    Kokkos::deep_copy(Kokkos::subview(u_, owned), Kokkos::subview(field, owned));
    Kokkos::deep_copy(Kokkos::subview(uNew_, owned), Kokkos::subview(field, owned));
}

HeatStats HeatSolver::run(
    halo::Communicator* comm,
    const mpi::MPIEnvironment& env,
    double dt,
    const HeatOptions& options,
    int firstStep
)
{
    HeatStats stats;
    const CommKey key { "heat::u" };
    OverlapTimeline timeline(comm != nullptr ? options.steps : 0);
    if (comm != nullptr)
    {
        comm->setOptions({ .inPlace = options.inPlace, .timing = true }); // its report reads them
        timeline.calibrated(exchangeAlone(*comm, key, u_, env.comm()));
        comm->resetStats(); // the time loop's pack, wait and unpack come from the telemetry
    }
    const auto start = Clock::now();
    for (int step { firstStep }; step < firstStep + options.steps; ++step)
    {
        ComputeStamp t0;
        if (comm != nullptr)
        {
            comm->startComm(u_, key);
            timeline.posted();
            t0 = ComputeStamp {};
            updateInterior(*comm, dt, options.progressChunk);
            Kokkos::fence();
            t0.addTo(stats);
            // Was the exchange entirely hidden behind the interior update? The second test is
            // not a retry loop: MPI libraries such as Open MPI run their progress engine inside
            // a test that finds the requests incomplete and return before looking again, so
            // messages that arrived during the update are only seen by the next test.
            const bool hidden { comm->isComplete(key) || comm->isComplete(key) };
            timeline.interiorEnded(hidden);
            stats.hiddenExchanges += hidden ? 1 : 0;
            comm->waitComplete(key);
            comm->finaliseComm(u_, key);
            t0 = ComputeStamp {};
            update(boundary_, dt);
            ++stats.exchanges;
        }
        else
        {
            update(interior_, dt);
            update(boundary_, dt);
        }
        commit();
        Kokkos::fence();
        t0.addTo(stats);

        if (options.checkEvery > 0 && step % options.checkEvery == 0)
        {
            const auto u = u_;
            const auto volume = volume_;
            double heat { 0.0 };
            double hottest { 0.0 };
            Kokkos::parallel_reduce(
                "heat::totalHeat",
                Kokkos::RangePolicy<>(0, nOwned_),
                KOKKOS_LAMBDA(const std::size_t i, double& sum) { sum += volume(i) * u(i); },
                heat
            );
            Kokkos::parallel_reduce(
                "heat::hottest",
                Kokkos::RangePolicy<>(0, nOwned_),
                KOKKOS_LAMBDA(const std::size_t i, double& m) { m = u(i) > m ? u(i) : m; },
                Kokkos::Max<double>(hottest)
            );
            if (comm != nullptr)
            {
                mpi::allReduce(heat, mpi::ReduceOp::Sum, env.comm());
                mpi::allReduce(hottest, mpi::ReduceOp::Max, env.comm());
            }
            FIELDSYNC_CHECK(
                std::isfinite(heat) && hottest <= 1.6,
                "heat: the solution blew up at step " + std::to_string(step)
            );
            if (options.verbose && env.rank() == 0)
            {
                std::printf("  step %6d   total heat %.10e   max u %.6f\n", step, heat, hottest);
            }
        }
    }
    stats.total = seconds(start);
    if (comm != nullptr && stats.exchanges > 0)
    {
        const halo::ExchangeStats& exchange = comm->stats(key);
        stats.pack = exchange.packSeconds + exchange.postSeconds;
        stats.wait = exchange.waitSeconds;
        stats.unpack = exchange.unpackSeconds;
        const OverlapSplit split { timeline.split(*comm, env) };
        stats.hideableExchanges = split.hideable;
        stats.hiddenHideable = split.hiddenHideable;
        stats.peerLate = split.peerLate;
    }
    return stats;
}

std::vector<double> HeatSolver::ownedValues() const
{
    auto host = Kokkos::create_mirror_view(u_);
    Kokkos::deep_copy(host, u_);
    return std::vector<double>(host.data(), host.data() + nOwned_);
}

namespace
{
/** @brief Collective: the partition's edge cut (global) and imbalance, from the layout. */
void partitionQuality(const mpi::MPIEnvironment& env, DistributedRun& result)
{
    const auto owned = static_cast<LocalIndex>(result.layout.nOwned());
    std::int64_t cut { 0 };
    for (const LocalIndex n : result.layout.ownedNeighbours())
    {
        cut += n >= owned ? 1 : 0;
    }
    std::int64_t cells { static_cast<std::int64_t>(owned) };
    std::int64_t largest { cells };
    mpi::allReduce(cut, mpi::ReduceOp::Sum, env.comm());
    mpi::allReduce(cells, mpi::ReduceOp::Sum, env.comm());
    mpi::allReduce(largest, mpi::ReduceOp::Max, env.comm());
    result.edgeCut = cut / 2; // each cut face is seen from both sides
    result.imbalance =
        cells > 0 ? static_cast<double>(largest) * env.sizeRank() / static_cast<double>(cells)
                  : 1.0;
}

/** @brief Collective: the owned values by global id on rank 0 (empty elsewhere). */
std::vector<double>
gatherField(const mpi::MPIEnvironment& env, const DistributedRun& result, GlobalIndex nCells)
{
    const int nOwned { static_cast<int>(result.owned.size()) };
    std::vector<int> counts(env.rank() == 0 ? rankCount(env) : 0);
    FIELDSYNC_MPI(MPI_Gather(&nOwned, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, env.comm()));
    std::vector<int> displs(counts.size(), 0);
    for (std::size_t r { 1 }; r < counts.size(); ++r)
    {
        displs[r] = displs[r - 1] + counts[r - 1];
    }
    const std::size_t total { env.rank() == 0 ? static_cast<std::size_t>(nCells) : 0 };
    std::vector<GlobalIndex> ids(total);
    std::vector<double> values(total);
    FIELDSYNC_MPI(MPI_Gatherv(
        result.layout.globalIds().data(),
        nOwned,
        MPI_INT64_T,
        ids.data(),
        counts.data(),
        displs.data(),
        MPI_INT64_T,
        0,
        env.comm()
    ));
    FIELDSYNC_MPI(MPI_Gatherv(
        result.owned.data(),
        nOwned,
        MPI_DOUBLE,
        values.data(),
        counts.data(),
        displs.data(),
        MPI_DOUBLE,
        0,
        env.comm()
    ));
    std::vector<double> gathered(total, std::numeric_limits<double>::quiet_NaN());
    for (std::size_t k { 0 }; k < total; ++k)
    {
        gathered[static_cast<std::size_t>(ids[k])] = values[k];
    }
    return gathered;
}
/** @brief Adds one interval's timings and counts to @p total. */
void accumulate(HeatStats& total, const HeatStats& part)
{
    total.compute += part.compute;
    total.work += part.work;
    total.pack += part.pack;
    total.wait += part.wait;
    total.unpack += part.unpack;
    total.hiddenExchanges += part.hiddenExchanges;
    total.hideableExchanges += part.hideableExchanges;
    total.hiddenHideable += part.hiddenHideable;
    total.peerLate += part.peerLate;
    total.total += part.total;
    total.exchanges += part.exchanges;
}

/** @brief Collective: max / mean over the ranks of @p value, and the max. */
std::pair<double, double> maxOverMean(const mpi::MPIEnvironment& env, double value)
{
    double largest { value };
    double sum { value };
    mpi::allReduce(largest, mpi::ReduceOp::Max, env.comm());
    mpi::allReduce(sum, mpi::ReduceOp::Sum, env.comm());
    return { sum > 0.0 ? largest * env.sizeRank() / sum : 1.0, largest };
}

/**
 * @brief The cost model of the moving load, fitted to the measured compute times: time = a *
 * cells + b * sub-steps per rank and interval, least squares over the ranks and every interval
 * so far (the sums of the normal equations, kept); a sub-step weighs b / a cell updates.
 */
class LoadModel
{
public:
    /** @brief The starting weight, until a fit exists. */
    explicit LoadModel(double weight) : weight_(weight) {}

    /** @brief Collective: adds this rank's interval (@p seconds, @p cells, @p subSteps). */
    void add(const mpi::MPIEnvironment& env, double seconds, double cells, double subSteps)
    {
        std::array<double, 5> terms { cells * cells,
                                      cells * subSteps,
                                      subSteps * subSteps,
                                      seconds * cells,
                                      seconds * subSteps };
        mpi::allReduce(std::span<double>(terms), mpi::ReduceOp::Sum, env.comm());
        for (std::size_t i { 0 }; i < terms.size(); ++i)
        {
            sums_[i] += terms[i];
        }
        const double det { sums_[0] * sums_[2] - sums_[1] * sums_[1] };
        // ranks whose sub-steps are proportional to their cells do not tell a from b
        if (det <= 1e-9 * sums_[0] * sums_[2])
        {
            return;
        }
        const double a { (sums_[3] * sums_[2] - sums_[4] * sums_[1]) / det };
        const double b { (sums_[0] * sums_[4] - sums_[1] * sums_[3]) / det };
        if (a > 0.0 && b > 0.0)
        {
            weight_ = b / a;
        }
    }

#if FIELDSYNC_HAVE_ZOLTAN // only the Zoltan build rebalances (nvcc warns of an unused member)
    /** @brief The cost of one sub-step in cell updates. */
    [[nodiscard]] double weight() const noexcept
    {
        return weight_;
    }
#endif

private:
    double weight_;                 /**< b / a of the last fit, or the starting value */
    std::array<double, 5> sums_ {}; /**< sum c^2, c k, k^2, t c, t k over ranks and intervals */
};

/** @brief What a distributed run replaces when it rebalances. */
struct RankState
{
    halo::Communicator comm;            /**< halo exchange of the current layout */
    std::unique_ptr<HeatSolver> solver; /**< the solver on the current layout */
};

#if FIELDSYNC_HAVE_ZOLTAN
/**
 * @brief Collective: rebalances for the load at time fraction @p when with Zoltan, migrates u,
 * rebuilds the layout, the Communicator, the mesh piece and the solver, and prints the report
 * (rank 0) with the compute imbalance @p measured that triggered it. Returns what it cost
 * (seconds: partition, migration and both rebuilds, each the slowest rank's).
 */
double rebalance(
    const mpi::MPIEnvironment& env,
    const MeshSource& source,
    const HeatOptions& options,
    double when,
    double measured,
    double subStepWeight,
    DistributedRun& result,
    RankState& state
)
{
    const std::vector<int> extra { HeatSolver::loadAt(result.piece, options.load, when) };
    std::vector<double> weights(extra.size());
    std::vector<std::array<double, 3>> centroids(extra.size());
    int dim { 2 };
    for (std::size_t i { 0 }; i < extra.size(); ++i)
    {
        weights[i] = 1.0 + subStepWeight * extra[i];
        centroids[i] = result.piece.centroid(i);
        dim = std::max(dim, dimension(result.piece.shape(i)));
    }
    mpi::allReduce(dim, mpi::ReduceOp::Max, env.comm());
    HeatSolver::View u { state.solver->field() };
    const partition::Rebalancer rebalancer(env, { options.load.method });
    partition::Rebalanced moved { rebalancer.rebalance(result.layout, weights, centroids, dim, u) };
    const auto start = Clock::now();
    result.layout = std::move(moved.layout);
    state.comm = std::move(moved.communicator);
    state.solver.reset(); // it uses the old piece's arrays (sharedView)
    result.piece = source.piece(result.layout.globalIds().first(result.layout.nOwned()));
    state.solver = std::make_unique<HeatSolver>(result.piece, result.layout);
    state.solver->setOwned(u);
    double setUp { seconds(start) };
    mpi::allReduce(setUp, mpi::ReduceOp::Max, env.comm());
    const partition::RebalanceReport& r { moved.report };
    if (options.verbose && env.rank() == 0)
    {
        std::printf(
            "  rebalance (%s): compute imbalance %.3f; sub-step weight %.3f; weight imbalance %.3f "
            "-> %.3f; %lld cells moved; partition %.4f s, migration %.4f s, rebuild halo %.4f s "
            "+ solver %.4f s\n",
            partition::toString(options.load.method).c_str(),
            measured,
            subStepWeight,
            r.imbalanceBefore,
            r.imbalanceAfter,
            static_cast<long long>(r.cellsMoved),
            r.partitionSeconds,
            r.migrationSeconds,
            r.rebuildSeconds,
            setUp
        );
    }
    return r.partitionSeconds + r.migrationSeconds + r.rebuildSeconds + setUp;
}
#endif

/**
 * @brief The steps a rebalance's gain is predicted over: options.load.horizon, or by default
 * those in which the disc moves by its radius (from x = 0.1 to 0.9 over the run), which the
 * trigger extends while the imbalance persists; decide() caps it at the steps left in the run
 * (a gain after its end is none).
 */
int horizonSteps(const HeatOptions& options)
{
    const LoadOptions& load { options.load };
    return load.horizon > 0 ? load.horizon
                            : std::max(1, static_cast<int>(options.steps * load.radius / 0.8));
}

/** @brief Prints (rank 0, verbose) one interval's imbalance and the decision, if one was made. */
void printInterval(
    const mpi::MPIEnvironment& env,
    const HeatOptions& options,
    int first,
    int steps,
    double imbalance,
    const partition::RebalanceDecision* decision
)
{
    if (!options.verbose || env.rank() != 0)
    {
        return;
    }
    std::printf(
        "  steps %d-%d: compute imbalance %.3f (max/mean over ranks)",
        first,
        first + steps - 1,
        imbalance
    );
    if (decision != nullptr)
    {
        std::printf(
            "; gain %.3g s over %d steps (imbalance lasted %d) against the %s cost %.3g s: %s",
            decision->gainSeconds,
            decision->horizon,
            decision->persistedSteps,
            decision->measuredCost ? "measured" : "estimated",
            decision->costSeconds,
            decision->rebalance ? "rebalance" : "keep"
        );
    }
    std::printf("\n");
}

/**
 * @brief Collective: the time loop in intervals of options.load.interval steps (one interval
 * without a load or rebalancing); each interval sets the moving load and measures each rank's
 * work, and with options.load.rebalance a partition::RebalanceTrigger decides whether a
 * rebalance pays (its first cost estimate: @p repeatedSeconds, the set-up steps a rebalance
 * repeats, unless the options give one). The
 * rebalances' cost is part of the loop's time.
 */
HeatStats runIntervals(
    const mpi::MPIEnvironment& env,
    const MeshSource& source,
    const HeatOptions& options,
    double repeatedSeconds,
    DistributedRun& result,
    RankState& state
)
{
    const LoadOptions& load { options.load };
    const bool intervals { load.extra > 0 || load.rebalance };
    const int every { intervals ? std::max(1, load.interval) : std::max(1, options.steps) };
    HeatStats total;
    LoadModel model { load.subStepWeight };
    partition::RebalanceTrigger trigger(
        env,
        { .costEstimate = load.costEstimate >= 0.0 ? load.costEstimate : repeatedSeconds,
          .extendWhilePersisting = load.horizon == 0,
          .nodeCores = load.nodeCores }
    );
    double paid { -1.0 };         // what the last rebalance cost, until the next interval reports
    double slowestBefore { 0.0 }; // the slowest rank's compute per step before it
    for (int first { 1 }; first <= options.steps; first += every)
    {
        HeatOptions part { options };
        part.steps = std::min(every, options.steps - first + 1);
        const double when { (first - 1 + 0.5 * part.steps) / options.steps };
        const std::vector<int> extra { HeatSolver::loadAt(result.piece, load, when) };
        state.solver->setLoad(extra);
        const HeatStats s { state.solver->run(&state.comm, env, result.dt, part, first) };
        accumulate(total, s);
        const auto [imbalance, slowest] { maxOverMean(env, s.work) };
        const double perStep { slowest / part.steps };
        if (load.extra > 0)
        {
            const std::size_t owned { result.layout.nOwned() };
            const double subSteps { std::accumulate(
                extra.begin(), extra.begin() + static_cast<std::ptrdiff_t>(owned), 0.0
            ) };
            model.add(env, s.work, static_cast<double>(owned) * part.steps, subSteps * part.steps);
        }
        trigger.addInterval(s.work, part.steps);
        const int remaining { options.steps - (first + part.steps - 1) };
        const std::optional<partition::RebalanceDecision> decision {
            load.rebalance && remaining > 0
                ? std::optional { trigger.decide(horizonSteps(options), remaining) }
                : std::nullopt
        };
        if (intervals)
        {
            printInterval(
                env, options, first, part.steps, imbalance, decision ? &*decision : nullptr
            );
        }
        if (paid >= 0.0 && options.verbose && env.rank() == 0) // the interval after a rebalance
        {
            std::printf(
                "  after the rebalance: slowest rank's work %.3g s per step (was %.3g s): "
                "saves %.4f s over these %d steps, against %.4f s the rebalance cost\n",
                perStep,
                slowestBefore,
                (slowestBefore - perStep) * part.steps,
                part.steps,
                paid
            );
        }
        paid = -1.0;
        if (decision && decision->rebalance)
        {
#if FIELDSYNC_HAVE_ZOLTAN
            const double next { (first - 1 + part.steps + 0.5 * every) / options.steps };
            paid = rebalance(
                env, source, options, std::min(next, 1.0), imbalance, model.weight(), result, state
            );
            trigger.rebalanced(paid);
            total.total += paid;
            result.rebalanceSeconds += paid;
            slowestBefore = perStep;
            ++result.rebalances;
#else
            (void)source;
            throw Error("fieldsync-heat: rebalancing needs Zoltan (FIELDSYNC_WITH_ZOLTAN=OFF)");
#endif
        }
    }
    return total;
}
} // namespace

DistributedRun solveDistributed(
    const mpi::MPIEnvironment& env, const MeshSource& source, const HeatOptions& options
)
{
    DistributedRun result;
    const auto setUpStart = Clock::now();
    PartitionedMesh mesh { partitionMesh(env, source, options.partitioner) };
    result.piece = std::move(mesh.piece);
    result.layout = std::move(mesh.layout);
    const auto solverStart = Clock::now();
    RankState state { halo::Communicator(env, result.layout.sendMap(), result.layout.receiveMap()),
                      std::make_unique<HeatSolver>(result.piece, result.layout) };
    // the set-up steps a rebalance repeats (moving ids to their owners, the owned cells, the
    // halo, the Communicator and the solver) predict its cost until one is made; the slab and
    // its partition are left out: a rebalance's own partition replaces them
    std::array<double, 2> setUp { seconds(setUpStart),
                                  mesh.repeatedSeconds + seconds(solverStart) };
    mpi::allReduce(std::span<double>(setUp), mpi::ReduceOp::Max, env.comm());
    if (options.verbose && env.rank() == 0)
    {
        std::printf(
            "set-up %.3f s, of which a rebalance repeats %.3f s (its first cost estimate)\n",
            setUp[0],
            setUp[1]
        );
    }
    double dt { state.solver->localStableTimeStep() };
    mpi::allReduce(dt, mpi::ReduceOp::Min, env.comm());
    result.dt = options.cfl * dt;
    result.stats = runIntervals(env, source, options, setUp[1], result, state);
    partitionQuality(env, result); // of the final partition (after any rebalancing)
    if (!options.statsFile.empty())
    {
        state.comm.writeStats(options.statsFile); // collective: rank 0 writes every rank's keys
    }
    result.owned = state.solver->ownedValues();
    result.peakKiB = peakResidentKiB();
    if (options.gather)
    {
        result.gathered = gatherField(env, result, source.nCells());
    }
    return result;
}

std::vector<double> solveSerial(const MeshSource& source, double dt, const HeatOptions& options)
{
    std::vector<GlobalIndex> all(static_cast<std::size_t>(source.nCells()));
    for (std::size_t c { 0 }; c < all.size(); ++c)
    {
        all[c] = static_cast<GlobalIndex>(c);
    }
    const MeshPiece whole { source.piece(all) };
    HeatSolver solver(whole, HeatSolver::serialLayout(whole));
    HeatOptions quiet { options };
    quiet.verbose = false;
    const mpi::MPIEnvironment self { MPI_COMM_SELF };
    (void)solver.run(nullptr, self, dt, quiet);
    return solver.ownedValues();
}

long peakResidentKiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::stol(line.substr(6));
        }
    }
    return 0;
}

} // namespace fieldsync::heat
