// SPDX-License-Identifier: MIT
// The neighbourhood-collective exchange back end: MPI_Ineighbor_alltoallv on the distributed
// graph communicator made at commit.
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

} // namespace

std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>>
makeNeighbourCollective(MPI_Comm graph)
{
    auto shared = std::make_shared<Shared>();
    shared->graph = graph;
    return { std::make_unique<NeighbourCollective>(shared, true),
             std::make_unique<NeighbourCollective>(shared, false) };
}

} // namespace fieldsync::halo
