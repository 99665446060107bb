// SPDX-License-Identifier: MIT
#include "exchangeContext.hpp"

#include "fieldsync/core/error.hpp"

#include <atomic>

namespace fieldsync::halo
{

namespace
{
/** @brief The next Communicator identifier this process may use (identifiers only grow). */
std::atomic<std::uint64_t> nextId { 1 };

/**
 * @brief The shared duplicate of one communicator and its window counter. The communicator's
 * attribute holds one reference, every Communicator in one of its windows another, so the
 * duplicate outlives a communicator freed before its Communicators.
 */
struct SharedDuplicate
{
    MPI_Comm comm { MPI_COMM_NULL };    /**< the duplicate */
    bool predefined { false };          /**< of MPI_COMM_WORLD or MPI_COMM_SELF */
    int windows { 0 };                  /**< windows after window 0 (from MPI_TAG_UB) */
    std::uint64_t nextWindow { 1 };     /**< the window this rank bids next */
    std::uint64_t answeredSetUps { 0 }; /**< answered set-ups over it so far */

    SharedDuplicate() = default;
    SharedDuplicate(const SharedDuplicate&) = delete;
    SharedDuplicate& operator=(const SharedDuplicate&) = delete;

    /** @brief Frees the duplicate; a predefined communicator's is freed by MPI_Finalize. */
    ~SharedDuplicate()
    {
        int finalised { 0 };
        MPI_Finalized(&finalised);
        if (!predefined && finalised == 0 && comm != MPI_COMM_NULL)
        {
            MPI_Comm_free(&comm);
        }
    }
};

using SharedHandle = std::shared_ptr<SharedDuplicate>;

/** @brief Drops the attribute's reference when the communicator it belongs to is freed. */
int dropCached(MPI_Comm /*comm*/, int /*keyval*/, void* value, void* /*extra*/)
{
    delete static_cast<SharedHandle*>(value);
    return MPI_SUCCESS;
}

/** @brief The attribute key of the cache, made once per process. */
int cacheKey(const std::source_location& where)
{
    static const int key = [&where]
    {
        int made { MPI_KEYVAL_INVALID };
        FIELDSYNC_MPI_AT(
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, dropCached, &made, nullptr), where
        );
        return made;
    }();
    return key;
}

/** @brief Collective the first time: @p comm's shared duplicate (made and cached then). */
const SharedHandle& sharedDuplicate(MPI_Comm comm, const std::source_location& where)
{
    const int key { cacheKey(where) };
    void* value { nullptr };
    int found { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_get_attr(comm, key, &value, &found), where);
    if (found != 0)
    {
        return *static_cast<SharedHandle*>(value);
    }
    auto made = std::make_shared<SharedDuplicate>();
    made->predefined = comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF;
    FIELDSYNC_MPI_AT(MPI_Comm_dup(comm, &made->comm), where);
    MPI_Comm_set_errhandler(made->comm, MPI_ERRORS_RETURN);
    int* upper { nullptr };
    int flag { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_get_attr(made->comm, MPI_TAG_UB, &upper, &flag), where);
    made->windows = TagWindow::windowsBelow(flag != 0 && upper != nullptr ? *upper : 32767);
    auto* handle = new SharedHandle(std::move(made));
    const int code { MPI_Comm_set_attr(comm, key, handle) };
    if (code != MPI_SUCCESS)
    {
        delete handle;
        detail::throwMpiError(code, "MPI_Comm_set_attr", where);
    }
    return *handle;
}
} // namespace

MPI_Comm setUpComm(MPI_Comm comm, const std::source_location& where)
{
    return sharedDuplicate(comm, where)->comm;
}

int setUpTurn(MPI_Comm comm, const std::source_location& where)
{
    return static_cast<int>(sharedDuplicate(comm, where)->answeredSetUps++ & 1U);
}

ContextBid contextBid(MPI_Comm comm, const std::source_location& where)
{
    return { nextId.load(), sharedDuplicate(comm, where)->nextWindow };
}

void takeBid(MPI_Comm comm, const ContextBid& agreed, bool window)
{
    std::uint64_t expected { nextId.load() };
    while (expected <= agreed.id && !nextId.compare_exchange_weak(expected, agreed.id + 1))
    {
    }
    if (window)
    {
        sharedDuplicate(comm, std::source_location::current())->nextWindow = agreed.window + 1;
    }
}

ExchangeContext grantContext(
    const mpi::MPIEnvironment& env,
    const ContextBid& agreed,
    bool ownDuplicate,
    const std::source_location& where
)
{
    const SharedHandle& shared = sharedDuplicate(env.comm(), where);
    if (!ownDuplicate && shared->windows > 0 &&
        agreed.window <= static_cast<std::uint64_t>(shared->windows))
    {
        return ExchangeContext {
            mpi::MPIEnvironment(shared->comm, where),
            TagWindow::window(static_cast<int>(agreed.window)),
            agreed.id,
            shared,
            std::nullopt,
        };
    }
    // the tag range has no window left (or the caller wants a communicator of its own)
    MPI_Comm own { MPI_COMM_NULL };
    FIELDSYNC_MPI_AT(MPI_Comm_dup(env.comm(), &own), where);
    mpi::MPIEnvironment adopted = mpi::MPIEnvironment::adopt(own, where);
    const TagWindow whole = TagWindow::whole(adopted.comm());
    return ExchangeContext { std::move(adopted), whole, agreed.id, nullptr, std::nullopt };
}

ExchangeContext
agreeContext(const mpi::MPIEnvironment& env, bool ownDuplicate, const std::source_location& where)
{
    const ContextBid mine { contextBid(env.comm(), where) };
    const std::uint64_t bid[2] { mine.id, mine.window };
    std::uint64_t highest[2] { 0, 0 };
    FIELDSYNC_MPI_AT(
        MPI_Allreduce(bid, highest, 2, MPI_UINT64_T, MPI_MAX, setUpComm(env.comm(), where)), where
    );
    const ContextBid agreed { highest[0], highest[1] };
    takeBid(env.comm(), agreed, !ownDuplicate);
    return grantContext(env, agreed, ownDuplicate, where);
}

} // namespace fieldsync::halo
