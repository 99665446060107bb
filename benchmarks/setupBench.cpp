// SPDX-License-Identifier: MIT
// setup_bench: the set-up of a halo pattern, side by side in one run. The pattern: a 3-D
// 7-point grid graph of about P x {256, 16k, 131k, 442k} cells (cubes of side 8, 32, 64, 96 on
// 2 ranks) partitioned with METIS; each rank owns its cells in ascending global id. Timed:
//   ghostList  fieldsync::halo::GhostList + communicator() (from the ghost list: local index,
//              owner rank, index on the owner), a committed Communicator ready to exchange;
//   builder    fieldsync::partition::HaloBuilder::build from the owned cell graph with the
//              owners of every neighbour given (numbering, interior/boundary split and maps);
//   petscSF    PetscSFSetGraph + PetscSFSetUp on the same ghost list (PETSC_USE_POINTER), only
//              when built with PETSc (found by pkg-config; never downloaded);
//   crsGraph   Tpetra's job from the same input as the builder: the owned rows' Map, a CrsGraph
//              of each owned cell's neighbours (global ids, exact row lengths) and fillComplete,
//              which finds the ghosts' owners and makes the column Map and the Import; only when
//              built with Tpetra (Debian's Trilinos; never downloaded);
//   agreement  one set-up agreement (mpi::agreeOnSetUp, which the set-up calls whose next step
//              blocks in MPI make first in every mode; the ghostList set-up above makes none
//              outside check mode, its answered exchange naming a missing rank by itself): the
//              column agr/gl is what agreeing would add to the ghost list's set-up;
//   floor      one plain loop summing the builder's input per adjacency entry (neighbour id and
//              owner): what a single streaming pass over that input costs, the least any builder
//              that reads every entry can take (the builder reads the owners only of its ghost
//              entries, so this floor is generous);
//   outFloor   the least work that produces the builder's main output: number the owned cells
//              in a dense table of their ids, then one pass that reads every adjacency entry and
//              writes its local index (-1 for a ghost), the local adjacency every builder writes.
// and the first exchange after each set-up (fieldsync: startComm + finaliseComm; PetscSF:
// PetscSFBcastBegin + End). Interleaved round by round (the order rotates), 2 warm-up rounds,
// then the median of the rounds (--rounds, default 11) of the maximum over ranks. Every result
// is checked: each fieldsync and PetscSF set-up exchanges once and every ghost is compared with
// a function of its global id; each HaloBuilder layout's global ids are compared with the ghost
// list computed here, and its maps exchange once. "cold" is the first set-up plus exchange of
// the process (round 0 of the first size, before any warm-up). Prints a table, writes JSON.
// For the set-up model of doc/notes/scaling.md it also records, per rank and size, the neighbour
// ranks and the heap bytes each set-up keeps (glibc mallinfo2: in use after the set-up minus
// before, while its objects live; the ghost-list Communicator, and the HaloBuilder layout with
// a Communicator from its maps), measured once after the timed rounds, VmHWM at the end, and the
// heap one MPI_Comm_dup of MPI_COMM_WORLD keeps (MPI's own cost per communicator).
//
//   mpiexec -n 2 --bind-to core build/release/benchmarks/setup_bench [--json setup_bench.json]
//           [--rounds N] [--sizes 256,16384]
//           [--only ghostList|builder|petscSF|crsGraph|floor|outFloor|agreement]
#include "gridProblem.hpp"
#include "median.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"
#include "fieldsync/partition/haloBuilder.hpp"

#if FIELDSYNC_BENCH_PETSC
#include <petscsf.h>
#endif
#if FIELDSYNC_BENCH_TPETRA
#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsGraph.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_Vector.hpp>
#endif

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <source_location>
#include <sstream>
#include <string>
#include <vector>

