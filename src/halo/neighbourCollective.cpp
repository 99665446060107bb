// SPDX-License-Identifier: MIT
// The neighbourhood-collective exchange back end: MPI_Ineighbor_alltoallv on the distributed
// graph communicator made at commit.
#include "backEnds.hpp"
#include "transport.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <algorithm>
#include <vector>

namespace fieldsync::halo
{

namespace
{

/** @brief Counts and displacements of one direction, relative to its lowest address. */
struct Layout
{
    std::vector<int> ranks;  /**< peers, ascending (the graph's neighbour order) */
    std::vector<int> counts; /**< bytes per peer */
    std::vector<int> displs; /**< byte displacement per peer from base */
    char* base { nullptr };  /**< the lowest message address */

    /** @brief Sets the layout from @p messages (no allocation once sized). */
    void set(std::span<const Message> messages)
    {
        base = messages.empty() ? nullptr : static_cast<char*>(messages.front().data);
        for (const Message& m : messages)
        {
            base = std::min(base, static_cast<char*>(m.data));
        }
        ranks.resize(messages.size());
        counts.resize(messages.size());
        displs.resize(messages.size());
        for (std::size_t i = 0; i < messages.size(); ++i)
        {
            ranks[i] = messages[i].rank;
            counts[i] = messages[i].bytes;
            displs[i] = static_cast<int>(static_cast<char*>(messages[i].data) - base);
        }
    }
};

/**
 * @brief What the two directions of one buffer share: the graph communicator, both layouts and
 * the one request of the collective. The receive side posts nothing itself: the collective
 * starts when the sends are posted (after packing), and both sides test its request.
 */
struct Shared
{
    MPI_Comm graph { MPI_COMM_NULL };         /**< neighbours: sources receive, dests send */
    Layout send;                              /**< this post's sends */
    Layout receive;                           /**< this post's receives */
    MPI_Request request { MPI_REQUEST_NULL }; /**< the collective */
    bool active { false };                    /**< started and not yet complete */

    void start(const std::source_location& where)
    {
        FIELDSYNC_MPI_AT(
            MPI_Ineighbor_alltoallv(
                send.base,
                send.counts.data(),
                send.displs.data(),
                MPI_BYTE,
                receive.base,
                receive.counts.data(),
                receive.displs.data(),
                MPI_BYTE,
                graph,
                &request
            ),
            where
        );
        active = true;
    }

    bool test(const std::source_location& where)
    {
        if (!active)
        {
            return true;
        }
        int flag { 0 };
        FIELDSYNC_MPI_AT(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), where);
        active = flag == 0;
        return flag != 0;
    }

    bool complete(std::string_view name) noexcept
    {
        int finalised { 0 };
        MPI_Finalized(&finalised);
        if (finalised || !active)
        {
            return true;
        }
        logger().error(
            "communication buffer '{}': a neighbourhood collective still in flight is completed "
            "before its memory is freed",
            name
        );
        return completeDropped(
            [this] { return test(std::source_location::current()); },
            "the neighbourhood collective",
            name
        );
    }
};

/** @brief One direction of the neighbourhood back end (both share one Shared). */
class NeighbourCollective final : public Transport
{
public:
    NeighbourCollective(std::shared_ptr<Shared> shared, bool isSend)
        : shared_(std::move(shared)), isSend_(isSend)
    {
    }

    void post(
        std::span<const Message> messages,
        int /*tag*/,
        bool /*persistent: a collective is started anew each time*/,
        bool unchanged,
        const std::source_location& where
    ) override
    {
        if (!unchanged)
        {
            (isSend_ ? shared_->send : shared_->receive).set(messages);
        }
        if (isSend_)
        {
            shared_->start(where); // the receives were recorded first (post receives, pack, send)
        }
    }

    bool test(std::string_view /*name*/, const std::source_location& where) override
    {
        return shared_->test(where);
    }

    std::string describePending(const std::source_location& /*where*/) override
    {
        return shared_->active
                   ? describeNeighbourhood(
                         "neighbourhood alltoallv", shared_->send.ranks, shared_->receive.ranks
                     )
                   : std::string();
    }

    bool awaits(int /*rank*/) noexcept override { return shared_->active; }

