// SPDX-License-Identifier: MIT
// The persistent neighbourhood-collective exchange back end: one MPI_Neighbor_alltoallv_init
// (MPI-4) per key and cell size on the graph communicator made at commit, bound to message
// memory of its own whose layout never changes, then only MPI_Start and MPI_Test per exchange.
#include "backEnds.hpp"
#include "transport.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/mpi/stagingBytes.hpp"

#include <cstring>
#include <vector>

namespace fieldsync::halo
{

bool persistentNeighbourAvailable() noexcept
{
    return FIELDSYNC_HAVE_PERSISTENT_NEIGHBOUR != 0;
}

namespace
{

/** @brief One direction of a persistent collective: peers, counts, displacements, its memory. */
struct FixedDirection
{
    std::vector<int> ranks;  /**< peers, ascending (the graph's neighbour order) */
    std::vector<int> counts; /**< bytes per peer (MPI keeps a pointer: never resized) */
    std::vector<int> displs; /**< byte displacement per peer, packed in peer order */
    mpi::detail::StagingBytes
        bytes; /**< the memory MPI reads or writes (host, pinned in CUDA builds) */

    /** @brief Takes the layout of @p messages and reserves its memory (once: never moves). */
    void set(std::span<const Message> messages)
    {
        int offset { 0 };
        for (const Message& m : messages)
        {
            ranks.push_back(m.rank);
            counts.push_back(m.bytes);
            displs.push_back(offset);
            offset += m.bytes;
        }
        (void)bytes.reserve(static_cast<std::size_t>(offset) + 1); // never null
    }

    /** @brief Whether @p messages have this layout (same peers and sizes). */
    [[nodiscard]] bool matches(std::span<const Message> messages) const noexcept
    {
        if (messages.size() != counts.size())
        {
            return false;
        }
        for (std::size_t i = 0; i < messages.size(); ++i)
        {
            if (messages[i].rank != ranks[i] || messages[i].bytes != counts[i])
            {
                return false;
            }
        }
        return true;
    }

    /** @brief The memory of peer @p i. */
    [[nodiscard]] char* at(std::size_t i) const noexcept
    {
        return reinterpret_cast<char*>(bytes.data()) + displs[i];
    }
};

/** @brief One persistent collective: a fixed layout, its own memory, one persistent request. */
struct FixedCollective
{
    FixedDirection send;                      /**< what it sends */
    FixedDirection receive;                   /**< what it receives */
    MPI_Request request { MPI_REQUEST_NULL }; /**< MPI_Neighbor_alltoallv_init's request */
};

} // namespace

/**
 * @brief The persistent collectives of one key (one Exchange) on a graph communicator, shared by
 * the two directions of whichever pool buffer the key uses; owned by the key's Exchange and by
 * the transports bound to it. One MPI_Neighbor_alltoallv_init per layout (peers and bytes per
 * peer, that is, per cell size) the key's exchanges had, each bound to send and receive memory
 * of its own (host memory, pinned in CUDA builds) of exactly that layout, so nothing a rank
 * changes alone (its buffer's storage grows, it is staged, the key moves to another pool buffer)
 * touches what MPI was given. A layout's collective is made at the key's first exchange with it:
 * a collective call, which every rank makes at the same exchange because on a neighbourhood back
 * end every rank starts its exchanges in the same order, and a key carries the same cell size on
 * every rank. Destroyed with the last transport or Exchange holding it: the collective in flight
 * is completed under the time-out (a persistent collective cannot be cancelled), then each
 * request is freed (MPI_Request_free); when it cannot be completed, memory and requests are kept.
 */
class PersistentNeighbourOps
{
public:
    explicit PersistentNeighbourOps(mpi::MPIEnvironment graph) : graph_(std::move(graph)) {}

    /** @brief Completes the collective in flight (under the time-out), frees every request. */
    ~PersistentNeighbourOps();

