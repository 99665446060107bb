// SPDX-License-Identifier: MIT
// peer_bench: one halo exchange of fieldsync against its peers, side by side in one run, on these
// patterns: a METIS-partitioned 3-D 7-point grid graph ("metis3d") and 2-D 5-point grid graph
// ("metis2d"), their maps made by partition::HaloBuilder, a 3-D structured block ("block3d",
// halo::StructuredBlock, width 1, face ghosts, MPI_Dims_create's grid of ranks) and, only when
// asked for, a slab ("slab3d": the same block code on a side x side x 4-cell slab per rank, the
// ranks stacked along the first dimension, so that side x side ghosts per neighbour, a quarter of
// the cells on 2 ranks, reach MiBs of ghosts with a small field and no METIS).
// Sizes: about {256, 2048, 16384, 131072, 442368} cells per rank; fields of 1 and 5 components
// (a rank-1 Kokkos::View, or a LayoutRight cells x 5 view). The methods, all on the same maps:
//   fieldsync   halo::Communicator, startComm + finaliseComm (set-up: the constructor from the
//               layout's maps, which commits the pattern);
//   persist     hand-written: MPI_Recv_init/MPI_Send_init once, then per exchange MPI_Startall,
//               a pack loop, MPI_Startall, MPI_Waitall, an unpack loop (set-up: buffers and the
//               persistent requests);
//   persistLeft the same on Tpetra's storage form, a View<double**, LayoutLeft> of its own: the
//               pack loop reads column c at the send map's cells, column by column over the 32-bit
//               index list (a message holds its cells' column 0, then column 1, ...), the unpack
//               writes column c at the ghosts (exchange rows only; its set-up is persist's);
//   nbrA2av     MPI_Neighbor_alltoallv on a dist-graph communicator, pack and unpack loops around
//               it (set-up: MPI_Dist_graph_create_adjacent and the counts);
//   petscSF     PetscSFBcastBegin + PetscSFBcastEnd (MPI_REPLACE, unit MPI_DOUBLE or a contiguous
//               type of the components) on the graph (ghost cell -> owner rank, index there), only
//               when built with PETSc (set-up: PetscSFSetGraph + PetscSFSetUp; PetscSFCreate
//               outside);
//   tpetra      Tpetra's MultiVector::doImport (INSERT) from a vector on the owned cells' Map to
//               one on the column Map (owned cells, then the ghosts in the receive map's order), on
//               Tpetra's own storage (LayoutLeft, a column per component), only when built with
//               Tpetra (set-up: the two Maps, the Import and the two MultiVectors);
//   fsLeft      fieldsync on Tpetra's storage form: the same Communicator exchanging a
//               View<double**, LayoutLeft> (a column per component), as a Tpetra user would hand
//               it a MultiVector's host view (exchange rows only; its set-up is fieldsync's).
// Method: the methods interleaved round by round (the order rotates), one warm-up batch each,
// then the median over the rounds (--rounds, at least 11) of the batch's time per exchange,
// maximum over ranks; set-up the same way (2 warm-up rounds, 1 component). Every set-up and
// every method's field is checked before timing counts: the ghosts are set to -1, one exchange,
// and every ghost must hold truth(global id, component) (a wrong ghost aborts the run, exit
// status non-zero); the check is repeated after the timed rounds. The last line says how many
// checks each method passed ("field checks passed for every method"). Prints two tables
// (exchange, set-up) with the ratios
//   fs/best   fieldsync / min(persist, nbrA2av, petscSF, tpetra), the peers on any storage;
//   left/col  fsLeft / min(persistLeft, tpetra), the peers on column-major storage;
//   left/pL   fsLeft / persistLeft, like for like;
//   fs/sf     fieldsync / petscSF;
// and the ghost KiB of each exchange row (ghost cells x components x 8 on the busier rank), and
// writes JSON (seconds per method and the same ratios).
//
//   mpiexec -n 2 --bind-to core build/release/benchmarks/peer_bench [--json peer_bench.json]
//           [--quick] [--rounds N] [--sizes 256,16384] [--meshes metis3d,metis2d,block3d,slab3d]
//           [--components 1,5]
//
// The range, 512 B to 4 MiB of ghosts per rank with 1, 4 and 8 components, on 2 ranks
// (slab3d: cells/4 ghosts per rank; 262144 cells x 8 components = 4 MiB, 25 MB per field; a
// block3d cube needs 8.4M cells per rank for the same, several GiB with a field per method):
//
//   mpiexec -n 2 --bind-to core build/release/benchmarks/peer_bench --meshes slab3d
//           --sizes 256,2048,16384,131072,262144 --components 1,4,8
#include "gridProblem.hpp"
#include "median.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/structuredBlock.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/partition/haloBuilder.hpp"

