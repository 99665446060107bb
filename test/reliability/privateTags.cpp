// SPDX-License-Identifier: MIT
// One tag space (doc/architecture.md, "Where the library's messages travel"): every library
// operation that takes a communicator runs while the test's own receives (tags spread over
// 0..32767, MPI_ANY_SOURCE and MPI_ANY_TAG ones among them) and its own synchronous sends are
// pending on that same communicator. The library's results are checked against closed forms,
// and afterwards every one of the test's messages arrives intact, where it was meant to.
#include "fieldsync_test/catch.hpp"

#include "../partition/testGraphs.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/mpi/algorithms.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reductionBatch.hpp"
#include "fieldsync/mpi/reductions.hpp"
#include "fieldsync/partition/haloBuilder.hpp"
#include "fieldsync/partition/migration.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::partition;
namespace alg = fieldsync::mpi::algorithms;

namespace
{
constexpr std::int64_t magic { 0x7a67 };
constexpr int stride { 61 };
constexpr int selfTag { 12345 }; // the one message a rank sends itself (for MPI_ANY_TAG)
using Payload = std::array<std::int64_t, 3>;

/** @brief The payload of the test's message from @p from with @p tag: a function of both. */
Payload payloadOf(int from, int tag)
{
    return { magic, from, static_cast<std::int64_t>(tag) * 7 + from };
}

/** @brief Which set a tag of the spread belongs to: 0 received from the left neighbour by tag,
 * 1 received from MPI_ANY_SOURCE by tag, 2 sent synchronously before the library runs. */
std::map<int, int> tagSets()
{
    std::map<int, int> sets;
    for (int t { 0 }; t <= 32767; t += stride)
    {
        sets[t] = (t / stride) % 3;
    }
    // the tags the library once used on the caller's communicator, received by tag
    for (const int t :
         { 1,    2,    6,    401,  402,  403,  404,  405,  406,   7001,  7002,  7003, 7101,
           7104, 7107, 7202, 7302, 7401, 7404, 7601, 7602, 32000, 32001, 32766, 32767 })
    {
        sets[t] = 0;
    }
    sets.erase(selfTag);
    return sets;
}

/** @brief The test's own traffic on one communicator: what is posted before the library runs
 * and what completes it afterwards. */
class OwnTraffic
{
public:
    explicit OwnTraffic(MPI_Comm comm) : comm_(comm), sets_(tagSets())
    {
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
        left_ = (rank_ + size_ - 1) % size_;
        right_ = (rank_ + 1) % size_;
    }

    /** @brief Posts the receives of sets 0 and 1, one MPI_ANY_TAG receive from this rank itself
     * (on 2 or more ranks: on one it would take a pending send), and the sends of set 2. */
    void post()
    {
        for (const auto& [tag, set] : sets_)
        {
            if (set == 0 || set == 1)
            {
                receive(set == 0 ? left_ : MPI_ANY_SOURCE, tag);
            }
        }
        if (size_ > 1)
        {
            receive(rank_, MPI_ANY_TAG);
        }
        for (const auto& [tag, set] : sets_)
        {
            if (set == 2)
            {
                send(tag, true);
            }
        }
    }

    /** @brief Whether every request posted so far is still pending (nothing the library sent
     * was taken by them, and nothing of theirs reached the library). */
    [[nodiscard]] bool stillPending()
    {
        for (MPI_Request& request : requests_)
        {
            int done { 0 };
            MPI_Request_get_status(request, &done, MPI_STATUS_IGNORE);
            if (done != 0)
            {
                return false;
            }
        }
        return true;
    }