    PersistentNeighbourOps(const PersistentNeighbourOps&) = delete;
    PersistentNeighbourOps& operator=(const PersistentNeighbourOps&) = delete;
    PersistentNeighbourOps(PersistentNeighbourOps&&) = delete;
    PersistentNeighbourOps& operator=(PersistentNeighbourOps&&) = delete;

    /** @brief Records this post's receives (their memory lies in @p space, or on the host). */
    void
    recordReceives(std::span<const Message> messages, const mpi::detail::SpaceOps& space, bool host)
    {
        receives_.assign(messages.begin(), messages.end()); // capacity kept: no allocation
        receiveSpace_ = &space;
        receiveHost_ = host;
    }

    /** @brief Copies @p sends into the collective of this layout and starts it (MPI_Start). */
    void start(
        std::span<const Message> sends,
        const mpi::detail::SpaceOps& space,
        bool host,
        const std::source_location& where
    );

    /** @brief Tests the collective; on completion copies the receives out. True when done. */
    bool test(const std::source_location& where);

    /** @brief Completes the collective in flight (logged; a collective cannot be cancelled). */
    bool complete(std::string_view name) noexcept;

    /** @brief Whether a collective is in flight. */
    [[nodiscard]] bool active() const noexcept { return active_; }

    /** @brief "persistent neighbourhood alltoallv (sends to ranks ...; receives from ...)". */
    [[nodiscard]] std::string describe() const;

private:
    /** @brief The collective of this layout; the first one of a layout is made (collective). */
    FixedCollective& collectiveFor(std::span<const Message> sends, const std::source_location&);

