// SPDX-License-Identifier: MIT
#pragma once

#include "triMesh.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/haloLayout.hpp"

#include <Kokkos_Core.hpp>

#include <vector>

namespace fieldsync::heat
{

using partition::HaloLayout;

/** @brief Settings of a heat run. */
struct HeatOptions
{
    int steps { 400 };      /**< time steps */
    int checkEvery { 100 }; /**< global total-heat check every so many steps (0: never) */
    double cfl { 0.45 };    /**< fraction of the stable explicit time step */
    bool inPlace { true };  /**< Communicator receives contiguous ghosts in place */
    bool verbose { false }; /**< rank 0 prints the global checks */
};

/** @brief Where one rank's time went (seconds) and what it exchanged. */
struct HeatStats
{
    double compute { 0 };      /**< interior and boundary updates */
    double pack { 0 };         /**< startComm: pack and post (Communicator stats) */
    double wait { 0 };         /**< waiting for the messages (Communicator stats) */
    double unpack { 0 };       /**< finaliseComm: unpack and release (Communicator stats) */
    int hiddenExchanges { 0 }; /**< exchanges already complete when the interior update ended */
    double total { 0 };        /**< the whole time loop */
    int exchanges { 0 };       /**< halo exchanges in the loop */
};

/**
 * @brief Explicit finite-volume diffusion du/dt = div(grad u) on a TriMesh, u = 0 on the
 * boundary, on one rank's cells (owned plus ghosts, as a HaloLayout numbers them).
 *
 * The update of a cell sums its three face fluxes in the mesh's face order, which does not
 * depend on the partition, so every rank count gives bitwise the same field as one rank.
 * Each step: start the halo exchange of u, update the interior cells while it travels, finish
 * it, update the cells next to the partition boundary.
 */
class HeatSolver
{
public:
    /** @brief Kokkos views in the default execution space. */
    using View = Kokkos::View<double*>;

    /** @brief The solver for the cells of @p layout; u starts as a known function. */
    HeatSolver(const TriMesh& mesh, const HaloLayout& layout);

    /** @brief A layout owning every cell of @p mesh (the serial reference). */
    static HaloLayout serialLayout(const TriMesh& mesh);

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
        const HeatOptions& options);

    /** @brief The owned cells' values, on the host. */
    [[nodiscard]] std::vector<double> ownedValues() const;

    /** @brief The field (owned then ghost cells). */
    [[nodiscard]] View field() const { return u_; }

    /**
     * @brief uNew = u + dt/A * sum of face fluxes, for the cells in @p cells. Public only
     * because nvcc rejects a KOKKOS_LAMBDA in a private or protected member function.
     */
    void update(const Kokkos::View<LocalIndex*>& cells, double dt);

private:
    /** @brief Copies the owned part of uNew into u. */
    void commit();

    std::size_t nOwned_;                 /**< owned cells */
    View u_;                             /**< field, owned + ghosts */
    View uNew_;                          /**< next field, owned part used */
    View area_;                          /**< owned cell areas */
    Kokkos::View<LocalIndex*> faceCell_; /**< 3 per owned cell: local neighbour or -1 */
    View faceCoefficient_;               /**< 3 per owned cell: |face| / distance */
    Kokkos::View<LocalIndex*> interior_; /**< owned cells without ghost neighbours */
    Kokkos::View<LocalIndex*> boundary_; /**< owned cells with a ghost neighbour */
};

/** @brief A distributed run and what it leaves on this rank. */
struct DistributedRun
{
    HaloLayout layout;            /**< this rank's cells */
    std::vector<double> owned;    /**< final owned values, layout order */
    std::vector<double> gathered; /**< the whole field by global id (root only) */
    std::vector<int> partition;   /**< the partition vector (root only) */
    HeatStats stats;              /**< this rank's timings */
    double dt { 0 };              /**< the time step used */
};

/**
 * @brief Collective: partitions @p mesh (METIS on rank 0, scattered), builds the halo with
 * HaloBuilder's distributed path, runs the solver and gathers the field on rank 0.
 */
DistributedRun
solveDistributed(const mpi::MPIEnvironment& env, const TriMesh& mesh, const HeatOptions& options);

/** @brief The serial reference: the same scheme on one rank, all cells owned. */
std::vector<double> solveSerial(const TriMesh& mesh, double dt, const HeatOptions& options);

} // namespace fieldsync::heat
