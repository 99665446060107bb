// SPDX-License-Identifier: MIT
#include "fieldsync/partition/rebalancer.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#include "fieldsync/partition/haloBuilder.hpp"

#include <zoltan.h>

#include <algorithm>
#include <array>
#include <mutex>

namespace fieldsync::partition
{

namespace
{
using Clock = std::chrono::steady_clock;

/** @brief What repartition() moves with each cell: its weight and where it came from. */
struct MovedRow
{
    double weight { 0.0 };  /**< the cell's weight */
    int rank { 0 };         /**< the rank that owned it before */
    LocalIndex index { 0 }; /**< its owned index there */
};

/** @brief What Zoltan's query functions read: one rank's cells. */
struct ZoltanInput
{
    const HaloLayout* layout { nullptr };             /**< cells and neighbours */
    std::span<const double> weights;                  /**< weight per owned cell */
    std::span<const std::array<double, 3>> centroids; /**< centroid per owned cell */
    int dimension { 3 };                              /**< coordinates used */
    int rank { 0 };                                   /**< this rank */
};

/** @brief A 64-bit global id as Zoltan's two 32-bit id entries (NUM_GID_ENTRIES = 2). */
void toZoltan(GlobalIndex id, ZOLTAN_ID_PTR out)
{
    const auto bits = static_cast<std::uint64_t>(id);
    out[0] = static_cast<ZOLTAN_ID_TYPE>(bits & 0xffffffffU);
    out[1] = static_cast<ZOLTAN_ID_TYPE>(bits >> 32U);
}

int numObjects(void* data, int* ierr)
{
    *ierr = ZOLTAN_OK;
    return static_cast<int>(static_cast<ZoltanInput*>(data)->layout->nOwned());
}

void objectList(
    void* data, int, int, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int, float* weights, int* ierr
)
{
    const auto& in = *static_cast<ZoltanInput*>(data);
    for (std::size_t i { 0 }; i < in.layout->nOwned(); ++i)
    {
        toZoltan(in.layout->globalIds()[i], gids + 2 * i);
        lids[i] = static_cast<ZOLTAN_ID_TYPE>(i);
        weights[i] = static_cast<float>(in.weights[i]);
    }
    *ierr = ZOLTAN_OK;
}

int numGeometry(void* data, int* ierr)
{
    *ierr = ZOLTAN_OK;
    return static_cast<ZoltanInput*>(data)->dimension;
}

void geometry(
    void* data, int, int, int n, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR lids, int dim, double* xyz, int* ierr
)
{
    const auto& in = *static_cast<ZoltanInput*>(data);
    for (int k { 0 }; k < n; ++k)
    {
        const auto& c = in.centroids[lids[k]];
        std::copy(c.begin(), c.begin() + dim, xyz + static_cast<std::ptrdiff_t>(k) * dim);
    }
    *ierr = ZOLTAN_OK;
}

void numEdges(void* data, int, int, int n, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR lids, int* edges, int* ierr)
{
    const auto& in = *static_cast<ZoltanInput*>(data);
    for (int k { 0 }; k < n; ++k)
    {
        edges[k] = static_cast<int>(in.layout->neighbours(lids[k]).size());
    }
    *ierr = ZOLTAN_OK;
}

void edgeList(
    void* data,
    int,
    int,
    int n,
    ZOLTAN_ID_PTR,
    ZOLTAN_ID_PTR lids,
    int*,
    ZOLTAN_ID_PTR neighbourIds,
    int* neighbourRanks,
    int,
    float*,
    int* ierr
)
{
    const auto& in = *static_cast<ZoltanInput*>(data);
    const auto nOwned = static_cast<LocalIndex>(in.layout->nOwned());
    std::size_t e { 0 };
    for (int k { 0 }; k < n; ++k)
    {
        for (const LocalIndex nb : in.layout->neighbours(lids[k]))
        {
            toZoltan(in.layout->globalIds()[static_cast<std::size_t>(nb)], neighbourIds + 2 * e);
            neighbourRanks[e++] =
                nb < nOwned ? in.rank
                            : in.layout->ghostOwners()[static_cast<std::size_t>(nb - nOwned)];
        }
    }
    *ierr = ZOLTAN_OK;
}

/** @brief Zoltan's parameters for @p options (repartitioning, 64-bit ids, one weight). */
void setParameters(Zoltan_Struct* zz, const RebalanceOptions& options)
{
    const std::string method { options.method == RebalanceMethod::Graph  ? "GRAPH"
                               : options.method == RebalanceMethod::Hsfc ? "HSFC"
                                                                         : "RCB" };
    Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
    Zoltan_Set_Param(zz, "LB_METHOD", method.c_str());
    Zoltan_Set_Param(zz, "LB_APPROACH", "REPARTITION");
    Zoltan_Set_Param(zz, "GRAPH_PACKAGE", "PHG");
    Zoltan_Set_Param(zz, "NUM_GID_ENTRIES", "2");
    Zoltan_Set_Param(zz, "NUM_LID_ENTRIES", "1");
    Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
    Zoltan_Set_Param(zz, "EDGE_WEIGHT_DIM", "0");
    Zoltan_Set_Param(zz, "RETURN_LISTS", "EXPORT");
    Zoltan_Set_Param(zz, "IMBALANCE_TOL", std::to_string(options.imbalanceTolerance).c_str());
    Zoltan_Set_Param(zz, "PHG_REPART_MULTIPLIER", std::to_string(options.migrationCost).c_str());
    Zoltan_Set_Param(zz, "KEEP_CUTS", "0");
}

/** @brief Registers the query functions on @p zz for @p input. */
void setQueries(Zoltan_Struct* zz, ZoltanInput& input, RebalanceMethod method)
{
    Zoltan_Set_Num_Obj_Fn(zz, numObjects, &input);
    Zoltan_Set_Obj_List_Fn(zz, objectList, &input);
    if (method == RebalanceMethod::Graph)
    {
        Zoltan_Set_Num_Edges_Multi_Fn(zz, numEdges, &input);
        Zoltan_Set_Edge_List_Multi_Fn(zz, edgeList, &input);
    }
    else
    {
        Zoltan_Set_Num_Geom_Fn(zz, numGeometry, &input);
        Zoltan_Set_Geom_Multi_Fn(zz, geometry, &input);
    }
}

/** @brief "" or what is wrong with one rank's input (naming the cell or the sizes). */
std::string badInput(
    const HaloLayout& layout,
    std::span<const double> weights,
    std::span<const std::array<double, 3>> centroids,
    int dimension,
    bool geometric
)
{
    const std::string sizes { std::to_string(weights.size()) + " weights and " +
                              std::to_string(centroids.size()) + " centroids for " +
                              std::to_string(layout.nOwned()) + " owned cells" };
    if (weights.size() != layout.nOwned() || (geometric && centroids.size() != layout.nOwned()))
    {
        return "Rebalancer::newOwners: " + sizes;
    }
    if (geometric && dimension != 2 && dimension != 3)
    {
        return "Rebalancer::newOwners: dimension " + std::to_string(dimension) + ", not 2 or 3";
    }
    for (std::size_t i { 0 }; i < weights.size(); ++i)
    {
        if (!(weights[i] > 0.0))
        {
            std::string message { "Rebalancer::newOwners: cell " };
            message.append(std::to_string(layout.globalIds()[i]))
                .append(" has weight ")
                .append(std::to_string(weights[i]))
                .append(" (weights must be > 0)");
            return message;
        }
    }
    return {};
}

/** @brief Collective: max / mean over ranks of @p local. */
double maxOverMean(double local, MPI_Comm comm, int nRanks)
{
    double largest { local };
    double sum { local };
    mpi::allReduce(largest, mpi::ReduceOp::Max, comm);
    mpi::allReduce(sum, mpi::ReduceOp::Sum, comm);
    return sum > 0.0 ? largest * nRanks / sum : 1.0;
}

/** @brief Collective: the slowest rank's seconds since @p start. */
double slowest(Clock::time_point start, MPI_Comm comm)
{
    double s { std::chrono::duration<double>(Clock::now() - start).count() };
    mpi::allReduce(s, mpi::ReduceOp::Max, comm);
    return s;
}
} // namespace

Rebalancer::Rebalancer(mpi::MPIEnvironment env, RebalanceOptions options)
    : env_(std::move(env)), options_(options)
{
    static std::once_flag initialised;
    std::call_once(
        initialised,
        []
        {
            float version { 0.0F };
            Zoltan_Initialize(0, nullptr, &version);
        }
    );
}

std::vector<int> Rebalancer::newOwners(
    const HaloLayout& layout,
    std::span<const double> weights,
    std::span<const std::array<double, 3>> centroids,
    int dimension,
    std::source_location where
) const
{
    const bool geometric { options_.method != RebalanceMethod::Graph };
    const std::array<std::int64_t, 2> agreed { static_cast<std::int64_t>(options_.method),
                                               dimension };
    mpi::agreeOnSetUp(
        env_.comm(), mpi::detail::SetUpCall::Rebalance, where, agreed, "method, dimension"
    );
    mpi::raiseIfAnyFailed(
        env_.comm(), badInput(layout, weights, centroids, dimension, geometric), where
    );
    ZoltanInput input { &layout, weights, centroids, dimension, env_.rank() };
    // Zoltan_Create duplicates the communicator: Zoltan's messages travel on a private one
    Zoltan_Struct* zz { Zoltan_Create(env_.comm()) };
    FIELDSYNC_CHECK_AT(zz != nullptr, "Rebalancer::newOwners: Zoltan_Create failed", where);
    setParameters(zz, options_);
    setQueries(zz, input, options_.method);
    int changes { 0 };
    int gidEntries { 0 };
    int lidEntries { 0 };
    int nImport { 0 };
    int nExport { 0 };
    ZOLTAN_ID_PTR importGids { nullptr };
    ZOLTAN_ID_PTR importLids { nullptr };
    int* importRanks { nullptr };
    int* importParts { nullptr };
    ZOLTAN_ID_PTR exportGids { nullptr };
    ZOLTAN_ID_PTR exportLids { nullptr };
    int* exportRanks { nullptr };
    int* exportParts { nullptr };
    const int rc { Zoltan_LB_Partition(
        zz,
        &changes,
        &gidEntries,
        &lidEntries,
        &nImport,
        &importGids,
        &importLids,
        &importRanks,
        &importParts,
        &nExport,
        &exportGids,
        &exportLids,
        &exportRanks,
        &exportParts
    ) };
    std::vector<int> owners(layout.nOwned(), env_.rank());
    for (int k { 0 }; rc == ZOLTAN_OK && k < nExport; ++k)
    {
        owners[exportLids[k]] = exportParts[k];
    }
    Zoltan_LB_Free_Part(&importGids, &importLids, &importRanks, &importParts);
    Zoltan_LB_Free_Part(&exportGids, &exportLids, &exportRanks, &exportParts);
    Zoltan_Destroy(&zz);
    mpi::raiseIfAnyFailed(
        env_.comm(),
        rc == ZOLTAN_OK ? std::string {}
                        : "Rebalancer::newOwners: Zoltan_LB_Partition (" +
                              toString(options_.method) + ") returned " + std::to_string(rc),
        where
    );
    return owners;
}

Rebalanced Rebalancer::repartition(
    const HaloLayout& layout,
    std::span<const double> weights,
    std::span<const std::array<double, 3>> centroids,
    int dimension,
    const std::source_location& where
) const
{
    RebalanceReport report;
    auto start = Clock::now();
    const std::vector<int> owners { newOwners(layout, weights, centroids, dimension, where) };
    report.partitionSeconds = slowest(start, env_.comm());
    start = Clock::now();
    Migration migration(env_, layout.ownedGraph(), owners, where);
    report.migrationSeconds = slowest(start, env_.comm());
    start = Clock::now();
    HaloLayout newLayout {
        HaloBuilder(env_, options_.haloDepth, where).build(migration.cells(), where)
    };
    halo::Communicator communicator(env_, newLayout.sendMap(), newLayout.receiveMap(), where);
    report.rebuildSeconds = slowest(start, env_.comm());
    // the weights follow their cells, for the imbalance after, and each cell's origin with them
    std::vector<MovedRow> rows(weights.size());
    for (std::size_t i { 0 }; i < rows.size(); ++i)
    {
        rows[i] = { weights[i], env_.rank(), static_cast<LocalIndex>(i) };
    }
    std::vector<MovedRow> moved(migration.nNewOwned());
    migration.moveRows(
        std::as_bytes(std::span<const MovedRow>(rows)),
        sizeof(MovedRow),
        std::as_writable_bytes(std::span<MovedRow>(moved)),
        where
    );
    std::vector<halo::GhostOwner> origins(moved.size());
    std::int64_t sent { static_cast<std::int64_t>(migration.nSent()) };
    mpi::allReduce(sent, mpi::ReduceOp::Sum, env_.comm());
    report.cellsMoved = sent;
    double before { 0.0 };
    double after { 0.0 };
    for (const double w : weights)
    {
        before += w;
    }
    for (std::size_t i { 0 }; i < moved.size(); ++i)
    {
        after += moved[i].weight;
        origins[i] = { moved[i].rank, moved[i].index };
    }
    report.imbalanceBefore = maxOverMean(before, env_.comm(), env_.sizeRank());
    report.imbalanceAfter = maxOverMean(after, env_.comm(), env_.sizeRank());
    return Rebalanced { std::move(migration),
                        std::move(newLayout),
                        std::move(communicator),
                        report,
                        std::move(origins) };
}

void Rebalancer::addMigrationSeconds(
    RebalanceReport& report, double seconds, const std::source_location& where
) const
{
    mpi::allReduce(seconds, mpi::ReduceOp::Max, env_.comm(), mpi::CallOptions<> {}, where);
    report.migrationSeconds += seconds;
}

} // namespace fieldsync::partition