    mpi::MPIEnvironment graph_;                             /**< keeps the graph alive */
    std::vector<std::unique_ptr<FixedCollective>> fixed_;   /**< one per layout, never moved */
    FixedCollective* current_ { nullptr };                  /**< the one started last */
    std::vector<Message> receives_;                         /**< this post's receives */
    const mpi::detail::SpaceOps* receiveSpace_ { nullptr }; /**< their memory space */
    bool receiveHost_ { true };                             /**< they lie in host memory */
    bool active_ { false };                                 /**< started, not yet complete */
    bool stuck_ { false }; /**< a collective could not be completed: nothing is freed */
};

namespace
{
/** @brief Copies @p bytes from @p from (host memory, or memory of @p space) to host @p to. */
void copyIn(
    void* to, const void* from, std::size_t bytes, const mpi::detail::SpaceOps& space, bool host
)
{
    if (host)
    {
        std::memcpy(to, from, bytes);
    }
    else
    {
        space.toHost(to, from, bytes);
    }
}

/** @brief Copies @p bytes from host @p from to @p to (host memory, or memory of @p space). */
void copyOut(
    void* to, const void* from, std::size_t bytes, const mpi::detail::SpaceOps& space, bool host
)
{
    if (host)
    {
        std::memcpy(to, from, bytes);
    }
    else
    {
        space.fromHost(to, from, bytes);
    }
}
} // namespace

FixedCollective& PersistentNeighbourOps::collectiveFor(
    std::span<const Message> sends, const std::source_location& where
)
{
    if (current_ != nullptr && current_->send.matches(sends) &&
        current_->receive.matches(receives_))
    {
        return *current_;
    }
    for (const auto& f : fixed_)
    {
        if (f->send.matches(sends) && f->receive.matches(receives_))
        {
            return *f;
        }
    }
    // A new layout of this key (its first exchange, or another cell size): every rank makes it
    // at the same exchange, since the ranks start their exchanges in the same order and a key
    // carries the same cell size on every rank (doc/topology.md, "Back ends").
    auto made = std::make_unique<FixedCollective>();
    made->send.set(sends);
    made->receive.set(receives_);
#if FIELDSYNC_HAVE_PERSISTENT_NEIGHBOUR
    FIELDSYNC_MPI_AT(
        MPI_Neighbor_alltoallv_init(
            made->send.bytes.data(),
            made->send.counts.data(),
            made->send.displs.data(),
            MPI_BYTE,
            made->receive.bytes.data(),
            made->receive.counts.data(),
            made->receive.displs.data(),
            MPI_BYTE,
            graph_.comm(),
            MPI_INFO_NULL,
            &made->request
        ),
        where
    );
#else
    throw Error(
        "the persistent neighbourhood back end needs MPI_Neighbor_alltoallv_init, which this MPI "
        "library lacks",
        where
    );
#endif
    fixed_.push_back(std::move(made));
    return *fixed_.back();
}

void PersistentNeighbourOps::start(
    std::span<const Message> sends,
    const mpi::detail::SpaceOps& space,
    bool host,
    const std::source_location& where
)
{
    FixedCollective& f = collectiveFor(sends, where);
    for (std::size_t i = 0; i < sends.size(); ++i)
    {
        copyIn(f.send.at(i), sends[i].data, static_cast<std::size_t>(sends[i].bytes), space, host);
    }
    current_ = &f;
    FIELDSYNC_MPI_AT(MPI_Start(&f.request), where);
    active_ = true;
}

bool PersistentNeighbourOps::test(const std::source_location& where)
{
    if (!active_)
    {
        return true;
    }
    int flag { 0 };
    FIELDSYNC_MPI_AT(MPI_Test(&current_->request, &flag, MPI_STATUS_IGNORE), where);
    if (flag == 0)
    {
        return false;
    }
    active_ = false;
    for (std::size_t i = 0; i < receives_.size(); ++i)
    {
        copyOut(
            receives_[i].data,
            current_->receive.at(i),
            static_cast<std::size_t>(receives_[i].bytes),
            *receiveSpace_,
            receiveHost_
        );
    }
    return true;
}

bool PersistentNeighbourOps::complete(std::string_view name) noexcept
{
    int finalised { 0 };
    MPI_Finalized(&finalised);
    if (finalised || !active_)
    {
        return true;
    }
    logger().error(
        "communication buffer '{}': a persistent neighbourhood collective still in flight is "
        "completed before its memory is freed",
        name
    );
    const bool done = completeDropped(
        [this]
        {
            int flag { 0 };
            MPI_Test(&current_->request, &flag, MPI_STATUS_IGNORE); // errors complete it
            active_ = flag == 0;
            return flag != 0;
        },
        "the persistent neighbourhood collective",
        name
    );
    stuck_ = !done;
    return done;
}

std::string PersistentNeighbourOps::describe() const
{
    return active_ ? describeNeighbourhood(
                         "persistent neighbourhood alltoallv",
                         current_->send.ranks,
                         current_->receive.ranks
                     )
                   : std::string();
}

PersistentNeighbourOps::~PersistentNeighbourOps()
{
    if (!complete("(destroyed)") || stuck_)
    {
        for (auto& f : fixed_) // MPI may still write it: keep the memory and the requests
        {
            f->send.bytes.abandon();
            f->receive.bytes.abandon();
        }
        return;
    }
    int finalised { 0 };
    MPI_Finalized(&finalised);
    for (auto& f : fixed_)
    {
        if (!finalised && f->request != MPI_REQUEST_NULL)
        {
            MPI_Request_free(&f->request); // inactive: allowed for a persistent collective
        }
    }
}

namespace
{
/** @brief One direction of the persistent back end (both share one PersistentNeighbourOps). */
class PersistentNeighbour final : public Transport
{
public:
    PersistentNeighbour(
        std::shared_ptr<PersistentNeighbourOps> ops,
        const mpi::detail::SpaceOps& space,
        bool hostMessages,
        bool isSend
    )
        : ops_(std::move(ops)), space_(&space), host_(hostMessages), isSend_(isSend)
    {
    }

    void post(
        std::span<const Message> messages,
        int /*tag*/,
        bool /*persistent: always*/,
        bool /*unchanged: the layout is compared with the fixed one*/,
        const std::source_location& where
    ) override
    {
        if (isSend_)
        {
            ops_->start(messages, *space_, host_, where); // the receives were recorded first
        }
        else
        {
            ops_->recordReceives(messages, *space_, host_);
        }
    }