    /** @brief Completes the traffic; returns how many of the test's messages came wrong. */
    [[nodiscard]] int finish()
    {
        for (const auto& [tag, set] : sets_)
        {
            if (set == 2)
            {
                receive(left_, tag);
            }
            else
            {
                send(tag, false);
            }
        }
        if (size_ > 1)
        {
            sent_.push_back(payloadOf(rank_, selfTag));
            MPI_Isend(sent_.back().data(), 3, MPI_INT64_T, rank_, selfTag, comm_, &next());
        }
        std::vector<MPI_Status> statuses(requests_.size());
        MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), statuses.data());
        int wrong { 0 };
        for (std::size_t k { 0 }; k < received_.size(); ++k)
        {
            const MPI_Status& status { statuses[receiveIndex_[k]] };
            int count { 0 };
            MPI_Get_count(&status, MPI_INT64_T, &count);
            const bool anyTag { receivedTags_[k] == MPI_ANY_TAG };
            const int from { anyTag ? rank_ : left_ };
            const int tag { anyTag ? selfTag : receivedTags_[k] };
            wrong += count == 3 && status.MPI_SOURCE == from && status.MPI_TAG == tag &&
                             received_[k] == payloadOf(from, tag)
                         ? 0
                         : 1;
        }
        return wrong;
    }

private:
    MPI_Request& next() { return requests_.emplace_back(MPI_REQUEST_NULL); }

    void receive(int from, int tag)
    {
        received_.push_back({});
        receivedTags_.push_back(tag);
        receiveIndex_.push_back(requests_.size());
        MPI_Irecv(received_.back().data(), 3, MPI_INT64_T, from, tag, comm_, &next());
    }

    void send(int tag, bool synchronous)
    {
        sent_.push_back(payloadOf(rank_, tag));
        (synchronous ? MPI_Issend : MPI_Isend
        )(sent_.back().data(), 3, MPI_INT64_T, right_, tag, comm_, &next());
    }

    MPI_Comm comm_;
    std::map<int, int> sets_;
    int rank_ { 0 };
    int size_ { 1 };
    int left_ { 0 };
    int right_ { 0 };
    std::vector<MPI_Request> requests_;
    std::deque<Payload> received_; // stable addresses while receives are posted
    std::deque<Payload> sent_;
    std::vector<int> receivedTags_;
    std::vector<std::size_t> receiveIndex_;
};

/** @brief Value i of rank r's input to the algorithms. */
std::int64_t f(int r, std::size_t i)
{
    return 1000 * (r + 1) + static_cast<std::int64_t>(i);
}

/** @brief Every algorithm of mpi::algorithms on @p comm, rooted ones at @p root; returns the
 * number of wrong values. */
