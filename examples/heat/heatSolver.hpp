// SPDX-License-Identifier: MIT
#pragma once

#include "meshPartition.hpp"
#include "meshSource.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/haloLayout.hpp"
#include "fieldsync/partition/rebalancer.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace fieldsync::heat
{

using partition::HaloLayout;

/** @brief Whether the solver's kernels run on the host (synchronously), not on a device. */
inline constexpr bool kernelsOnHost {
    std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>
};

/**
 * @brief Whether the solver's kernels run on the calling thread (Kokkos::Serial): then the work
 * the rebalancing weighs is the thread CPU time of the compute, which a rank sharing its core
 * does not inflate (partition::RebalanceTrigger). Elsewhere (threads, a device) this thread's
 * CPU time misses the work, and the wall time of the compute is used.
 */
inline constexpr bool workOnThisThread {
#ifdef KOKKOS_ENABLE_SERIAL
    std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Serial>
#else
    false
#endif
};

/**
 * @brief The default interior chunk between Communicator::progress() calls: 2048 cells where
 * the solver's kernels run on the host (each chunk is a synchronous loop, and the exchange moves
 * between chunks); 0, one update, where they run on a device. There every chunk would be a
 * kernel launch and a fence, which made the whole run many times slower (doc/notes/gpu.md), and one
 * update already runs asynchronously: the solver calls progress() once while the kernel runs.
 */
inline constexpr std::size_t defaultProgressChunk { kernelsOnHost ? 2048 : 0 };

/**
 * @brief The moving load and the dynamic load balancing: cells inside a disc (a cylinder
 * along z in 3-D) of radius @p radius, whose centre moves from x = 0.1 to 0.9 at y = 0.5 over
 * the run, do @p extra sub-steps of dummy work per step that do not change the result.
 */
struct LoadOptions
{
    int extra { 0 };          /**< dummy sub-steps per loaded cell and step (0: no load) */
    double radius { 0.15 };   /**< disc radius */
    int interval { 50 };      /**< steps between imbalance measurements */
    bool rebalance { false }; /**< rebalance when partition::RebalanceTrigger says it pays */
    /**
     * @brief Steps the gain of a rebalance is predicted over (0: the steps in which the disc
     * moves by its radius, extended while the imbalance persists:
     * partition::RebalanceTriggerOptions::extendWhilePersisting).
     */
    int horizon { 0 };
    /**
     * @brief The cost of a rebalance before one is measured, seconds (< 0: the time of the
     * set-up steps a rebalance repeats: moving the ids, the owned cells, the halo, the solver).
     */
    double costEstimate { -1.0 };
    /**
     * @brief The cores the ranks of one node may run on, for the gain's rule
     * (partition::RebalanceTriggerOptions::nodeCores; 0: the union of their affinity masks).
     */
    int nodeCores { 0 };
    partition::RebalanceMethod method { partition::RebalanceMethod::Hsfc }; /**< Zoltan method */
    /**
     * @brief Cost of one sub-step relative to a cell update, the weights' starting value; each
     * interval refits it to the measured compute times (least squares over the ranks and the
     * intervals so far of time = a * cells + b * sub-steps; weight = b / a).
     */
    double subStepWeight { 1.0 };
};

/** @brief Settings of a heat run. */
struct HeatOptions
{
    PartitionerKind partitioner { PartitionerKind::Metis }; /**< how cells are split */
    bool gather { true };   /**< gather the final field on rank 0 (for verification) */
    int steps { 400 };      /**< time steps */
    int checkEvery { 100 }; /**< global total-heat check every so many steps (0: never) */
    double cfl { 0.45 };    /**< fraction of the stable explicit time step */
    bool inPlace { true };  /**< Communicator receives contiguous ghosts in place */
    bool verbose { false }; /**< rank 0 prints the global checks */
    std::string statsFile;  /**< when set, the Communicator's per-key telemetry (JSON) goes here */
    /**
     * @brief Interior cells per chunk between progress() calls (0: one update). With one update,
     * a peer's send under Open MPI completes only at this rank's next MPI call, so half the
     * exchanges waited (doc/example.md, "Overlap"). The default is defaultProgressChunk: chunks
     * on a host execution space, one update on a device.
     */
    std::size_t progressChunk { defaultProgressChunk };
    LoadOptions load; /**< moving load and rebalancing */
};

/** @brief Where one rank's time went (seconds) and what it exchanged. */
struct HeatStats
{
    double compute { 0 };      /**< interior and boundary updates */
    double work { 0 };         /**< the same, as the rebalancing measures it (workOnThisThread) */
    double pack { 0 };         /**< startComm: pack and post (Communicator stats) */
    double wait { 0 };         /**< waiting for the messages (Communicator stats) */
    double unpack { 0 };       /**< finaliseComm: unpack and release (Communicator stats) */
    int hiddenExchanges { 0 }; /**< exchanges already complete when the interior update ended */
    /**
     * @brief Exchanges whose peers all posted at least the exchange's own time before the
     * interior update ended (the interior work was longer than the exchange:
     * OverlapTimeline), and of those the ones complete when it ended: the transport hidden.
     */
    int hideableExchanges { 0 };
    int hiddenHideable { 0 }; /**< of the hideable exchanges, those complete (hidden) */
    double peerLate { 0 };    /**< waits for peers that had not posted yet (load imbalance), s */
    double total { 0 };       /**< the whole time loop */
    int exchanges { 0 };      /**< halo exchanges in the loop */
};

/**
 * @brief Explicit finite-volume diffusion du/dt = div(grad u) on an unstructured mesh (2-D or
 * 3-D), u = 0 on the boundary, on one rank's cells (owned plus ghosts, as a HaloLayout numbers
 * them).
 *
 * The update of a cell sums its face fluxes in the mesh's face order, which does not
 * depend on the partition, so every rank count gives bitwise the same field as one rank.
 * Each step: start the halo exchange of u, update the interior cells while it travels, finish
 * it, update the cells next to the partition boundary.
 */
class HeatSolver
{
public:
    /** @brief Kokkos views in the default execution space. */
    using View = Kokkos::View<double*>;

    /**
     * @brief The solver for the cells of @p layout, whose owned cells are the cells of
     * @p piece in the same order; u starts as a known function of the centroid. Where the
     * kernels run on the host, the solver uses the piece's volumes, face offsets and face
     * coefficients in place (sharedView(): 40 bytes a triangle not copied), so @p piece must
     * outlive the solver, unchanged.
     */
    HeatSolver(const MeshPiece& piece, const HaloLayout& layout);

    /** @brief A layout owning every cell of @p whole, a piece holding the whole mesh. */
    static HaloLayout serialLayout(const MeshPiece& whole);

    /** @brief The largest stable time step over this rank's owned cells. */
    [[nodiscard]] double localStableTimeStep() const;

    /**
     * @brief Runs @p options.steps steps of size @p dt. @p comm is null for a serial run;
     * @p env gives the ranks for the global checks.
     */
    HeatStats
    run(halo::Communicator* comm,
        const mpi::MPIEnvironment& env,
        double dt,
        const HeatOptions& options,
        int firstStep = 1);

    /**
     * @brief The moving load at time fraction @p when (0: start, 1: end of the run): the
     * dummy sub-steps of each owned cell of @p piece (the solver's cells).
     */
    [[nodiscard]] static std::vector<int>
    loadAt(const MeshPiece& piece, const LoadOptions& load, double when);

    /** @brief Sets the dummy sub-steps of each owned cell (loadAt()). */
    void setLoad(std::span<const int> extra);

    /** @brief Sets the owned values from the owned rows of @p field (a migrated u). */
    void setOwned(const View& field);

    /** @brief The owned cells' values, on the host. */
    [[nodiscard]] std::vector<double> ownedValues() const;

    /** @brief The field (owned then ghost cells). */
    [[nodiscard]] View field() const { return u_; }

    /**
     * @brief uNew = u + dt/A * sum of face fluxes, for the cells in @p cells. Public only
     * because nvcc rejects a KOKKOS_LAMBDA in a private or protected member function.
     */
    void update(const Kokkos::View<LocalIndex*>& cells, double dt);

    /**
     * @brief update() of the interior cells, in chunks of @p chunk cells with
     * Communicator::progress() between them (one update when 0; on a device execution space,
     * where the update runs asynchronously, followed by one progress() while it runs).
     */
    void updateInterior(halo::Communicator& comm, double dt, std::size_t chunk);

private:
    /** @brief Copies the owned part of uNew into u. */
    void commit();

    std::size_t nOwned_;                           /**< owned cells */
    View u_;                                       /**< field, owned + ghosts */
    View uNew_;                                    /**< next field, owned part used */
    Kokkos::View<const double*> volume_;           /**< owned cell volumes (areas in 2-D) */
    Kokkos::View<const std::size_t*> faceOffsets_; /**< CSR offsets of the owned cells' faces */
    Kokkos::View<LocalIndex*> faceCell_;           /**< per face: local neighbour or -1 */
    Kokkos::View<const double*> faceCoefficient_;  /**< per face: |face| / distance */
    Kokkos::View<int*> extra_;                     /**< dummy sub-steps per owned cell */
    View work_;                                    /**< where the dummy work goes */
    Kokkos::View<LocalIndex*> interior_;           /**< owned cells without ghost neighbours */
    Kokkos::View<LocalIndex*> boundary_;           /**< owned cells with a ghost neighbour */
};

/** @brief A distributed run and what it leaves on this rank. */
struct DistributedRun
{
    HaloLayout layout;             /**< this rank's cells */
    std::vector<double> owned;     /**< final owned values, layout order */
    std::vector<double> gathered;  /**< the whole field by global id (root, options.gather) */
    MeshPiece piece;               /**< this rank's owned cells with their geometry */
    HeatStats stats;               /**< this rank's timings */
    double dt { 0 };               /**< the time step used */
    long peakKiB { 0 };            /**< this rank's peak resident memory after the run */
    int rebalances { 0 };          /**< how many times the load was rebalanced */
    double rebalanceSeconds { 0 }; /**< what they cost (slowest rank; in stats.total too) */
    std::int64_t edgeCut { 0 };    /**< faces between cells of different ranks (global) */
    double imbalance { 1.0 };      /**< largest owned cell count / mean (global) */
};

/**
 * @brief Collective: each rank makes its slab of @p source's cells, the slabs' graph is
 * partitioned (options.partitioner), each rank makes the cells it then owns, HaloBuilder's
 * distributed path builds the halo, the solver runs and, with options.gather, the field is
 * gathered on rank 0. No rank makes more than its own cells and their neighbours, except that
 * the METIS path gathers the graph (not the geometry) on rank 0.
 */
DistributedRun solveDistributed(
    const mpi::MPIEnvironment& env, const MeshSource& source, const HeatOptions& options
);

/** @brief The serial reference: the same scheme on one rank, all cells owned. */
std::vector<double> solveSerial(const MeshSource& source, double dt, const HeatOptions& options);

/** @brief This process's peak resident memory (VmHWM of /proc/self/status) in KiB, 0 if unknown. */
long peakResidentKiB();

} // namespace fieldsync::heat