    bool test(std::string_view /*name*/, const std::source_location& where) override
    {
        return ops_->test(where);
    }

    std::string describePending(const std::source_location& /*where*/) override
    {
        return ops_->describe();
    }

    bool awaits(int /*rank*/) noexcept override { return ops_->active(); }

    bool cancel(std::string_view name) noexcept override { return ops_->complete(name); }

    /** @brief A collective cannot be cancelled: it completes (the peers' collectives match it). */
    bool settle(std::span<const char> /*cancel*/, std::string_view name) noexcept override
    {
        return ops_->complete(name);
    }

private:
    std::shared_ptr<PersistentNeighbourOps> ops_; /**< the key's persistent collectives */
    const mpi::detail::SpaceOps* space_;          /**< memory space of the messages */
    bool host_;                                   /**< the messages lie in host memory */
    bool isSend_;                                 /**< sends or receives */
};

/**
 * @brief The back end's state on one Communicator: the graph communicators, and what each pool
 * buffer's transports are bound to. A buffer gets the two directions of the persistent back end
 * bound to the key's PersistentNeighbourOps (Exchange::backEndState, made at the key's first
 * exchange) whenever it last served another key or another placement: the receive post records
 * the receives, the send post copies the sends into the collective's own memory and starts it
 * (MPI_Start), a test that completes it copies the receives out. One copy per direction per
 * exchange is the price of a fixed layout.
 */
class PersistentNeighbourSetUp final : public BackEndSetUp
{
public:
    explicit PersistentNeighbourSetUp(NeighbourGraphs graphs) : graphs_(std::move(graphs)) {}

    void install(Exchange& exchange, DuplexBuffer& buffer, std::size_t entry) override
    {
        if (exchange.backEndState == nullptr) // the key's first exchange on this back end
        {
            exchange.backEndState = std::make_shared<PersistentNeighbourOps>(
                exchange.reverse ? graphs_.reverse : graphs_.forward
            );
        }
        const auto* ops = static_cast<const PersistentNeighbourOps*>(exchange.backEndState.get());
        const CommBufferCore& half = buffer.sendHalf();
        const bool host = half.staging() || half.space().hostAccessible();
        bound_.resize(std::max(bound_.size(), entry + 1));
        Binding& bound = bound_[entry];
        if (bound.ops != ops || bound.host != host)
        {
            auto shared = std::static_pointer_cast<PersistentNeighbourOps>(exchange.backEndState);
            auto send = std::make_unique<PersistentNeighbour>(shared, half.space(), host, true);
            buffer.setTransports(
                std::move(send),
                std::make_unique<PersistentNeighbour>(std::move(shared), half.space(), host, false),
                exchange.key.where()
            );
            bound = Binding { ops, host };
        }
    }

    void forgetBuffers() noexcept override { bound_.clear(); }

private:
    /** @brief What a pool buffer's transports are bound to. */
    struct Binding
    {
        const PersistentNeighbourOps* ops { nullptr }; /**< the key's collectives (alive) */
        bool host { false };                           /**< messages in host memory */
    };

    NeighbourGraphs graphs_;     /**< the graph communicators */
    std::vector<Binding> bound_; /**< per pool entry */
};
} // namespace

extern constinit const BackEndEntry persistentNeighbourBackEnd {
    BackEnd::PersistentNeighbour,
    "PersistentNeighbour",
    "neighbour-persistent",
    "MPI_Neighbor_alltoallv_init (MPI-4; MPICH 4 has it)",
    true,
    &persistentNeighbourAvailable,
    [](const Pattern& pattern, const mpi::MPIEnvironment& env, const std::source_location& where
    ) -> std::unique_ptr<BackEndSetUp>
    {
        return std::make_unique<PersistentNeighbourSetUp>(makeNeighbourGraphs(pattern, env, where));
    }
};

} // namespace fieldsync::halo