int runAlgorithms(MPI_Comm comm, int rank, int size, int root)
{
    const std::size_t n { 5 };
    const auto ps = static_cast<std::size_t>(size);
    const alg::TypeDesc type { mpi::detail::typeDesc<std::int64_t>() };
    const alg::Context context { comm, std::source_location::current(), "privateTags" };
    std::vector<std::int64_t> mine(n * ps);
    for (std::size_t i { 0 }; i < mine.size(); ++i)
    {
        mine[i] = f(rank, i);
    }
    int wrong { 0 };
    const auto sumOf = [size](std::size_t i)
    {
        std::int64_t sum { 0 };
        for (int r { 0 }; r < size; ++r)
        {
            sum += f(r, i);
        }
        return sum;
    };
    const auto check = [&wrong](bool right)
    {
        wrong += right ? 0 : 1;
    };
    // reductions
    using AllReduce = alg::
        Schedule (*)(const void*, void*, std::size_t, const alg::TypeDesc&, MPI_Op, const alg::Context&);
    for (const AllReduce run : { AllReduce { alg::allReduceRecursiveDoubling },
                                 AllReduce { alg::allReduceRing },
                                 AllReduce { alg::allReduceRabenseifner } })
    {
        std::vector<std::int64_t> out(n * ps, -1);
        run(mine.data(), out.data(), out.size(), type, MPI_SUM, context).wait();
        for (std::size_t i { 0 }; i < out.size(); ++i)
        {
            check(out[i] == sumOf(i));
        }
    }
    {
        std::vector<std::int64_t> out(n * ps, -1);
        alg::reduceBinomial(mine.data(), out.data(), out.size(), type, MPI_SUM, root, context)
            .wait();
        for (std::size_t i { 0 }; rank == root && i < out.size(); ++i)
        {
            check(out[i] == sumOf(i));
        }
        std::vector<std::int64_t> block(n, -1);
        alg::reduceScatterRecursiveHalving(mine.data(), block.data(), n, type, MPI_SUM, context)
            .wait();
        for (std::size_t i { 0 }; i < n; ++i)
        {
            check(block[i] == sumOf(static_cast<std::size_t>(rank) * n + i));
        }
    }
    // broadcasts
    using Broadcast =
        alg::Schedule (*)(void*, std::size_t, const alg::TypeDesc&, int, const alg::Context&);
    for (const Broadcast run :
         { Broadcast { alg::broadcastBinomial }, Broadcast { alg::broadcastScatterAllGather } })
    {
        std::vector<std::int64_t> data(mine);
        run(data.data(), data.size(), type, root, context).wait();
        for (std::size_t i { 0 }; i < data.size(); ++i)
        {
            check(data[i] == f(root, i));
        }
    }
    // scatters, gathers, all-gathers
    using Rooted = alg::
        Schedule (*)(const void*, void*, std::size_t, const alg::TypeDesc&, int, const alg::Context&);
    for (const Rooted run :
         { Rooted { alg::scatterNaive }, Rooted { alg::scatterDivideAndConquer } })
    {
        std::vector<std::int64_t> block(n, -1);
        run(mine.data(), block.data(), n, type, root, context).wait();
        for (std::size_t i { 0 }; i < n; ++i)
        {
            check(block[i] == f(root, static_cast<std::size_t>(rank) * n + i));
        }
    }
    for (const Rooted run : { Rooted { alg::gatherBinomial }, Rooted { alg::gatherNaive } })
    {
        std::vector<std::int64_t> all(n * ps, -1);
        run(mine.data(), all.data(), n, type, root, context).wait();
        for (std::size_t i { 0 }; rank == root && i < all.size(); ++i)
        {
            check(all[i] == f(static_cast<int>(i / n), i % n));
        }
    }
    using AllGather = alg::
        Schedule (*)(const void*, void*, std::size_t, const alg::TypeDesc&, const alg::Context&);
    for (const AllGather run :
         { AllGather { alg::allGatherRing }, AllGather { alg::allGatherRecursiveDoubling } })
    {
        std::vector<std::int64_t> all(n * ps, -1);
        run(mine.data(), all.data(), n, type, context).wait();
        for (std::size_t i { 0 }; i < all.size(); ++i)
        {
            check(all[i] == f(static_cast<int>(i / n), i % n));
        }
    }
    // the public entry point (through check mode's agreement when it is on)
    std::int64_t total { rank + 1 };
    mpi::allReduce(total, mpi::ReduceOp::Sum, comm);
    check(total == static_cast<std::int64_t>(size) * (size + 1) / 2);
    return wrong;
}

/** @brief One exchange of a field of known values through @p comm; true when every ghost got
 * the value its owner holds. */
bool exchangeIsRight(halo::Communicator& comm, const HaloLayout& layout)
{
    std::vector<double> field(layout.nLocal(), -1.0);
    for (std::size_t i { 0 }; i < layout.nOwned(); ++i)
    {
        field[i] = test::valueOf(layout.globalIds()[i]);
    }
    comm.startComm(field, "privateTags");
    comm.finaliseComm(field, "privateTags");
    bool right { true };
    for (std::size_t i { 0 }; i < layout.nLocal(); ++i)
    {
        right = right && field[i] == test::valueOf(layout.globalIds()[i]);
    }
    return right;
}

/** @brief The partition layer, GhostList and the Communicator on @p env; the number of wrong
 * results. */
