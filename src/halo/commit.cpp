// SPDX-License-Identifier: MIT
// Declare, then commit (seed 001): the steps of Communicator::commit, in the order they run:
// ownershipError, checkPattern, raise on every rank, choose the back end (backEnds.hpp) and set
// it up, or time each one (BackEnd::Auto).
#include "communicatorState.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/answeredExchange.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace fieldsync::halo
{

namespace
{
/** @brief What one rank says of its pattern with one peer. */
struct PeerRecord
{
    std::int64_t sends { -1 };      /**< cells it sends to the peer, -1: none */
    std::int64_t receives { -1 };   /**< cells it expects from the peer, -1: none */
    std::int64_t sendHash { 0 };    /**< hash of the sent cells' global ids (0: no ids) */
    std::int64_t receiveHash { 0 }; /**< hash of the expected cells' global ids */
};

/** @brief This rank's records per peer (self excluded), from the two maps. */
std::map<int, PeerRecord> recordsOf(
    const RankSimplexCommMap& send,
    const RankSimplexCommMap& receive,
    std::span<const std::int64_t> ids,
    int me
)
{
    std::map<int, PeerRecord> records;
    for (std::size_t k = 0; k < send.neighbourCount(); ++k)
    {
        const auto cells =
            send.indices().subspan(send.offsets()[k], send.offsets()[k + 1] - send.offsets()[k]);
        if (send.neighbours()[k] != me)
        {
            auto& r = records[send.neighbours()[k]];
            r.sends = static_cast<std::int64_t>(cells.size());
            r.sendHash = ids.empty() ? 0 : static_cast<std::int64_t>(cellsHash(cells, ids));
        }
    }
    for (std::size_t k = 0; k < receive.neighbourCount(); ++k)
    {
        const auto cells = receive.indices().subspan(
            receive.offsets()[k], receive.offsets()[k + 1] - receive.offsets()[k]
        );
        if (receive.neighbours()[k] != me)
        {
            auto& r = records[receive.neighbours()[k]];
            r.receives = static_cast<std::int64_t>(cells.size());
            r.receiveHash = ids.empty() ? 0 : static_cast<std::int64_t>(cellsHash(cells, ids));
        }
    }
    return records;
}

/** @brief "rank A sends N cells to rank B" or "rank A sends nothing to rank B". */
std::string sendsText(int from, int to, std::int64_t cells)
{
    return "rank " + std::to_string(from) +
           (cells < 0 ? " sends nothing to rank " + std::to_string(to)
                      : " sends " + std::to_string(cells) + " cells to rank " + std::to_string(to));
}

/** @brief "rank B expects M cells from rank A" or "... nothing ...". */
std::string expectsText(int at, int from, std::int64_t cells)
{
    return "rank " + std::to_string(at) +
           (cells < 0 ? "'s receive map expects nothing from rank " + std::to_string(from)
                      : "'s receive map expects " + std::to_string(cells) + " cells from rank " +
                            std::to_string(from));
}

/** @brief The disagreements of one direction between @p sender and @p receiver, or "". */
std::string compareDirection(
    int sender,
    int receiver,
    std::int64_t sent,
    std::int64_t expected,
    std::int64_t sentHash,
    std::int64_t expectedHash
)
{
    if (sent != expected)
    {
        return "\n  " + sendsText(sender, receiver, sent) + ", but " +
               expectsText(receiver, sender, expected);
    }
    if (sent > 0 && sentHash != 0 && expectedHash != 0 && sentHash != expectedHash)
    {
        return "\n  rank " + std::to_string(sender) + " sends " + std::to_string(sent) +
               " cells to rank " + std::to_string(receiver) +
               " in another order of global ids than rank " + std::to_string(receiver) +
               "'s receive map lists them (the lists of the two sides must match entry by entry)";
    }
    return {};
}

/** @brief Local: no send index is a ghost, no receive index an owned cell
 * (CommitOptions::ownedCells). */
std::string ownershipError(
    const RankSimplexCommMap& sendMap,
    const RankSimplexCommMap& receiveMap,
    const CommitOptions& options,
    int me
)
{
    if (options.ownedCells < 0)
    {
        return {};
    }
    const auto owned = static_cast<LocalIndex>(options.ownedCells);
    for (const auto* map : { &sendMap, &receiveMap })
    {
        const bool isSend = map == &sendMap;
        for (std::size_t k = 0; k < map->neighbourCount(); ++k)
        {
            for (std::size_t i = map->offsets()[k]; i < map->offsets()[k + 1]; ++i)
            {
                const LocalIndex cell = map->indices()[i];
                if (isSend == (cell < owned))
                {
                    continue;
                }
                return "\n  rank " + std::to_string(me) + "'s " + (isSend ? "send" : "receive") +
                       " map lists cell " + std::to_string(cell) + " for rank " +
                       std::to_string(map->neighbours()[k]) + ", " +
                       (isSend ? "a ghost" : "an owned cell") + " (cells below " +
                       std::to_string(owned) +
                       " are owned): were the send and receive maps passed in swapped order?";
            }
        }
    }
    return {};
}

/** @brief The disagreements between this rank's records and its peers' (every peer either side
 * lists; a peer missing from @p theirs lists nothing for this rank). */
std::string patternErrors(
    int me, const std::map<int, PeerRecord>& mine, const std::map<int, PeerRecord>& theirs
)
{
    std::set<int> peers;
    for (const auto& [peer, unused] : mine)
    {
        peers.insert(peer);
    }
    for (const auto& [peer, unused] : theirs)
    {
        peers.insert(peer);
    }
    std::string error;
    for (const int peer : peers)
    {
        const PeerRecord m = mine.count(peer) > 0 ? mine.at(peer) : PeerRecord {};
        const PeerRecord t = theirs.count(peer) > 0 ? theirs.at(peer) : PeerRecord {};
        error += compareDirection(me, peer, m.sends, t.receives, m.sendHash, t.receiveHash);
        error += compareDirection(peer, me, t.sends, m.receives, t.sendHash, m.receiveHash);
    }
    return error;
}

/** @brief A record as it travels: four integers. */
PeerRecord recordFrom(std::span<const std::int64_t> values)
{
    return values.size() == 4 ? PeerRecord { values[0], values[1], values[2], values[3] }
                              : PeerRecord { -2, -2, 0, 0 }; // not a record: disagrees with all
}

/** @brief The check of globalIds' length against the maps, "" when it passes. */
std::string globalIdsError(
    const RankSimplexCommMap& sendMap,
    const RankSimplexCommMap& receiveMap,
    const CommitOptions& options
)
{
    const std::int64_t highest { std::max(sendMap.maxIndex(), receiveMap.maxIndex()) };
    if (options.globalIds.empty() || static_cast<std::int64_t>(options.globalIds.size()) > highest)
    {
        return {};
    }
    return "Communicator::commit: globalIds has " + std::to_string(options.globalIds.size()) +
           " entries, but the maps index cell " + std::to_string(highest);
}

/** @brief Collective (sparse exchange on @p tag): counts, neighbours and order agree in pairs. */
std::string checkPattern(
    const Pattern& pattern,
    const mpi::MPIEnvironment& env,
    int tag,
    const CommitOptions& options,
    const std::source_location& where
)
{
    const int me = env.rank();
    const auto mine = recordsOf(pattern.sendMap(), pattern.receiveMap(), options.globalIds, me);
    std::vector<mpi::SparseMessage> outgoing;
    for (const auto& [peer, r] : mine)
    {
        outgoing.push_back({ peer, { r.sends, r.receives, r.sendHash, r.receiveHash } });
    }
    const auto incoming =
        mpi::sparseExchange(env.comm(), tag, outgoing, "Communicator commit", where);
    std::map<int, PeerRecord> theirs;
    for (const auto& message : incoming)
    {
        const auto& d = message.data;
        theirs[message.rank] = PeerRecord { d.at(0), d.at(1), d.at(2), d.at(3) };
    }
    return patternErrors(me, mine, theirs);
}
} // namespace

void CommunicatorState::commit(
    const CommitOptions& options, const std::source_location& where, bool checked
)
{
    FIELDSYNC_CHECK_AT(!committed_, "Communicator::commit: already committed", where);
    const std::string idsError {
        globalIdsError(pattern_.sendMap(), pattern_.receiveMap(), options)
    };
    FIELDSYNC_CHECK_AT(idsError.empty(), idsError, where);
    if (!checked)
    {
        std::string error =
            ownershipError(pattern_.sendMap(), pattern_.receiveMap(), options, env_.rank());
        if (options.checkPattern)
        {
            error += checkPattern(pattern_, env_, table_.tags().commit(), options, where);
        }
        if (!error.empty())
        {
            error = "Communicator::commit: the halo pattern disagrees:" + error;
        }
        mpi::raiseIfAnyFailed(env_.comm(), error, where);
    }
    const BackEndEntry* chosen = chooseBackEnd(options, where); // null: Auto
    if (chosen != nullptr)
    {
        setUp_ = chosen->makeSetUp(pattern_, env_, where);
        backEnd_ = chosen;
    }
    setUpCheck(options);
    committed_ = true;
    if (chosen == nullptr)
    {
        timeBackEnds(where);
    }
}

void CommunicatorState::timeBackEnds(const std::source_location& where)
{
    using Clock = std::chrono::steady_clock;
    const LocalIndex largest =
        std::max(pattern_.sendMap().maxIndex(), pattern_.receiveMap().maxIndex());
    Kokkos::View<double*, Kokkos::HostSpace> probe(
        "fieldsync::commitProbe", static_cast<std::size_t>(largest + 1)
    );
    const ViewFields<decltype(probe)> fields(std::span(&probe, 1));
    std::vector<const BackEndEntry*> candidates; // the available ones: the same on every rank
    std::vector<std::unique_ptr<BackEndSetUp>> setUps;
    std::vector<CommKey> keys;
    for (const BackEndEntry* entry : backEnds())
    {
        if (entry->available())
        {
            candidates.push_back(entry);
            setUps.push_back(entry->makeSetUp(pattern_, env_, where)); // collective
            keys.emplace_back(std::string("fieldsync::commit probe ") + entry->name);
        }
    }
    std::vector<std::vector<double>> seconds(candidates.size());
    try
    {
        for (int round = 0; round < 13; ++round) // 2 warm-up rounds, then 11 timed, interleaved
        {
            for (std::size_t b = 0; b < candidates.size(); ++b)
            {
                backEnd_ = candidates[b];
                std::swap(setUp_, setUps[b]);
                const auto t0 = Clock::now();
                start(fields, keys[b], false, ReverseOp::Replace);
                finish(fields, table_.byKey(keys[b], false), where);
                std::swap(setUp_, setUps[b]);
                if (round >= 2)
                {
                    seconds[b].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
                }
            }
        }
    }
    catch (...)
    {
        pool_ = BufferPool {}; // the transports go before the set-ups they run on
        throw;
    }
    std::vector<double> medians(candidates.size());
    for (std::size_t b = 0; b < candidates.size(); ++b)
    {
        std::nth_element(seconds[b].begin(), seconds[b].begin() + 5, seconds[b].end());
        medians[b] = seconds[b][5];
    }
    mpi::allReduce(std::span<double>(medians), mpi::ReduceOp::Max, env_.comm());
    table_.clear();        // the probes leave no key and no buffer behind (nothing in flight)
    pool_ = BufferPool {}; // frees the persistent probe's requests with its transports
    // The registry's first (point-to-point) stays unless another back end is faster by more than
    // the probe's margin: the probe is short and taken before the run's warm-up, and on 2 to 16
    // ranks the others, within that spread of it in the probe, were slower in the run
    // (doc/notes/performance.md, back ends on 16 cores).
    constexpr double margin { 0.9 };
    std::size_t best { 0 };
    std::string times;
    for (std::size_t b = 0; b < candidates.size(); ++b)
    {
        const bool beatsFirst = b > 0 && medians[b] < margin * medians[0];
        best = beatsFirst && (best == 0 || medians[b] < medians[best]) ? b : best;
        times.append(b > 0 ? ", " : "")
            .append(candidates[b]->name)
            .append(fmt::format(" {:.2f} us", medians[b] * 1e6));
    }
    if (env_.rank() == 0)
    {
        logger().info(
            "Communicator commit: back end {} chosen (median exchange, max over ranks: {})",
            candidates[best]->typeName,
            times
        );
    }
    backEnd_ = candidates[best];
    setUp_ = std::move(setUps[best]);
    if (setUp_ != nullptr)
    {
        setUp_->forgetBuffers(); // the pool is new
    }
}

ExchangeContext checkAndAgree(
    const mpi::MPIEnvironment& env,
    const RankSimplexCommMap& sendMap,
    const RankSimplexCommMap& receiveMap,
    const CommitOptions& options,
    const std::source_location& where
)
{
    const int me { env.rank() };
    const int size { env.sizeRank() };
    // what this rank finds alone, agreed with the rest: maps for another number of ranks (then
    // it asks nobody: its peers' ranks mean nothing here), globalIds too short (then no hashes:
    // they would read past it), a map listing cells of the wrong kind
    std::string error;
    for (const auto& [map, name] :
         { std::pair { &sendMap, "send" }, std::pair { &receiveMap, "receive" } })
    {
        if (error.empty() && map->sizeRank() != size)
        {
            error = std::string("Communicator: the ") + name + " map is for " +
                    std::to_string(map->sizeRank()) + " ranks, the communicator has " +
                    std::to_string(size);
        }
    }
    const bool mapsGood { error.empty() };
    if (mapsGood)
    {
        error = globalIdsError(sendMap, receiveMap, options);
    }
    const bool idsGood { mapsGood && error.empty() };
    if (idsGood)
    {
        error = ownershipError(sendMap, receiveMap, options, me);
    }
    const std::map<int, PeerRecord> mine {
        mapsGood ? recordsOf(
                       sendMap,
                       receiveMap,
                       idsGood ? options.globalIds : std::span<const std::int64_t> {},
                       me
                   )
                 : std::map<int, PeerRecord> {}
    };
    std::vector<mpi::SparseMessage> questions;
    questions.reserve(mine.size());
    for (const auto& [peer, r] : mine)
    {
        questions.push_back({ peer, { r.sends, r.receives, r.sendHash, r.receiveHash } });
    }
    const ContextBid bid { contextBid(env.comm(), where) };
    bool disagrees { false };
    // Each peer answers with its own record for the asker and compares the two as the question
    // arrives; the asker compares its record with the answer before it bids. A peer that lists
    // nobody may bid before a question reaches it, so only the asker's comparison is sure to
    // come before the agreement: with it, every asymmetry of the neighbour sets (a rank lists a
    // peer that does not list it back) is found by the rank that lists, and the agreement
    // carries it with the context.
    const auto differ = [me](int peer, const PeerRecord& m, const PeerRecord& t)
    {
        return !compareDirection(me, peer, m.sends, t.receives, m.sendHash, t.receiveHash)
                    .empty() ||
               !compareDirection(peer, me, t.sends, m.receives, t.sendHash, m.receiveHash).empty();
    };
    const mpi::AnsweredExchange answered { mpi::answeredExchange(
        env.comm(),
        std::move(questions),
        4,
        [&](const mpi::SparseMessage& question, std::span<std::int64_t> answer)
        {
            const auto found = mine.find(question.rank);
            const PeerRecord m { found != mine.end() ? found->second : PeerRecord {} };
            answer[0] = m.sends;
            answer[1] = m.receives;
            answer[2] = m.sendHash;
            answer[3] = m.receiveHash;
            disagrees = disagrees || differ(question.rank, m, recordFrom(question.data));
        },
        [&](std::span<const std::int64_t> answers)
        {
            std::size_t k { 0 }; // the answers follow the questions: mine's order
            for (const auto& [peer, m] : mine)
            {
                disagrees = disagrees || differ(peer, m, recordFrom(answers.subspan(4 * k, 4)));
                ++k;
            }
            const bool bad { disagrees || !error.empty() };
            return mpi::AgreementBid { bad ? 1U : 0U, bid.id, bid.window };
        },
        mpi::WaitPolicy::fromEnvironment(),
        "Communicator commit",
        where
    ) };
    if (answered.agreed[0] != 0)
    {
        // the texts as the commit's own check writes them: every peer either side lists
        std::map<int, PeerRecord> theirs;
        for (std::size_t k { 0 }; k < answered.questions.size(); ++k)
        {
            theirs[answered.questions[k].rank] = recordFrom(answered.questions[k].data);
        }
        std::size_t k { 0 }; // the answers follow the questions: mine's order, no self
        for (const auto& [peer, unused] : mine)
        {
            theirs[peer] = recordFrom(std::span(answered.answers).subspan(4 * k, 4));
            ++k;
        }
        if (idsGood)
        {
            error += patternErrors(me, mine, theirs);
            if (!error.empty())
            {
                error = "Communicator::commit: the halo pattern disagrees:" + error;
            }
        }
        mpi::raiseIfAnyFailed(mpi::detail::privateComm(env.comm(), where), error, where);
    }
    const ContextBid agreed { answered.agreed[1], answered.agreed[2] };
    takeBid(env.comm(), agreed, true);
    return grantContext(env, agreed, false, where);
}

} // namespace fieldsync::halo