namespace
{
using fieldsync::LocalIndex;
using fieldsync::partition::GlobalIndex;
using fieldsync_bench::maxOverRanks;
using fieldsync_bench::median;

/** @brief The value of a cell: a function of its global id. */
double truth(GlobalIndex id)
{
    return 0.5 + 3.0 * static_cast<double>(id);
}

using Problem = fieldsync_bench::GridProblem;

/** @brief A field of owned values (the truth) and ghosts set to -1. */
std::vector<double> freshField(const Problem& p)
{
    std::vector<double> field(p.nOwned + p.ghostIds.size(), -1.0);
    for (std::size_t i { 0 }; i < p.nOwned; ++i)
    {
        field[i] = truth(p.owned.globalId(i));
    }
    return field;
}

/** @brief Every ghost holds the truth of its global id; aborts the run otherwise. */
void checkGhosts(const Problem& p, const std::vector<double>& field, const char* what)
{
    for (std::size_t k { 0 }; k < p.ghostIds.size(); ++k)
    {
        if (field[p.nOwned + k] != truth(p.ghostIds[k]))
        {
            std::fprintf(
                stderr,
                "setup_bench: %s: ghost %zu (cell %lld) holds %g, expected %g\n",
                what,
                k,
                static_cast<long long>(p.ghostIds[k]),
                field[p.nOwned + k],
                truth(p.ghostIds[k])
            );
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

/** @brief Set-up and first-exchange seconds of one method in one round, on this rank. */
struct Sample
{
    double setUp { 0.0 };    /**< the set-up */
    double exchange { 0.0 }; /**< the first exchange after it */
};

Sample runGhostList(const fieldsync::mpi::MPIEnvironment& env, const Problem& p)
{
    std::vector<double> field { freshField(p) };
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 { MPI_Wtime() };
    fieldsync::halo::Communicator comm {
        fieldsync::halo::GhostList(env, p.nOwned, p.ghostCells, p.ghostOwners).communicator()
    };
    const double t1 { MPI_Wtime() };
    comm.startComm(field, "setup_bench");
    comm.finaliseComm(field, "setup_bench");
    const double t2 { MPI_Wtime() };
    checkGhosts(p, field, "ghostList");
    return { t1 - t0, t2 - t1 };
}

Sample runBuilder(const fieldsync::partition::HaloBuilder& builder, const Problem& p)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 { MPI_Wtime() };
    const fieldsync::partition::HaloLayout layout { builder.build(p.owned, p.neighbourOwners) };
    const double t1 { MPI_Wtime() };
    const auto ids = layout.globalIds();
    bool same { ids.size() == p.nOwned + p.ghostIds.size() };
    for (std::size_t k { 0 }; same && k < p.ghostIds.size(); ++k)
    {
        same = ids[p.nOwned + k] == p.ghostIds[k];
    }
    if (!same)
    {
        std::fprintf(stderr, "setup_bench: builder: the layout's ghosts differ\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fieldsync::halo::Communicator comm(
        fieldsync::mpi::MPIEnvironment {}, layout.sendMap(), layout.receiveMap()
    );
    std::vector<double> field { freshField(p) };
    comm.startComm(field, "setup_bench");
    comm.finaliseComm(field, "setup_bench");
    checkGhosts(p, field, "builder");
    return { t1 - t0, 0.0 };
}

/** @brief One set-up agreement on @p env's communicator, as a set-up call makes first. */
Sample runAgreement(const fieldsync::mpi::MPIEnvironment& env)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 { MPI_Wtime() };
    fieldsync::mpi::agreeOnSetUp(
        env.comm(), fieldsync::mpi::detail::SetUpCall::HaloBuilder, std::source_location::current()
    );
    return { MPI_Wtime() - t0, 0.0 };
}

/** @brief Keeps the floor's sum alive. */
volatile std::uint64_t floorSink { 0 };

/** @brief The floor: one pass summing every adjacency entry's neighbour id and owner. */
Sample runFloor(const Problem& p)
{
    const auto ids = p.owned.adjacency();
    const int* owners { p.neighbourOwners.data() };
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 { MPI_Wtime() };
    std::uint64_t sum { 0 };
    for (std::size_t e { 0 }; e < ids.size(); ++e)
    {
        sum += static_cast<std::uint64_t>(ids[e]) + static_cast<std::uint64_t>(owners[e]);
    }
    const double t1 { MPI_Wtime() };
    floorSink = floorSink + sum;
    return { t1 - t0, 0.0 };
}

/**
 * @brief The output floor: a dense table of the owned ids (the builder's own look-up when the ids
 * are compact), then one pass writing every adjacency entry's local index into @p out (-1 for a
 * ghost). Both arrays are reused between rounds, as the builder's are not.
 */
Sample runOutputFloor(const Problem& p, int me, std::vector<int>& table, std::vector<int>& out)
{
    const auto owned = p.owned.globalIds();
    const auto ids = p.owned.adjacency();
    const int* owners { p.neighbourOwners.data() };
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 { MPI_Wtime() };
    const auto [lo, hi] = std::minmax_element(owned.begin(), owned.end());
    const auto first { owned.empty() ? 0 : *lo };
    table.assign(owned.empty() ? 0 : static_cast<std::size_t>(*hi - first + 1), -1);
    for (std::size_t i { 0 }; i < owned.size(); ++i)
    {
        table[static_cast<std::size_t>(owned[i] - first)] = static_cast<int>(i);
    }
    out.resize(ids.size());
    for (std::size_t e { 0 }; e < ids.size(); ++e)
    {
        out[e] = owners[e] == me ? table[static_cast<std::size_t>(ids[e] - first)] : -1;
    }
    const double t1 { MPI_Wtime() };
    floorSink = floorSink + static_cast<std::uint64_t>(out.empty() ? 0 : out[out.size() / 2]);
    return { t1 - t0, 0.0 };
}

#if FIELDSYNC_BENCH_PETSC
void petscCheck(PetscErrorCode code, const char* call)
{
    if (code != 0)
    {
        std::fprintf(stderr, "setup_bench: %s failed (PETSc error %d)\n", call, code);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

Sample runPetsc(const Problem& p)
{
    std::vector<PetscInt> leaves(p.ghostCells.begin(), p.ghostCells.end());
    std::vector<PetscSFNode> remote(p.ghostOwners.size());
    for (std::size_t k { 0 }; k < remote.size(); ++k)
    {
        remote[k].rank = p.ghostOwners[k].rank;
        remote[k].index = p.ghostOwners[k].index;
    }
    std::vector<double> field { freshField(p) };
    PetscSF sf { nullptr };
    petscCheck(PetscSFCreate(PETSC_COMM_WORLD, &sf), "PetscSFCreate");
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 { MPI_Wtime() };
    petscCheck(
        PetscSFSetGraph(
            sf,
            static_cast<PetscInt>(p.nOwned),
            static_cast<PetscInt>(leaves.size()),
            leaves.data(),
            PETSC_USE_POINTER,
            remote.data(),
            PETSC_USE_POINTER
        ),
        "PetscSFSetGraph"
    );
    petscCheck(PetscSFSetUp(sf), "PetscSFSetUp");
    const double t1 { MPI_Wtime() };
    petscCheck(
        PetscSFBcastBegin(sf, MPI_DOUBLE, field.data(), field.data(), MPI_REPLACE),
        "PetscSFBcastBegin"
    );
    petscCheck(
        PetscSFBcastEnd(sf, MPI_DOUBLE, field.data(), field.data(), MPI_REPLACE), "PetscSFBcastEnd"
    );
    const double t2 { MPI_Wtime() };
    petscCheck(PetscSFDestroy(&sf), "PetscSFDestroy");
    checkGhosts(p, field, "petscSF");
    return { t1 - t0, t2 - t1 };
}
#endif

#if FIELDSYNC_BENCH_TPETRA
using TpetraMap = Tpetra::Map<int, long long>;

/** @brief Tpetra: row Map, CrsGraph of the owned cells' neighbours, fillComplete; checked. */
Sample runCrsGraph(const Teuchos::RCP<const Teuchos::Comm<int>>& comm, const Problem& p)
{
    const auto offsets = p.owned.offsets();
    const std::vector<long long> ids(p.owned.globalIds().begin(), p.owned.globalIds().end());
    const std::vector<long long> adjacency(p.owned.adjacency().begin(), p.owned.adjacency().end());
    std::vector<std::size_t> rowLengths(ids.size());
    for (std::size_t i { 0 }; i < ids.size(); ++i)
    {
        rowLengths[i] = offsets[i + 1] - offsets[i];
    }
    const auto view = [](const auto* data, std::size_t n)
    {
        return Teuchos::ArrayView<const std::remove_const_t<std::remove_pointer_t<decltype(data)>>>(
            data, static_cast<int>(n)
        );
    };
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 { MPI_Wtime() };
    const auto rowMap = Teuchos::rcp(new TpetraMap(
        Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
        view(ids.data(), ids.size()),
        0,
        comm
    ));
    Tpetra::CrsGraph<int, long long> graph(rowMap, view(rowLengths.data(), rowLengths.size()));
    for (std::size_t i { 0 }; i < ids.size(); ++i)
    {
        graph.insertGlobalIndices(ids[i], view(adjacency.data() + offsets[i], rowLengths[i]));
    }
    graph.fillComplete();
    const double t1 { MPI_Wtime() };
    // the column Map's ghosts are the ghost list (as a set: Tpetra orders them by owner, not
    // always by id within one owner), and one import of a vector of the truth on the owned rows
    // fills them with the truth of their ids
    const auto columns = graph.getColMap();
    Tpetra::Vector<double, int, long long> owned(rowMap);
    Tpetra::Vector<double, int, long long> local(columns);
    {
        const auto values = owned.getLocalViewHost(Tpetra::Access::OverwriteAll);
        for (std::size_t i { 0 }; i < ids.size(); ++i)
        {
            values(i, 0) = truth(ids[i]);
        }
    }
    if (!graph.getImporter().is_null())
    {
        local.doImport(owned, *graph.getImporter(), Tpetra::INSERT);
    }
    const auto values = local.getLocalViewHost(Tpetra::Access::ReadOnly);
    std::vector<GlobalIndex> ghosts;
    bool right { true };
    for (std::size_t c { 0 }; c < columns->getNodeNumElements(); ++c)
    {
        const long long id { columns->getGlobalElement(static_cast<int>(c)) };
        if (!rowMap->isNodeGlobalElement(id))
        {
            ghosts.push_back(static_cast<GlobalIndex>(id));
            right = right && values(c, 0) == truth(static_cast<GlobalIndex>(id));
        }
    }
    std::vector<GlobalIndex> expected { p.ghostIds };
    std::sort(ghosts.begin(), ghosts.end());
    std::sort(expected.begin(), expected.end());
    if (!right || ghosts != expected)
    {
        std::fprintf(stderr, "setup_bench: crsGraph: the column Map's ghosts differ\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return { t1 - t0, 0.0 };
}
#endif

/** @brief Heap bytes in use (glibc: small blocks and mmapped ones). */
double heapBytes()
{
    const struct mallinfo2 info
    {
        mallinfo2()
    };
    return static_cast<double>(info.uordblks + info.hblkhd);
}

/** @brief This process's peak resident memory (VmHWM) in KiB, 0 where /proc is missing. */
double peakResidentKiB()
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::stod(line.substr(6));
        }
    }
    return 0.0;
}

/** @brief What one rank's set-ups keep, for the model (doc/notes/scaling.md). */
struct Kept
{
    double neighbours { 0.0 };     /**< ranks this rank sends to or receives from */
    double ghostListBytes { 0.0 }; /**< GhostList's Communicator */
    double builderBytes { 0.0 };   /**< HaloLayout plus a Communicator from its maps */
};

/** @brief Builds each set-up once more and measures the heap it keeps (not timed). */
Kept measureKept(
    const fieldsync::mpi::MPIEnvironment& env,
    const fieldsync::partition::HaloBuilder& builder,
    const Problem& p
)
{
    Kept kept;
    std::set<int> peers;
    for (const auto& owner : p.ghostOwners)
    {
        peers.insert(owner.rank);
    }
    {
        const double before { heapBytes() };
        fieldsync::halo::GhostList list(env, p.nOwned, p.ghostCells, p.ghostOwners);
        const fieldsync::halo::Communicator comm { list.communicator() };
        kept.ghostListBytes = heapBytes() - before;
        // senders: the ranks whose ghosts this rank owns (the halo graph is not symmetric in
        // general; on the grid it is)
        for (const int r : comm.sendMap().neighbours())
        {
            peers.insert(r);
        }
    }
    {
        const double before { heapBytes() };
        const fieldsync::partition::HaloLayout layout { builder.build(p.owned, p.neighbourOwners) };
        const fieldsync::halo::Communicator comm(
            fieldsync::mpi::MPIEnvironment {}, layout.sendMap(), layout.receiveMap()
        );
        kept.builderBytes = heapBytes() - before;
    }
    kept.neighbours = static_cast<double>(peers.size());
    return kept;
}

/** @brief One table row. */
struct Row
{
    std::size_t cells { 0 };       /**< owned cells per rank (maximum over ranks) */
    std::size_t ghosts { 0 };      /**< ghosts per rank (maximum over ranks) */
    double ghostList { 0.0 };      /**< median set-up seconds */
    double ghostListFirst { 0.0 }; /**< median first exchange */
    double builder { 0.0 };        /**< median HaloBuilder::build */
    double floor { 0.0 };          /**< median of the floor (one pass over the input) */
    double outFloor { 0.0 };       /**< median of the output floor (numbering + local adjacency) */
    double agreement { 0.0 };      /**< median of one set-up agreement */
    double petsc { 0.0 };          /**< median PetscSF set-up (0 without PETSc) */
    double petscFirst { 0.0 };     /**< median PetscSF first Bcast */
    double crsGraph { 0.0 };       /**< median Tpetra CrsGraph + fillComplete (0 without) */
    double neighbours { 0.0 };     /**< neighbour ranks (maximum over ranks) */
    std::vector<double> perRank;   /**< on rank 0: cells, ghosts, neighbours, ghost-list bytes,
                                        builder bytes of each rank in turn */
};

enum Method
{
    GhostListMethod,
    BuilderMethod,
    PetscMethod,
    CrsGraphMethod,
    FloorMethod,
    OutputFloorMethod,
    AgreementMethod,
    Methods
};
} // namespace

int main(int argc, char** argv)
{
    fieldsync::mpi::MPIInit init(argc, argv);
    fieldsync::mpi::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    std::string jsonPath { "setup_bench.json" };
    int rounds { 11 };
    std::vector<long> targets { 256, 16384, 131072, 442368 };
    std::string only;
    for (int a { 1 }; a < argc; ++a)
    {
        const std::string arg { argv[a] };
        if (arg == "--json" && a + 1 < argc)
        {
            jsonPath = argv[++a];
        }
        else if (arg == "--rounds" && a + 1 < argc)
        {
            rounds = std::max(1, std::stoi(argv[++a]));
        }
        else if (arg == "--sizes" && a + 1 < argc)
        {
            targets.clear();
            std::stringstream list { std::string(argv[++a]) };
            for (std::string item; std::getline(list, item, ',');)
            {
                targets.push_back(std::stol(item));
            }
        }
        else if (arg == "--only" && a + 1 < argc)
        {
            only = argv[++a];
        }
    }
#if FIELDSYNC_BENCH_PETSC
    petscCheck(PetscInitialize(&argc, &argv, nullptr, nullptr), "PetscInitialize");
    const bool havePetsc { true };
#else
    const bool havePetsc { false };
#endif
#if FIELDSYNC_BENCH_TPETRA
    const bool haveTpetra { true };
    // MPI and Kokkos run already: Tpetra leaves both to this program
    std::optional<Tpetra::ScopeGuard> tpetra;
    tpetra.emplace(&argc, &argv);
    MPI_Comm tpetraWorld { MPI_COMM_NULL };
    MPI_Comm_dup(MPI_COMM_WORLD, &tpetraWorld);
    Teuchos::RCP<const Teuchos::Comm<int>> tpetraComm { new Teuchos::MpiComm<int>(tpetraWorld) };
#else
    const bool haveTpetra { false };
#endif
    const fieldsync::mpi::MPIEnvironment env;
    const int me { env.rank() };
    const int nRanks { env.sizeRank() };
    const fieldsync::partition::HaloBuilder builder(env);
    const bool run[Methods] { only.empty() || only == "ghostList",
                              only.empty() || only == "builder",
                              havePetsc && (only.empty() || only == "petscSF"),
                              haveTpetra && (only.empty() || only == "crsGraph"),
                              only.empty() || only == "floor",
                              only.empty() || only == "outFloor",
                              only.empty() || only == "agreement" };
    std::vector<Row> rows;
    std::vector<int> floorTable; // the output floor's arrays, reused between rounds
    std::vector<int> floorOut;
    std::optional<double> coldGhostList;
    std::optional<double> coldPetsc;
    for (const long target : targets)
    {
        const int side { static_cast<int>(std::lround(std::cbrt(double(target) * nRanks))) };
        const Problem problem { fieldsync_bench::makeGridProblem(3, side, me, nRanks) };
        std::vector<double> times[Methods][2];
        const int warmUp { 2 };
        fieldsync_bench::interleaved(
            warmUp + rounds,
            Methods,
            [&](int round, int method)
            {
                if (!run[method])
                {
                    return;
                }
                Sample sample;
                if (method == GhostListMethod)
                {
                    sample = runGhostList(env, problem);
                    if (!coldGhostList)
                    {
                        coldGhostList = sample.setUp + sample.exchange;
                    }
                }
                else if (method == BuilderMethod)
                {
                    sample = runBuilder(builder, problem);
                }
                else if (method == FloorMethod)
                {
                    sample = runFloor(problem);
                }
                else if (method == OutputFloorMethod)
                {
                    sample = runOutputFloor(problem, me, floorTable, floorOut);
                }
                else if (method == AgreementMethod)
                {
                    sample = runAgreement(env);
                }
#if FIELDSYNC_BENCH_TPETRA
                else if (method == CrsGraphMethod)
                {
                    sample = runCrsGraph(tpetraComm, problem);
                }
#endif
#if FIELDSYNC_BENCH_PETSC
                else
                {
                    sample = runPetsc(problem);
                    if (!coldPetsc)
                    {
                        coldPetsc = sample.setUp + sample.exchange;
                    }
                }
#endif
                if (round >= warmUp)
                {
                    times[method][0].push_back(sample.setUp);
                    times[method][1].push_back(sample.exchange);
                }
            }
        );
        Row row;
        std::vector<double> counts { static_cast<double>(problem.nOwned),
                                     static_cast<double>(problem.ghostIds.size()) };
        counts = maxOverRanks(counts);
        row.cells = static_cast<std::size_t>(counts[0]);
        row.ghosts = static_cast<std::size_t>(counts[1]);
        double* slots[Methods][2] { { &row.ghostList, &row.ghostListFirst },
                                    { &row.builder, nullptr },
                                    { &row.petsc, &row.petscFirst },
                                    { &row.crsGraph, nullptr },
                                    { &row.floor, nullptr },
                                    { &row.outFloor, nullptr },
                                    { &row.agreement, nullptr } };
        for (int m { 0 }; m < Methods; ++m)
        {
            for (int phase { 0 }; phase < 2; ++phase)
            {
                if (slots[m][phase] != nullptr && !times[m][phase].empty())
                {
                    *slots[m][phase] = median(maxOverRanks(times[m][phase]));
                }
            }
        }
        const Kept kept { measureKept(env, builder, problem) };
        const std::vector<double> mine { static_cast<double>(problem.nOwned),
                                         static_cast<double>(problem.ghostIds.size()),
                                         kept.neighbours,
                                         kept.ghostListBytes,
                                         kept.builderBytes };
        row.perRank.resize(mine.size() * static_cast<std::size_t>(nRanks));
        MPI_Gather(
            mine.data(),
            static_cast<int>(mine.size()),
            MPI_DOUBLE,
            row.perRank.data(),
            static_cast<int>(mine.size()),
            MPI_DOUBLE,
            0,
            MPI_COMM_WORLD
        );
        row.neighbours = maxOverRanks({ kept.neighbours })[0];
        rows.push_back(row);
    }
    const double peakKiB { maxOverRanks({ peakResidentKiB() })[0] };
    // what MPI keeps per communicator (every Communicator duplicates one): O(P) in some MPIs
    double commDupBytes { 0.0 };
    {
        MPI_Comm dup { MPI_COMM_NULL };
        const double before { heapBytes() };
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        commDupBytes = maxOverRanks({ heapBytes() - before })[0];
        MPI_Comm_free(&dup);
    }
    std::vector<double> cold { coldGhostList.value_or(0.0), coldPetsc.value_or(0.0) };
    cold = maxOverRanks(cold);
#if FIELDSYNC_BENCH_TPETRA
    tpetraComm = Teuchos::null;
    MPI_Comm_free(&tpetraWorld);
    tpetra.reset();
#endif
#if FIELDSYNC_BENCH_PETSC
    petscCheck(PetscFinalize(), "PetscFinalize");
#endif
    if (me != 0)
    {
        return 0;
    }
    const auto ratio = [](double a, double b)
    {
        return b > 0.0 ? a / b : 0.0;
    };
    std::printf(
        "setup_bench: %d ranks, METIS-partitioned 3-D 7-point grid, median of %d interleaved "
        "rounds, max over ranks (us)%s%s\n",
        nRanks,
        rounds,
        havePetsc ? "" : "; built without PETSc",
        haveTpetra ? "" : "; built without Tpetra"
    );
    std::printf(
        "%10s %8s %11s %10s %8s %10s %8s %10s %8s %9s %9s %9s %8s %11s %11s %9s %8s\n",
        "cells/rank",
        "ghosts",
        "ghostList",
        "petscSF",
        "gl/sf",
        "builder",
        "bld/sf",
        "crsGraph",
        "bld/crs",
        "floor",
        "bld/floor",
        "outFloor",
        "bld/out",
        "1st exch gl",
        "1st exch sf",
        "agreement",
        "agr/gl"
    );
    for (const Row& r : rows)
    {
        std::printf(
            "%10zu %8zu %11.1f %10.1f %8.3f %10.1f %8.2f %10.1f %8.3f %9.1f %9.2f %9.1f %8.2f "
            "%11.1f "
            "%11.1f "
            "%9.1f %8.4f\n",
            r.cells,
            r.ghosts,
            r.ghostList * 1e6,
            r.petsc * 1e6,
            ratio(r.ghostList, r.petsc),
            r.builder * 1e6,
            ratio(r.builder, r.petsc),
            r.crsGraph * 1e6,
            ratio(r.builder, r.crsGraph),
            r.floor * 1e6,
            ratio(r.builder, r.floor),
            r.outFloor * 1e6,
            ratio(r.builder, r.outFloor),
            r.ghostListFirst * 1e6,
            r.petscFirst * 1e6,
            r.agreement * 1e6,
            ratio(r.agreement, r.ghostList)
        );
    }
    std::printf(
        "cold (first set-up + exchange of the process): ghostList %.1f us, petscSF %.1f us\n",
        cold[0] * 1e6,
        cold[1] * 1e6
    );
    std::ofstream out(jsonPath);
    out << "{\n  \"benchmark\": \"setup_bench\",\n  \"ranks\": " << nRanks
        << ",\n  \"rounds\": " << rounds << ",\n  \"petsc\": " << (havePetsc ? "true" : "false")
        << ",\n  \"tpetra\": " << (haveTpetra ? "true" : "false")
        << ",\n  \"coldGhostListSeconds\": " << cold[0] << ",\n  \"coldPetscSeconds\": " << cold[1]
        << ",\n  \"peakResidentKiB\": " << peakKiB << ",\n  \"commDupBytes\": " << commDupBytes
        << ",\n  \"rows\": [\n";
    for (std::size_t k { 0 }; k < rows.size(); ++k)
    {
        const Row& r { rows[k] };
        out << "    {\"cellsPerRank\": " << r.cells << ", \"ghostsPerRank\": " << r.ghosts
            << ", \"ghostListSeconds\": " << r.ghostList
            << ", \"ghostListFirstExchangeSeconds\": " << r.ghostListFirst
            << ", \"builderSeconds\": " << r.builder << ", \"petscSetUpSeconds\": " << r.petsc
            << ", \"petscFirstBcastSeconds\": " << r.petscFirst
            << ", \"ghostListOverPetsc\": " << ratio(r.ghostList, r.petsc)
            << ", \"builderOverPetsc\": " << ratio(r.builder, r.petsc)
            << ", \"crsGraphSeconds\": " << r.crsGraph
            << ", \"builderOverCrsGraph\": " << ratio(r.builder, r.crsGraph)
            << ", \"floorSeconds\": " << r.floor
            << ", \"builderOverFloor\": " << ratio(r.builder, r.floor)
            << ", \"outputFloorSeconds\": " << r.outFloor
            << ", \"builderOverOutputFloor\": " << ratio(r.builder, r.outFloor)
            << ", \"agreementSeconds\": " << r.agreement
            << ", \"neighboursPerRank\": " << r.neighbours << ",\n     \"perRank\": [";
        for (std::size_t i { 0 }; i < r.perRank.size(); i += 5)
        {
            out << (i == 0 ? "" : ", ") << "{\"cells\": " << r.perRank[i]
                << ", \"ghosts\": " << r.perRank[i + 1] << ", \"neighbours\": " << r.perRank[i + 2]
                << ", \"ghostListBytes\": " << r.perRank[i + 3]
                << ", \"builderBytes\": " << r.perRank[i + 4] << "}";
        }
        out << "]}" << (k + 1 < rows.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    std::printf("wrote %s\n", jsonPath.c_str());
    return 0;
}