int runPartitionAndHalo(const mpi::MPIEnvironment& env)
{
    const int rank { env.rank() };
    const int size { env.sizeRank() };
    const CellGraph g { test::grid(8, 6) };
    std::vector<int> parts(g.nCells());
    std::vector<int> cyclic(g.nCells());
    for (std::size_t c { 0 }; c < g.nCells(); ++c)
    {
        parts[c] = static_cast<int>(c * static_cast<std::size_t>(size) / g.nCells());
        cyclic[c] = static_cast<int>(c % static_cast<std::size_t>(size));
    }
    const CellGraph piece { test::ownedPiece(g, parts, rank) };
    int wrong { 0 };

    // the owner directory: every cell's owner, and -1 beyond the mesh
    const OwnerDirectory directory(env.comm(), piece.globalIds());
    std::vector<GlobalIndex> asked;
    for (GlobalIndex id { 0 }; id < static_cast<GlobalIndex>(g.nCells()) + 2; ++id)
    {
        asked.push_back((id * 7 + rank) % (static_cast<GlobalIndex>(g.nCells()) + 2));
    }
    const std::vector<int> owners { directory.owners(asked) };
    for (std::size_t k { 0 }; k < asked.size(); ++k)
    {
        const bool inMesh { asked[k] < static_cast<GlobalIndex>(g.nCells()) };
        wrong += owners[k] == (inMesh ? parts[static_cast<std::size_t>(asked[k])] : -1) ? 0 : 1;
    }

    // HaloBuilder, owners found and given, one and two layers, and the Communicators on them
    const HaloBuilder builder(env);
    const HaloLayout layout { builder.build(piece) };
    wrong += test::sendsOf(layout) == test::expectedSends(g, parts, rank) ? 0 : 1;
    const HaloLayout given { builder.build(piece, test::neighbourOwners(piece, parts)) };
    wrong += test::sendsOf(given) == test::expectedSends(g, parts, rank) ? 0 : 1;
    const HaloLayout deep { HaloBuilder(env, 2).build(piece) };
    halo::Communicator deepComm(env, deep.sendMap(), deep.receiveMap());
    wrong += exchangeIsRight(deepComm, deep) ? 0 : 1;

    // GhostList from the layout's ghosts (owner and its local index: ownedPiece lists a rank's
    // cells by descending id)
    std::vector<LocalIndex> ghostCells;
    std::vector<halo::GhostOwner> ghostOwners;
    for (std::size_t k { 0 }; k < layout.nGhost(); ++k)
    {
        const GlobalIndex id { layout.globalIds()[layout.nOwned() + k] };
        const int owner { parts[static_cast<std::size_t>(id)] };
        LocalIndex index { 0 };
        for (std::size_t c { static_cast<std::size_t>(id) + 1 }; c < parts.size(); ++c)
        {
            index += parts[c] == owner ? 1 : 0;
        }
        ghostCells.push_back(static_cast<LocalIndex>(layout.nOwned() + k));
        ghostOwners.push_back({ owner, index });
    }
    halo::Communicator listed {
        halo::GhostList(env, layout.nOwned(), ghostCells, ghostOwners).communicator()
    };
    wrong += exchangeIsRight(listed, layout) ? 0 : 1;

    // Migration to the cyclic partition: the new cells, and a field's values with them
    std::vector<int> newOwners(piece.nCells());
    Kokkos::View<double*, Kokkos::HostSpace> field("privateTags::field", piece.nCells());
    for (std::size_t i { 0 }; i < piece.nCells(); ++i)
    {
        newOwners[i] = cyclic[static_cast<std::size_t>(piece.globalId(i))];
        field(i) = test::valueOf(piece.globalId(i));
    }
    const Migration migration(env, piece, newOwners);
    std::vector<GlobalIndex> expectedIds;
    for (std::size_t c { 0 }; c < g.nCells(); ++c)
    {
        if (cyclic[c] == rank)
        {
            expectedIds.push_back(static_cast<GlobalIndex>(c));
        }
    }
    const auto ids = migration.cells().globalIds();
    wrong += std::vector<GlobalIndex>(ids.begin(), ids.end()) == expectedIds ? 0 : 1;
    migration.migrate(migration.nNewOwned(), field);
    for (std::size_t i { 0 }; i < migration.nNewOwned(); ++i)
    {
        wrong += field(i) == test::valueOf(expectedIds[i]) ? 0 : 1;
    }
    return wrong;
}