#if FIELDSYNC_BENCH_PETSC
#include <petscsf.h>
#endif
#if FIELDSYNC_BENCH_TPETRA
#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_MultiVector.hpp>
#endif

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace
{
using fieldsync::LocalIndex;
using fieldsync::halo::RankSimplexCommMap;
using fieldsync::partition::GlobalIndex;
using fieldsync_bench::maxOverRanks;
using fieldsync_bench::median;
using Field = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using FlatField = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using LeftField = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;

/** @brief Component @p c of the cell with global id @p id: the truth every ghost must hold. */
double truth(GlobalIndex id, int c)
{
    return 0.5 + 8.0 * static_cast<double>(id) + static_cast<double>(c);
}

/** @brief One rank's halo pattern on one mesh: the maps and the global id of each local cell. */
struct Pattern
{
    std::string mesh;                   /**< metis3d, metis2d or block3d */
    std::size_t cellsPerRank { 0 };     /**< owned cells */
    std::vector<GlobalIndex> globalIds; /**< of each local cell; -1 where no cell is */
    RankSimplexCommMap send;            /**< owned cells per neighbour */
    RankSimplexCommMap receive;         /**< ghost cells per neighbour */
};

/** @brief A METIS-partitioned grid graph of about @p cells per rank, maps from HaloBuilder. */
Pattern metisPattern(const fieldsync::mpi::MPIEnvironment& env, int dims, long cells)
{
    const double total { static_cast<double>(cells) * env.sizeRank() };
    const int side { static_cast<int>(std::lround(dims == 3 ? std::cbrt(total) : std::sqrt(total))
    ) };
    const auto problem = fieldsync_bench::makeGridProblem(dims, side, env.rank(), env.sizeRank());
    const fieldsync::partition::HaloBuilder builder(env);
    const auto layout = builder.build(problem.owned, problem.neighbourOwners);
    Pattern p;
    p.mesh = dims == 3 ? "metis3d" : "metis2d";
    p.cellsPerRank = layout.nOwned();
    p.globalIds.assign(layout.globalIds().begin(), layout.globalIds().end());
    p.send = layout.sendMap();
    p.receive = layout.receiveMap();
    return p;
}

/** @brief Cells per rank across a slab (slab3d): its ghosts are a quarter of its cells. */
constexpr std::int64_t slabDepth { 4 };

/**
 * @brief This rank's block of about @p cells per rank (face ghosts, width 1): of a cube on
 * MPI_Dims_create's grid of ranks (block3d), or with @p slab of a side x side x slabDepth slab,
 * the ranks stacked along the first dimension (slab3d: side x side ghosts per neighbour).
 */
Pattern blockPattern(const fieldsync::mpi::MPIEnvironment& env, long cells, bool slab)
{
    const auto perRank = static_cast<double>(cells);
    const std::int64_t side {
        std::llround(slab ? std::sqrt(perRank / slabDepth) : std::cbrt(perRank * env.sizeRank()))
    };
    const std::array<std::int64_t, 3> global { slab ? slabDepth * env.sizeRank() : side,
                                               side,
                                               side };
    const fieldsync::mpi::CartesianTopology topology(
        env, slab ? std::vector<int> { 0, 1, 1 } : std::vector<int>(3, 0)
    );
    const fieldsync::halo::StructuredBlock block(
        topology, global, 1, fieldsync::halo::BlockGhosts::Faces
    );
    Pattern p;
    p.mesh = slab ? "slab3d" : "block3d";
    p.cellsPerRank = static_cast<std::size_t>(block.extent(0) * block.extent(1) * block.extent(2));
    p.globalIds.assign(block.paddedSize(), -1);
    const auto range = [&](int d)
    {
        return std::pair<std::int64_t, std::int64_t> { -block.padding(d),
                                                       block.extent(d) + block.padding(d) };
    };
    for (std::int64_t i { range(0).first }; i < range(0).second; ++i)
        for (std::int64_t j { range(1).first }; j < range(1).second; ++j)
            for (std::int64_t k { range(2).first }; k < range(2).second; ++k)
            {
                const std::int64_t g[3] { block.start(0) + i,
                                          block.start(1) + j,
                                          block.start(2) + k };
                bool inside { true };
                for (int d { 0 }; d < 3; ++d)
                {
                    inside = inside && g[d] >= 0 && g[d] < global[std::size_t(d)];
                }
                if (inside)
                {
                    p.globalIds[static_cast<std::size_t>(block.index(i, j, k))] =
                        g[2] + side * (g[1] + side * g[0]);
                }
            }
    p.send = block.sendMap();
    p.receive = block.receiveMap();
    return p;
}

/** @brief Owned (and unused) cells hold the truth, ghosts -1. */
void resetField(const Pattern& p, Field& field)
{
    for (std::size_t i { 0 }; i < p.globalIds.size(); ++i)
    {
        for (int c { 0 }; c < static_cast<int>(field.extent(1)); ++c)
        {
            field(i, c) = p.globalIds[i] < 0 ? 0.0 : truth(p.globalIds[i], c);
        }
    }
    for (const LocalIndex g : p.receive.indices())
    {
        for (int c { 0 }; c < static_cast<int>(field.extent(1)); ++c)
        {
            field(static_cast<std::size_t>(g), c) = -1.0;
        }
    }
}

/** @brief Every ghost holds the truth of its global id; aborts the run otherwise. */
void checkGhosts(const Pattern& p, const Field& field, const char* method)
{
    for (const LocalIndex g : p.receive.indices())
    {
        const auto cell = static_cast<std::size_t>(g);
        for (int c { 0 }; c < static_cast<int>(field.extent(1)); ++c)
        {
            if (p.globalIds[cell] < 0 || field(cell, c) != truth(p.globalIds[cell], c))
            {
                std::fprintf(
                    stderr,
                    "peer_bench: %s on %s: ghost %d (cell %lld) component %d holds %g, "
                    "expected %g\n",
                    method,
                    p.mesh.c_str(),
                    g,
                    static_cast<long long>(p.globalIds[cell]),
                    c,
                    field(cell, c),
                    truth(p.globalIds[cell], c)
                );
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
}

/** @brief One method: set up once (timed), then exchange the field's ghosts. */
class Exchanger
{
public:
    virtual ~Exchanger() = default;
    /** @brief Collective: builds what the method needs to exchange (the timed set-up). */
    virtual void setUp() = 0;
    /** @brief Collective: one exchange of @p field's ghosts (or of the method's own storage). */
    virtual void exchange(Field& field) = 0;
    /** @brief A method with its own storage copies @p field (owned and ghost cells) into it. */
    virtual void load(const Field& field) { (void)field; }
    /** @brief A method with its own storage copies its ghosts into @p field. */
    virtual void store(Field& field) const { (void)field; }
};

/** @brief fieldsync: a Communicator from the pattern's maps. */
class FieldsyncExchanger final : public Exchanger
{
public:
    FieldsyncExchanger(const fieldsync::mpi::MPIEnvironment& env, const Pattern& p)
        : env_(env), pattern_(p)
    {
    }
    void setUp() override { comm_.emplace(env_, pattern_.send, pattern_.receive); }
    void exchange(Field& field) override
    {
        if (field.extent(1) == 1)
        {
            FlatField flat(field.data(), field.extent(0));
            comm_->startComm(flat, key_);
            comm_->finaliseComm(flat, key_);
        }
        else
        {
            comm_->startComm(field, key_);
            comm_->finaliseComm(field, key_);
        }
    }

private:
    fieldsync::mpi::MPIEnvironment env_;                /**< the ranks */
    const Pattern& pattern_;                            /**< the maps */
    std::optional<fieldsync::halo::Communicator> comm_; /**< after setUp */
    const fieldsync::CommKey key_ { "peer_bench" };     /**< the exchange's key */
};

/** @brief fieldsync on Tpetra's storage form: a LayoutLeft field of its own, a column per
 * component. */
class LeftExchanger final : public Exchanger
{
public:
    LeftExchanger(const fieldsync::mpi::MPIEnvironment& env, const Pattern& p, std::size_t nc)
        : env_(env), pattern_(p), field_("peer_bench::left", p.globalIds.size(), nc)
    {
    }
    void setUp() override { comm_.emplace(env_, pattern_.send, pattern_.receive); }
    void exchange(Field&) override
    {
        comm_->startComm(field_, key_);
        comm_->finaliseComm(field_, key_);
    }
    void load(const Field& field) override { Kokkos::deep_copy(field_, field); }
    void store(Field& field) const override { Kokkos::deep_copy(field, field_); }

private:
    fieldsync::mpi::MPIEnvironment env_;                /**< the ranks */
    const Pattern& pattern_;                            /**< the maps */
    LeftField field_;                                   /**< the field, column-major */
    std::optional<fieldsync::halo::Communicator> comm_; /**< after setUp */
    const fieldsync::CommKey key_ { "peer_bench" };     /**< the exchange's key */
};

/** @brief Copies the cells of @p map (each @p nc components) from @p field into @p buffer. */
void pack(const RankSimplexCommMap& map, std::size_t nc, const double* field, double* buffer)
{
    const auto cells = map.indices();
    for (std::size_t i { 0 }; i < cells.size(); ++i)
    {
        const double* from { field + static_cast<std::size_t>(cells[i]) * nc };
        for (std::size_t c { 0 }; c < nc; ++c)
        {
            buffer[i * nc + c] = from[c];
        }
    }
}

/** @brief Copies @p buffer into the cells of @p map (each @p nc components) of @p field. */
void unpack(const RankSimplexCommMap& map, std::size_t nc, const double* buffer, double* field)
{
    const auto cells = map.indices();
    for (std::size_t i { 0 }; i < cells.size(); ++i)
    {
        double* to { field + static_cast<std::size_t>(cells[i]) * nc };
        for (std::size_t c { 0 }; c < nc; ++c)
        {
            to[c] = buffer[i * nc + c];
        }
    }
}

/** @brief The element counts (and offsets) of each neighbour of @p map, @p nc per cell. */
std::vector<int> neighbourCounts(const RankSimplexCommMap& map, std::size_t nc, bool offsets)
{
    std::vector<int> out;
    for (std::size_t k { 0 }; k < map.neighbourCount(); ++k)
    {
        const std::size_t at { offsets ? map.offsets()[k]
                                       : map.offsets()[k + 1] - map.offsets()[k] };
        out.push_back(static_cast<int>(at * nc));
    }
    return out;
}

/** @brief The pack and unpack buffers of the hand-written methods. */
class PackedExchanger : public Exchanger
{
protected:
    PackedExchanger(const Pattern& p, std::size_t nc) : pattern_(p), nc_(nc) {}
    void allocate()
    {
        sendBuffer_.assign(pattern_.send.totalSize() * nc_, 0.0);
        receiveBuffer_.assign(pattern_.receive.totalSize() * nc_, 0.0);
    }
    const Pattern& pattern_;            /**< the maps */
    std::size_t nc_;                    /**< components */
    std::vector<double> sendBuffer_;    /**< packed send cells */
    std::vector<double> receiveBuffer_; /**< packed ghosts */
};

/**
 * @brief Column by column, copies the cells of @p map between a column-major field (column c
 * at @p field + c @p stride) and @p buffer: neighbour k's message holds column 0 of its cells
 * (in the map's order), then column 1, and so on. @p Pack: field to buffer, else back.
 */
template<bool Pack>
void copyColumns(
    const RankSimplexCommMap& map, std::size_t nc, double* field, std::size_t stride, double* buffer
)
{
    const LocalIndex* const cells { map.indices().data() };
    for (std::size_t k { 0 }; k < map.neighbourCount(); ++k)
    {
        const std::size_t begin { map.offsets()[k] };
        const std::size_t n { map.offsets()[k + 1] - begin };
        const LocalIndex* const at { cells + begin };
        for (std::size_t c { 0 }; c < nc; ++c)
        {
            double* const column { field + c * stride };
            double* const message { buffer + begin * nc + c * n };
            for (std::size_t i { 0 }; i < n; ++i)
            {
                if constexpr (Pack)
                {
                    message[i] = column[at[i]];
                }
                else
                {
                    column[at[i]] = message[i];
                }
            }
        }
    }
}

/**
 * @brief Hand-written: persistent requests, pack and unpack loops. @p Layout LayoutRight: on
 * the benchmark's row-major field (persist); LayoutLeft: on a column-major field of its own, a
 * column per component, packed column by column (persistLeft, the peer of fsLeft).
 */
template<class Layout>
class PersistentExchanger final : public PackedExchanger
{
    static constexpr bool columnMajor { std::is_same_v<Layout, Kokkos::LayoutLeft> };

public:
    PersistentExchanger(MPI_Comm comm, const Pattern& p, std::size_t nc)
        : PackedExchanger(p, nc), comm_(comm),
          field_("peer_bench::persistLeft", columnMajor ? p.globalIds.size() : 0, nc)
    {
    }
    ~PersistentExchanger() override
    {
        for (MPI_Request& r : requests_)
        {
            MPI_Request_free(&r);
        }
    }
    PersistentExchanger(const PersistentExchanger&) = delete;
    PersistentExchanger& operator=(const PersistentExchanger&) = delete;
    void setUp() override
    {
        allocate();
        const auto post = [&](const RankSimplexCommMap& map, bool receive)
        {
            const std::vector<int> sizes { neighbourCounts(map, nc_, false) };
            const std::vector<int> at { neighbourCounts(map, nc_, true) };
            for (std::size_t k { 0 }; k < map.neighbourCount(); ++k)
            {
                MPI_Request& r { requests_.emplace_back() };
                if (receive)
                {
                    MPI_Recv_init(
                        receiveBuffer_.data() + at[k],
                        sizes[k],
                        MPI_DOUBLE,
                        map.neighbours()[k],
                        7,
                        comm_,
                        &r
                    );
                }
                else
                {
                    MPI_Send_init(
                        sendBuffer_.data() + at[k],
                        sizes[k],
                        MPI_DOUBLE,
                        map.neighbours()[k],
                        7,
                        comm_,
                        &r
                    );
                }
            }
        };
        post(pattern_.receive, true);
        post(pattern_.send, false);
    }
    void exchange(Field& field) override
    {
        const int nReceive { static_cast<int>(pattern_.receive.neighbourCount()) };
        const int nSend { static_cast<int>(pattern_.send.neighbourCount()) };
        MPI_Startall(nReceive, requests_.data());
        if constexpr (columnMajor)
        {
            copyColumns<true>(
                pattern_.send, nc_, field_.data(), field_.stride(1), sendBuffer_.data()
            );
        }
        else
        {
            pack(pattern_.send, nc_, field.data(), sendBuffer_.data());
        }
        MPI_Startall(nSend, requests_.data() + nReceive);
        MPI_Waitall(nReceive + nSend, requests_.data(), MPI_STATUSES_IGNORE);
        if constexpr (columnMajor)
        {
            copyColumns<false>(
                pattern_.receive, nc_, field_.data(), field_.stride(1), receiveBuffer_.data()
            );
        }
        else
        {
            unpack(pattern_.receive, nc_, receiveBuffer_.data(), field.data());
        }
    }
    void load(const Field& field) override
    {
        if constexpr (columnMajor)
        {
            Kokkos::deep_copy(field_, field);
        }
    }
    void store(Field& field) const override
    {
        if constexpr (columnMajor)
        {
            Kokkos::deep_copy(field, field_);
        }
    }

private:
    MPI_Comm comm_;                     /**< a duplicate of the world, made once */
    std::vector<MPI_Request> requests_; /**< receives, then sends */
    Kokkos::View<double**, Layout, Kokkos::HostSpace> field_; /**< LayoutLeft: the field */
};

/** @brief MPI_Neighbor_alltoallv on a dist-graph communicator, pack and unpack loops. */
class NeighbourExchanger final : public PackedExchanger
{
public:
    NeighbourExchanger(const Pattern& p, std::size_t nc) : PackedExchanger(p, nc) {}
    ~NeighbourExchanger() override
    {
        if (graph_ != MPI_COMM_NULL)
        {
            MPI_Comm_free(&graph_);
        }
    }
    NeighbourExchanger(const NeighbourExchanger&) = delete;
    NeighbourExchanger& operator=(const NeighbourExchanger&) = delete;
    void setUp() override
    {
        allocate();
        const auto& from = pattern_.receive;
        const auto& to = pattern_.send;
        MPI_Dist_graph_create_adjacent(
            MPI_COMM_WORLD,
            static_cast<int>(from.neighbourCount()),
            from.neighbours().data(),
            MPI_UNWEIGHTED,
            static_cast<int>(to.neighbourCount()),
            to.neighbours().data(),
            MPI_UNWEIGHTED,
            MPI_INFO_NULL,
            0,
            &graph_
        );
        sendCounts_ = neighbourCounts(to, nc_, false);
        sendOffsets_ = neighbourCounts(to, nc_, true);
        receiveCounts_ = neighbourCounts(from, nc_, false);
        receiveOffsets_ = neighbourCounts(from, nc_, true);
    }
    void exchange(Field& field) override
    {
        pack(pattern_.send, nc_, field.data(), sendBuffer_.data());
        MPI_Neighbor_alltoallv(
            sendBuffer_.data(),
            sendCounts_.data(),
            sendOffsets_.data(),
            MPI_DOUBLE,
            receiveBuffer_.data(),
            receiveCounts_.data(),
            receiveOffsets_.data(),
            MPI_DOUBLE,
            graph_
        );
        unpack(pattern_.receive, nc_, receiveBuffer_.data(), field.data());
    }

private:
    MPI_Comm graph_ { MPI_COMM_NULL }; /**< the dist-graph communicator */
    std::vector<int> sendCounts_;      /**< per destination */
    std::vector<int> sendOffsets_;     /**< per destination */
    std::vector<int> receiveCounts_;   /**< per source */
    std::vector<int> receiveOffsets_;  /**< per source */
};

#if FIELDSYNC_BENCH_PETSC
void petscCheck(PetscErrorCode code, const char* call)
{
    if (code != 0)
    {
        std::fprintf(stderr, "peer_bench: %s failed (PETSc error %d)\n", call, code);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/** @brief The pattern as a PetscSF graph: leaves (ghost cells) and their roots on the owners. */
struct PetscGraph
{
    std::vector<PetscInt> leaves;     /**< ghost cells, receive map order */
    std::vector<PetscSFNode> remotes; /**< owner rank and index there */
};

/**
 * @brief Collective: each rank sends its send lists to the neighbours, so that each ghost learns
 * the index of its cell on the owner (the same position in the owner's send list).
 */
PetscGraph petscGraph(const Pattern& p)
{
    PetscGraph graph;
    std::vector<LocalIndex> onOwner(p.receive.totalSize());
    std::vector<MPI_Request> requests;
    for (std::size_t k { 0 }; k < p.receive.neighbourCount(); ++k)
    {
        const std::size_t at { p.receive.offsets()[k] };
        MPI_Irecv(
            onOwner.data() + at,
            static_cast<int>(p.receive.offsets()[k + 1] - at),
            MPI_INT32_T,
            p.receive.neighbours()[k],
            9,
            MPI_COMM_WORLD,
            &requests.emplace_back()
        );
    }
    for (std::size_t k { 0 }; k < p.send.neighbourCount(); ++k)
    {
        const std::size_t at { p.send.offsets()[k] };
        MPI_Isend(
            p.send.indices().data() + at,
            static_cast<int>(p.send.offsets()[k + 1] - at),
            MPI_INT32_T,
            p.send.neighbours()[k],
            9,
            MPI_COMM_WORLD,
            &requests.emplace_back()
        );
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    for (std::size_t k { 0 }; k < p.receive.neighbourCount(); ++k)
    {
        for (std::size_t e { p.receive.offsets()[k] }; e < p.receive.offsets()[k + 1]; ++e)
        {
            graph.leaves.push_back(p.receive.indices()[e]);
            graph.remotes.push_back({ p.receive.neighbours()[k], onOwner[e] });
        }
    }
    return graph;
}

/** @brief PetscSF: SetGraph + SetUp, then BcastBegin + End with MPI_REPLACE. */
class PetscExchanger final : public Exchanger
{
public:
    PetscExchanger(const Pattern& p, PetscGraph& graph, std::size_t nc) : pattern_(p), graph_(graph)
    {
        petscCheck(PetscSFCreate(PETSC_COMM_WORLD, &sf_), "PetscSFCreate");
        if (nc > 1)
        {
            MPI_Type_contiguous(static_cast<int>(nc), MPI_DOUBLE, &unit_);
            MPI_Type_commit(&unit_);
        }
    }
    ~PetscExchanger() override
    {
        PetscSFDestroy(&sf_);
        if (unit_ != MPI_DOUBLE)
        {
            MPI_Type_free(&unit_);
        }
    }
    PetscExchanger(const PetscExchanger&) = delete;
    PetscExchanger& operator=(const PetscExchanger&) = delete;
    void setUp() override
    {
        petscCheck(
            PetscSFSetGraph(
                sf_,
                static_cast<PetscInt>(pattern_.globalIds.size()),
                static_cast<PetscInt>(graph_.leaves.size()),
                graph_.leaves.data(),
                PETSC_USE_POINTER,
                graph_.remotes.data(),
                PETSC_USE_POINTER
            ),
            "PetscSFSetGraph"
        );
        petscCheck(PetscSFSetUp(sf_), "PetscSFSetUp");
    }
    void exchange(Field& field) override
    {
        petscCheck(
            PetscSFBcastBegin(sf_, unit_, field.data(), field.data(), MPI_REPLACE),
            "PetscSFBcastBegin"
        );
        petscCheck(
            PetscSFBcastEnd(sf_, unit_, field.data(), field.data(), MPI_REPLACE), "PetscSFBcastEnd"
        );
    }

private:
    const Pattern& pattern_;           /**< the local cells (roots) */
    PetscGraph& graph_;                /**< leaves and remotes (PETSC_USE_POINTER) */
    PetscSF sf_ { nullptr };           /**< the star forest */
    MPI_Datatype unit_ { MPI_DOUBLE }; /**< one cell's components */
};
#endif

#if FIELDSYNC_BENCH_TPETRA
using TpetraMap = Tpetra::Map<int, long long>;
using TpetraVectors = Tpetra::MultiVector<double, int, long long>;

/** @brief Tpetra: doImport from the owned cells' Map to the column Map, on its own vectors. */
class TpetraExchanger final : public Exchanger
{
public:
    TpetraExchanger(
        const Teuchos::RCP<const Teuchos::Comm<int>>& comm, const Pattern& p, std::size_t nc
    )
        : comm_(comm), pattern_(p), nc_(nc)
    {
        std::vector<char> ghost(p.globalIds.size(), 0);
        for (const LocalIndex g : p.receive.indices())
        {
            ghost[static_cast<std::size_t>(g)] = 1;
        }
        for (std::size_t i { 0 }; i < p.globalIds.size(); ++i)
        {
            if (p.globalIds[i] >= 0 && ghost[i] == 0)
            {
                owned_.push_back(i);
            }
        }
    }
    void setUp() override
    {
        const auto ids = [&](bool withGhosts)
        {
            std::vector<long long> out;
            for (const std::size_t i : owned_)
            {
                out.push_back(pattern_.globalIds[i]);
            }
            if (withGhosts)
            {
                for (const LocalIndex g : pattern_.receive.indices())
                {
                    out.push_back(pattern_.globalIds[static_cast<std::size_t>(g)]);
                }
            }
            return out;
        };
        const auto map = [&](const std::vector<long long>& list)
        {
            return Teuchos::rcp(new TpetraMap(
                Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                Teuchos::ArrayView<const long long>(list.data(), static_cast<int>(list.size())),
                0,
                comm_
            ));
        };
        const auto ownedMap = map(ids(false));
        const auto columnMap = map(ids(true));
        import_ = Teuchos::rcp(new Tpetra::Import<int, long long>(ownedMap, columnMap));
        source_ = Teuchos::rcp(new TpetraVectors(ownedMap, nc_));
        target_ = Teuchos::rcp(new TpetraVectors(columnMap, nc_));
    }
    void exchange(Field&) override { target_->doImport(*source_, *import_, Tpetra::INSERT); }
    void load(const Field& field) override
    {
        const auto source = source_->getLocalViewHost(Tpetra::Access::ReadWrite);
        const auto target = target_->getLocalViewHost(Tpetra::Access::ReadWrite);
        const auto ghosts = pattern_.receive.indices();
        for (std::size_t c { 0 }; c < nc_; ++c)
        {
            for (std::size_t k { 0 }; k < owned_.size(); ++k)
            {
                source(k, c) = field(owned_[k], c);
                target(k, c) = -1.0; // the import copies the owned cells too
            }
            for (std::size_t j { 0 }; j < ghosts.size(); ++j)
            {
                target(owned_.size() + j, c) = field(static_cast<std::size_t>(ghosts[j]), c);
            }
        }
    }
    void store(Field& field) const override
    {
        const auto target = target_->getLocalViewHost(Tpetra::Access::ReadOnly);
        const auto ghosts = pattern_.receive.indices();
        for (std::size_t c { 0 }; c < nc_; ++c)
        {
            for (std::size_t k { 0 }; k < owned_.size(); ++k)
            {
                if (target(k, c) != field(owned_[k], c))
                {
                    std::fprintf(stderr, "peer_bench: tpetra: owned cell %zu not copied\n", k);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            }
            for (std::size_t j { 0 }; j < ghosts.size(); ++j)
            {
                field(static_cast<std::size_t>(ghosts[j]), c) = target(owned_.size() + j, c);
            }
        }
    }

private:
    Teuchos::RCP<const Teuchos::Comm<int>> comm_;         /**< a duplicate of the world */
    const Pattern& pattern_;                              /**< the maps */
    std::size_t nc_;                                      /**< components (vectors) */
    std::vector<std::size_t> owned_;                      /**< local cells Tpetra owns, in order */
    Teuchos::RCP<Tpetra::Import<int, long long>> import_; /**< after setUp */
    Teuchos::RCP<TpetraVectors> source_;                  /**< on the owned Map */
    Teuchos::RCP<TpetraVectors> target_;                  /**< on the column Map */
};
#endif

enum Method
{
    FieldsyncMethod,
    LeftMethod,
    PersistentMethod, // the peers from here on
    PersistentLeftMethod,
    NeighbourMethod,
    PetscMethod,
    TpetraMethod,
    Methods
};

const char* const methodNames[Methods] { "fieldsync", "fsLeft",  "persist", "persistLeft",
                                         "nbrA2av",   "petscSF", "tpetra" };

/** @brief Whether peer @p m works on column-major storage: fsLeft's peers. */
constexpr bool columnMajorPeer(int m)
{
    return m == PersistentLeftMethod || m == TpetraMethod;
}

/** @brief Everything a method needs, for one pattern. */
struct Context
{
    const fieldsync::mpi::MPIEnvironment& env; /**< the world */
    MPI_Comm persistentComm;                   /**< the hand-written method's communicator */
    const Pattern& pattern;                    /**< the maps */
    std::size_t maxGhosts; /**< ghosts per rank, maximum over ranks: the same batches everywhere */
#if FIELDSYNC_BENCH_PETSC
    PetscGraph* graph { nullptr }; /**< PetscSF's graph */
#endif
#if FIELDSYNC_BENCH_TPETRA
    Teuchos::RCP<const Teuchos::Comm<int>> tpetraComm {}; /**< Tpetra's communicator */
#endif
};

/** @brief Method @p m on @p ctx with @p nc components, not yet set up. */
std::unique_ptr<Exchanger> makeExchanger(int m, const Context& ctx, std::size_t nc)
{
    switch (m)
    {
    case FieldsyncMethod:
        return std::make_unique<FieldsyncExchanger>(ctx.env, ctx.pattern);
    case LeftMethod:
        return std::make_unique<LeftExchanger>(ctx.env, ctx.pattern, nc);
    case PersistentMethod:
        return std::make_unique<PersistentExchanger<Kokkos::LayoutRight>>(
            ctx.persistentComm, ctx.pattern, nc
        );
    case PersistentLeftMethod:
        return std::make_unique<PersistentExchanger<Kokkos::LayoutLeft>>(
            ctx.persistentComm, ctx.pattern, nc
        );
    case NeighbourMethod:
        return std::make_unique<NeighbourExchanger>(ctx.pattern, nc);
#if FIELDSYNC_BENCH_PETSC
    case PetscMethod:
        return std::make_unique<PetscExchanger>(ctx.pattern, *ctx.graph, nc);
#endif
#if FIELDSYNC_BENCH_TPETRA
    case TpetraMethod:
        return std::make_unique<TpetraExchanger>(ctx.tpetraComm, ctx.pattern, nc);
#endif
    default:
        return nullptr;
    }
}

/** @brief This rank's passed field checks per method (a failed one aborts the run). */
long checksPassed[Methods] {};

/** @brief Ghosts to -1, one exchange, every ghost checked against the truth. */
void exchangeAndCheck(const Pattern& p, Exchanger& method, Field& field, int m)
{
    resetField(p, field);
    method.load(field);
    method.exchange(field);
    method.store(field);
    checkGhosts(p, field, methodNames[m]);
    ++checksPassed[m];
}

/** @brief Seconds per exchange of @p iterations exchanges after a barrier, maximum over ranks. */
double timeBatch(Exchanger& method, Field& field, int iterations)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double start { MPI_Wtime() };
    for (int i { 0 }; i < iterations; ++i)
    {
        method.exchange(field);
    }
    double elapsed { (MPI_Wtime() - start) / iterations };
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return elapsed;
}

/** @brief One table row: a pattern, a component count, the median seconds of each method. */
struct Row
{
    std::string mesh;             /**< the pattern */
    std::size_t cells { 0 };      /**< owned cells per rank (maximum over ranks) */
    std::size_t ghosts { 0 };     /**< ghosts per rank (maximum over ranks) */
    std::size_t components { 0 }; /**< per cell (0: the set-up row) */
    double seconds[Methods] {};   /**< median per method; 0 when not run */

    /**
     * @brief Method @p m over its fastest peer: fieldsync's are persist, nbrA2av, petscSF and
     * tpetra; fsLeft's the peers on column-major storage, persistLeft and tpetra.
     */
    [[nodiscard]] double ratio(int m = FieldsyncMethod) const
    {
        double best { 0.0 };
        for (int peer { PersistentMethod }; peer < Methods; ++peer)
        {
            const bool isPeer { m == LeftMethod ? columnMajorPeer(peer)
                                                : peer != PersistentLeftMethod };
            if (isPeer && seconds[peer] > 0.0 && (best == 0.0 || seconds[peer] < best))
            {
                best = seconds[peer];
            }
        }
        return best > 0.0 ? seconds[m] / best : 0.0;
    }

    /** @brief fsLeft over persistLeft: the like-for-like ratio on column-major storage. */
    [[nodiscard]] double leftRatio() const
    {
        return seconds[PersistentLeftMethod] > 0.0
                   ? seconds[LeftMethod] / seconds[PersistentLeftMethod]
                   : 0.0;
    }

    /** @brief fieldsync over PetscSF (0 without PETSc). */
    [[nodiscard]] double petscRatio() const
    {
        return seconds[PetscMethod] > 0.0 ? seconds[FieldsyncMethod] / seconds[PetscMethod] : 0.0;
    }
};

/** @brief Options of the run. */
struct Options
{
    std::string jsonPath { "peer_bench.json" };                   /**< --json */
    bool quick { false };                                         /**< --quick */
    int rounds { 11 };                                            /**< --rounds */
    std::vector<long> sizes { 256, 2048, 16384, 131072, 442368 }; /**< --sizes, cells per rank */
    std::vector<std::string> meshes { "metis3d", "metis2d", "block3d" }; /**< --meshes */
    std::vector<std::size_t> components { 1, 5 }; /**< --components, exchange rows */
};

/** @brief The comma-separated items of @p text. */
std::vector<std::string> split(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream list { text };
    for (std::string item; std::getline(list, item, ',');)
    {
        items.push_back(item);
    }
    return items;
}

Options parse(int argc, char** argv)
{
    Options o;
    bool sizesGiven { false };
    for (int a { 1 }; a < argc; ++a)
    {
        const std::string arg { argv[a] };
        if (arg == "--json" && a + 1 < argc)
        {
            o.jsonPath = argv[++a];
        }
        else if (arg == "--quick")
        {
            o.quick = true;
        }
        else if (arg == "--rounds" && a + 1 < argc)
        {
            o.rounds = std::max(11, std::stoi(argv[++a]));
        }
        else if (arg == "--sizes" && a + 1 < argc)
        {
            o.sizes.clear();
            for (const std::string& item : split(argv[++a]))
            {
                o.sizes.push_back(std::stol(item));
            }
            sizesGiven = true;
        }
        else if (arg == "--meshes" && a + 1 < argc)
        {
            o.meshes = split(argv[++a]);
            for (const std::string& mesh : o.meshes)
            {
                if (mesh != "metis3d" && mesh != "metis2d" && mesh != "block3d" && mesh != "slab3d")
                {
                    std::fprintf(stderr, "peer_bench: unknown mesh '%s'\n", mesh.c_str());
                    MPI_Abort(MPI_COMM_WORLD, 2);
                }
            }
        }
        else if (arg == "--components" && a + 1 < argc)
        {
            o.components.clear();
            for (const std::string& item : split(argv[++a]))
            {
                o.components.push_back(std::stoul(item));
            }
        }
    }
    if (o.quick && !sizesGiven)
    {
        o.sizes = { 256, 16384, 131072 };
    }
    return o;
}

/** @brief The set-up row of @p ctx's pattern: each method set up, checked and destroyed. */
Row timeSetUp(const Context& ctx, const bool (&run)[Methods], int rounds)
{
    std::vector<double> times[Methods];
    Field field("peer_bench::setUp", ctx.pattern.globalIds.size(), 1);
    const int warmUp { 2 };
    fieldsync_bench::interleaved(
        warmUp + rounds,
        Methods,
        [&](int round, int m)
        {
            // fsLeft's set-up is fieldsync's, persistLeft's is persist's
            if (!run[m] || m == LeftMethod || m == PersistentLeftMethod)
            {
                return;
            }
            auto method = makeExchanger(m, ctx, 1);
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 { MPI_Wtime() };
            method->setUp();
            const double t1 { MPI_Wtime() };
            exchangeAndCheck(ctx.pattern, *method, field, m);
            if (round >= warmUp)
            {
                times[m].push_back(t1 - t0);
            }
        }
    );
    Row row;
    for (int m { 0 }; m < Methods; ++m)
    {
        row.seconds[m] = times[m].empty() ? 0.0 : median(maxOverRanks(times[m]));
    }
    return row;
}

/** @brief The exchange row of @p ctx's pattern with @p nc components. */
Row timeExchange(const Context& ctx, const bool (&run)[Methods], std::size_t nc, const Options& o)
{
    std::unique_ptr<Exchanger> methods[Methods];
    std::vector<Field> fields;
    for (int m { 0 }; m < Methods; ++m)
    {
        fields.emplace_back("peer_bench::field", ctx.pattern.globalIds.size(), nc);
        if (run[m])
        {
            methods[m] = makeExchanger(m, ctx, nc);
            methods[m]->setUp();
            exchangeAndCheck(ctx.pattern, *methods[m], fields[std::size_t(m)], m);
        }
    }
    const double bytes { static_cast<double>(ctx.maxGhosts * nc * 8) };
    const int iterations {
        static_cast<int>(std::clamp((o.quick ? 1e6 : 4e6) / (bytes + 4000.0), 5.0, 1000.0))
    };
    std::vector<double> times[Methods];
    for (int m { 0 }; m < Methods; ++m)
    {
        if (run[m])
        {
            timeBatch(*methods[m], fields[std::size_t(m)], std::max(1, iterations / 4));
        }
    }
    fieldsync_bench::interleaved(
        o.rounds,
        Methods,
        [&](int, int m)
        {
            if (run[m])
            {
                times[m].push_back(timeBatch(*methods[m], fields[std::size_t(m)], iterations));
            }
        }
    );
    Row row;
    row.components = nc;
    for (int m { 0 }; m < Methods; ++m)
    {
        if (run[m])
        {
            exchangeAndCheck(ctx.pattern, *methods[m], fields[std::size_t(m)], m);
            row.seconds[m] = median(times[m]);
        }
    }
    return row;
}

/** @brief Collective: the set-up row and the exchange rows (--components) of @p pattern. */
void runPattern(
    const fieldsync::mpi::MPIEnvironment& env,
    MPI_Comm persistentComm,
    const Pattern& pattern,
    const bool (&run)[Methods],
    const Options& options,
    std::vector<Row>& rows
)
{
    const std::vector<double> counts {
        maxOverRanks({ static_cast<double>(pattern.cellsPerRank),
                       static_cast<double>(pattern.receive.totalSize()) })
    };
    const auto maxGhosts = static_cast<std::size_t>(counts[1]);
#if FIELDSYNC_BENCH_PETSC
    PetscGraph graph { petscGraph(pattern) };
#endif
    Context ctx { env, persistentComm, pattern, maxGhosts };
#if FIELDSYNC_BENCH_PETSC
    ctx.graph = &graph;
#endif
#if FIELDSYNC_BENCH_TPETRA
    ctx.tpetraComm = Teuchos::rcp(new Teuchos::MpiComm<int>(persistentComm));
#endif
    std::vector<std::size_t> rowComponents { 0 }; // 0: the set-up row
    rowComponents.insert(rowComponents.end(), options.components.begin(), options.components.end());
    for (const std::size_t nc : rowComponents)
    {
        Row row { nc == 0 ? timeSetUp(ctx, run, options.rounds)
                          : timeExchange(ctx, run, nc, options) };
        row.mesh = pattern.mesh;
        row.cells = static_cast<std::size_t>(counts[0]);
        row.ghosts = maxGhosts;
        rows.push_back(row);
    }
}

void printTable(const std::vector<Row>& rows, bool exchange)
{
    std::printf(
        "%8s %10s %8s %5s %10s ",
        "mesh",
        "cells/rank",
        "ghosts",
        exchange ? "comps" : "",
        exchange ? "ghostKiB" : ""
    );
    for (int m { 0 }; m < Methods; ++m)
    {
        std::printf("%11s ", !exchange && m == NeighbourMethod ? "nbrGraph" : methodNames[m]);
    }
    std::printf("%8s %8s %8s %8s\n", "fs/best", "left/col", "left/pL", "fs/sf");
    for (const Row& r : rows)
    {
        if ((r.components > 0) != exchange)
        {
            continue;
        }
        std::printf("%8s %10zu %8zu ", r.mesh.c_str(), r.cells, r.ghosts);
        if (exchange)
        {
            std::printf(
                "%5zu %10.1f ",
                r.components,
                static_cast<double>(r.ghosts * r.components * 8) / 1024.0
            );
        }
        else
        {
            std::printf("%5s %10s ", "", "");
        }
        for (const double s : r.seconds)
        {
            std::printf("%11.2f ", s * 1e6);
        }
        std::printf(
            "%8.3f %8.3f %8.3f %8.3f\n",
            r.ratio(),
            r.ratio(LeftMethod),
            r.leftRatio(),
            r.petscRatio()
        );
    }
}

void writeJson(
    const std::vector<Row>& rows, const Options& o, int nRanks, const bool (&run)[Methods]
)
{
    const char* const keys[Methods] { "fieldsyncSeconds",  "fieldsyncLeftSeconds",
                                      "persistentSeconds", "persistentLeftSeconds",
                                      "neighbourSeconds",  "petscSeconds",
                                      "tpetraSeconds" };
    std::ofstream out(o.jsonPath);
    out << "{\n  \"benchmark\": \"peer_bench\",\n  \"ranks\": " << nRanks
        << ",\n  \"rounds\": " << o.rounds << ",\n  \"quick\": " << (o.quick ? "true" : "false")
        << ",\n  \"petsc\": " << (run[PetscMethod] ? "true" : "false")
        << ",\n  \"tpetra\": " << (run[TpetraMethod] ? "true" : "false");
    for (const bool exchange : { true, false })
    {
        out << ",\n  \"" << (exchange ? "exchange" : "setUp") << "\": [";
        bool first { true };
        for (const Row& r : rows)
        {
            if ((r.components > 0) != exchange)
            {
                continue;
            }
            out << (first ? "\n" : ",\n") << "    {\"mesh\": \"" << r.mesh
                << "\", \"cellsPerRank\": " << r.cells << ", \"ghostsPerRank\": " << r.ghosts;
            if (exchange)
            {
                out << ", \"components\": " << r.components
                    << ", \"ghostBytes\": " << r.ghosts * r.components * 8;
            }
            for (int m { 0 }; m < Methods; ++m)
            {
                out << ", \"" << keys[m] << "\": " << r.seconds[m];
            }
            out << ", \"fieldsyncOverBestPeer\": " << r.ratio()
                << ", \"fieldsyncLeftOverBestPeer\": " << r.ratio(LeftMethod)
                << ", \"fieldsyncLeftOverPersistentLeft\": " << r.leftRatio()
                << ", \"fieldsyncOverPetsc\": " << r.petscRatio() << "}";
            first = false;
        }
        out << "\n  ]";
    }
    out << "\n}\n";
}
/**
 * @brief Collective: whether every method that ran passed at least one field check on every rank
 * (a failed check aborted the run); @p counts names each method's checks, fewest over ranks.
 */
bool everyMethodChecked(const bool (&run)[Methods], std::string& counts)
{
    long fewest[Methods] {};
    MPI_Allreduce(checksPassed, fewest, Methods, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    bool every { true };
    for (int m { 0 }; m < Methods; ++m)
    {
        if (run[m])
        {
            every = every && fewest[m] > 0;
            counts += std::string(counts.empty() ? "" : ", ") + methodNames[m] + " " +
                      std::to_string(fewest[m]);
        }
    }
    return every;
}
} // namespace

int main(int argc, char** argv)
{
    fieldsync::mpi::MPIInit init(argc, argv);
    fieldsync::mpi::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    const Options options { parse(argc, argv) };
#if FIELDSYNC_BENCH_PETSC
    petscCheck(PetscInitialize(&argc, &argv, nullptr, nullptr), "PetscInitialize");
    const bool havePetsc { true };
#else
    const bool havePetsc { false };
#endif
#if FIELDSYNC_BENCH_TPETRA
    const bool haveTpetra { true };
#else
    const bool haveTpetra { false };
#endif
    const bool run[Methods] { true, true, true, true, true, havePetsc, haveTpetra };
    std::vector<Row> rows;
    {
#if FIELDSYNC_BENCH_TPETRA
        // MPI and Kokkos run already: Tpetra leaves both to this program
        const Tpetra::ScopeGuard tpetra(&argc, &argv);
#endif
        const fieldsync::mpi::MPIEnvironment env;
        MPI_Comm persistentComm { MPI_COMM_NULL };
        MPI_Comm_dup(MPI_COMM_WORLD, &persistentComm);
        for (const std::string& mesh : options.meshes)
        {
            for (const long cells : options.sizes)
            {
                const Pattern pattern { mesh == "block3d" || mesh == "slab3d"
                                            ? blockPattern(env, cells, mesh == "slab3d")
                                            : metisPattern(env, mesh == "metis2d" ? 2 : 3, cells) };
                runPattern(env, persistentComm, pattern, run, options, rows);
            }
        }
        MPI_Comm_free(&persistentComm);
    }
#if FIELDSYNC_BENCH_PETSC
    petscCheck(PetscFinalize(), "PetscFinalize");
#endif
    int me { 0 };
    int nRanks { 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nRanks);
    std::string counts;
    const bool checked { everyMethodChecked(run, counts) };
    if (me != 0)
    {
        return checked ? 0 : 1;
    }
    std::printf(
        "peer_bench: %d ranks, median of %d interleaved rounds, max over ranks (us); every "
        "ghost checked against the truth%s%s\nexchange (one halo exchange):\n",
        nRanks,
        options.rounds,
        havePetsc ? "" : "; built without PETSc (petscSF column 0)",
        haveTpetra ? "" : "; built without Tpetra (tpetra column 0)"
    );
    std::printf("fs/best = fieldsync / min(persist, nbrA2av, petscSF, tpetra); left/col = fsLeft / "
                "min(persistLeft, tpetra), the column-major peers; left/pL = fsLeft / persistLeft; "
                "fs/sf = fieldsync / petscSF\n");
    printTable(rows, true);
    std::printf("set-up (fieldsync: Communicator from the maps; nbrGraph: dist-graph create; "
                "fsLeft's and persistLeft's are fieldsync's and persist's):\n");
    printTable(rows, false);
    writeJson(rows, options, nRanks, run);
    std::printf("wrote %s\n", options.jsonPath.c_str());
    std::printf(
        "peer_bench: field checks %s (%s)\n",
        checked ? "passed for every method" : "MISSING for a method",
        counts.c_str()
    );
    return checked ? 0 : 1;
}