    bool cancel(std::string_view name) noexcept override { return shared_->complete(name); }

    /** @brief A collective cannot be cancelled: it completes (the peers' collectives match it). */
    bool settle(std::span<const char> /*cancel*/, std::string_view name) noexcept override
    {
        return !shared_->active ||
               completeDropped(
                   [this]
                   {
                       int flag { 0 };
                       MPI_Test(&shared_->request, &flag, MPI_STATUS_IGNORE); // errors complete it
                       shared_->active = flag == 0;
                       return flag != 0;
                   },
                   "the neighbourhood collective",
                   name
               );
    }

private:
    std::shared_ptr<Shared> shared_; /**< the collective both directions share */
    bool isSend_;                    /**< sends or receives */
};

/**
 * @brief The back end's state on one Communicator: the graph communicators of both directions.
 * Each pool buffer gets, once, the two directions of one MPI_Ineighbor_alltoallv on the graph
 * of its direction (sources: the ranks received from; destinations: the ranks sent to; both
 * ascending, without this rank and without empty lists). Messages must lie in one buffer per
 * direction (no in-place slots: BackEndEntry::collective).
 */
class NeighbourCollectiveSetUp final : public BackEndSetUp
{
public:
    explicit NeighbourCollectiveSetUp(NeighbourGraphs graphs) : graphs_(std::move(graphs)) {}

    void install(Exchange& exchange, DuplexBuffer& buffer, std::size_t /*entry*/) override
    {
        if (buffer.sendHalf().hasTransport())
        {
            return; // a buffer serves one direction: its transports stay
        }
        auto shared = std::make_shared<Shared>();
        shared->graph = exchange.reverse ? graphs_.reverse.comm() : graphs_.forward.comm();
        buffer.setTransports(
            std::make_unique<NeighbourCollective>(shared, true),
            std::make_unique<NeighbourCollective>(shared, false),
            exchange.key.where()
        );
    }

private:
    NeighbourGraphs graphs_; /**< the graph communicators (outlive the buffers' transports) */
};

/** @brief The ranks of @p map's neighbours other than @p me, in the map's (ascending) order. */
std::vector<int> peersOf(const RankSimplexCommMap& map, int me)
{
    std::vector<int> peers;
    for (std::size_t k = 0; k < map.neighbourCount(); ++k)
    {
        if (map.neighbours()[k] != me)
        {
            peers.push_back(map.neighbours()[k]);
        }
    }
    return peers;
}

} // namespace

NeighbourGraphs makeNeighbourGraphs(
    const Pattern& pattern, const mpi::MPIEnvironment& env, const std::source_location& where
)
{
    const auto graph = [&](const std::vector<int>& sources, const std::vector<int>& destinations)
    {
        MPI_Comm comm { MPI_COMM_NULL };
        FIELDSYNC_MPI_AT(
            MPI_Dist_graph_create_adjacent(
                env.comm(),
                static_cast<int>(sources.size()),
                sources.data(),
                MPI_UNWEIGHTED,
                static_cast<int>(destinations.size()),
                destinations.data(),
                MPI_UNWEIGHTED,
                MPI_INFO_NULL,
                0,
                &comm
            ),
            where
        );
        return mpi::MPIEnvironment::adopt(comm, where);
    };
    const int me = env.rank();
    const std::vector<int> sends { peersOf(pattern.sendMap(), me) };
    const std::vector<int> receives { peersOf(pattern.receiveMap(), me) };
    // collective: a braced list is evaluated in order, so every rank makes forward, then reverse
    return NeighbourGraphs { graph(receives, sends), graph(sends, receives) };
}

extern constinit const BackEndEntry neighbourCollectiveBackEnd {
    BackEnd::NeighbourCollective,
    "NeighbourCollective",
    "neighbour",
    "MPI_Ineighbor_alltoallv (MPI-3)",
    true,
    []() noexcept { return true; },
    [](const Pattern& pattern, const mpi::MPIEnvironment& env, const std::source_location& where
    ) -> std::unique_ptr<BackEndSetUp>
    {
        return std::make_unique<NeighbourCollectiveSetUp>(makeNeighbourGraphs(pattern, env, where));
    }
};

} // namespace fieldsync::halo