/** @brief A ReductionBatch with fieldsync's own recursive doubling on @p comm, blocking and
 * started, tested and waited for: the number of wrong results (closed forms of the rank). */
int runBatch(MPI_Comm comm, int rank, int size)
{
    std::int64_t sum { 0 };
    double largest { 0 };
    mpi::ReductionBatch batch(comm, mpi::Algorithm::RecursiveDoubling);
    batch.add(sum, mpi::ReduceOp::Sum).add(largest, mpi::ReduceOp::Max);
    int wrong { 0 };
    for (int round { 0 }; round < 3; ++round)
    {
        sum = rank + 1;
        largest = 0.5 * rank;
        if (round == 0)
        {
            batch.run();
        }
        else
        {
            batch.start();
            for (int k { 0 }; k < 3 && batch.inFlight(); ++k)
            {
                (void)batch.test();
            }
            if (batch.inFlight())
            {
                batch.wait();
            }
        }
        wrong += sum == std::int64_t { size } * (size + 1) / 2 ? 0 : 1;
        wrong += largest == 0.5 * (size - 1) ? 0 : 1;
    }
    return wrong;
}

/** @brief A lone FullDuplexCommBuffer on @p env: each rank sends its neighbours values of its
 * rank; the number of wrong values received. */
int runBuffer(const mpi::MPIEnvironment& env)
{
    const int rank { env.rank() };
    const int size { env.sizeRank() };
    std::vector<int> peers;
    for (const int peer : { (rank + size - 1) % size, (rank + 1) % size })
    {
        if (peer != rank && std::find(peers.begin(), peers.end(), peer) == peers.end())
        {
            peers.push_back(peer);
        }
    }
    std::sort(peers.begin(), peers.end());
    const std::vector<std::size_t> counts(peers.size(), 4);
    halo::FullDuplexCommBuffer<Kokkos::HostSpace> buffer(env, peers, counts, peers, counts);
    buffer.initComm<double>("privateTags buffer");
    for (const int peer : peers)
    {
        auto out = buffer.getSendBuffer<double>(peer);
        for (std::size_t i { 0 }; i < 4; ++i)
        {
            out[i] = 100.0 * rank + static_cast<double>(peer) + 0.25 * static_cast<double>(i);
        }
    }
    buffer.startComm();
    buffer.waitComplete();
    int wrong { 0 };
    for (const int peer : peers)
    {
        const auto in = buffer.getReceiveBuffer<double>(peer);
        for (std::size_t i { 0 }; i < 4; ++i)
        {
            wrong += in[i] == 100.0 * peer + rank + 0.25 * static_cast<double>(i) ? 0 : 1;
        }
    }
    buffer.finaliseComm();
    return wrong;
}
} // namespace

TEST_CASE("The library's messages never meet the application's on the same communicator")
{
    MPI_Comm user { MPI_COMM_NULL };
    MPI_Comm_dup(MPI_COMM_WORLD, &user);
    {
        const mpi::MPIEnvironment env(user);
        OwnTraffic own(user);
        own.post();
        int wrong { 0 };
        for (int root { 0 }; root < env.sizeRank(); root += std::max(1, env.sizeRank() - 1))
        {
            wrong += runAlgorithms(user, env.rank(), env.sizeRank(), root);
        }
        wrong += runPartitionAndHalo(env);
        wrong += runBuffer(env);
        wrong += runBatch(user, env.rank(), env.sizeRank());
        const bool pending { own.stillPending() };
        MPI_Barrier(user); // no rank completes its traffic before every rank has looked
        const int ownWrong { own.finish() };
        int flag { 0 };
        MPI_Barrier(user);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, user, &flag, MPI_STATUS_IGNORE);
        CHECK(wrong == 0);
        CHECK(pending);
        CHECK(ownWrong == 0);
        CHECK(flag == 0); // nothing of the library's arrived on the user's communicator
    }
    MPI_Comm_free(&user); // frees the private duplicate with it
}
