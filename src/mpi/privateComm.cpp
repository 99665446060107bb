// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/detail/privateComm.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <string>

namespace fieldsync::mpi::detail
{

namespace
{
using Handle = std::shared_ptr<PrivateComm>;

/** @brief Drops the attribute's reference when the communicator it belongs to is freed (a
 * duplicate's record of itself is its PrivateComm's own member: nothing to drop). */
int dropCached(MPI_Comm /*comm*/, int /*keyval*/, void* value, void* /*extra*/)
{
    auto* handle = static_cast<Handle*>(value);
    if (handle != &(*handle)->self)
    {
        delete handle;
    }
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

/** @brief Caches @p handle on @p comm (the attribute owns a copy of it). */
const Handle& cache(MPI_Comm comm, Handle handle, const std::source_location& where)
{
    auto* kept = new Handle(std::move(handle));
    const int code { MPI_Comm_set_attr(comm, cacheKey(where), kept) };
    if (code != MPI_SUCCESS)
    {
        delete kept;
        fieldsync::detail::throwMpiError(code, "MPI_Comm_set_attr", where);
    }
    return *kept;
}

void recordMade(const Handle& made, const std::source_location& where);

/** @brief Completes @p made's MPI_Comm_idup through the one wait; then the duplicate is set up
 * and knows itself as its own private duplicate. A time-out leaves the idup in flight, and the
 * next call waits for it again. */
void finishMaking(const Handle& made, const std::source_location& where)
{
    finishDuplicate(
        made->making, made->comm, "fieldsync::mpi private duplicate", "MPI_Comm_idup", where
    );
    recordMade(made, where);
}

/** @brief The tag bound of @p made's finished duplicate; the duplicate knows itself as its own
 * private duplicate. */
void recordMade(const Handle& made, const std::source_location& where)
{
    int* upper { nullptr };
    int flag { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_get_attr(made->comm, MPI_TAG_UB, &upper, &flag), where);
    made->tagUpperBound = flag != 0 && upper != nullptr ? *upper : TagWindow::leastUpperBound;
    // not owning (the duplicate is freed by the PrivateComm, never the other way round), and
    // kept in the PrivateComm, so nothing is left when a duplicate is never freed (world's)
    made->self = Handle(Handle {}, made.get());
    FIELDSYNC_MPI_AT(MPI_Comm_set_attr(made->comm, cacheKey(where), &made->self), where);
}
} // namespace

void finishDuplicate(
    MPI_Request& making,
    MPI_Comm made,
    std::string_view kind,
    std::string_view name,
    const std::source_location& where
)
{
    waitWithTimeout(
        [&making, &where]
        {
            int done { 0 };
            FIELDSYNC_MPI_AT(MPI_Test(&making, &done, MPI_STATUS_IGNORE), where);
            return done != 0;
        },
        [] { return std::string("every rank of the communicator to make its duplicate"); },
        WaitPolicy::fromEnvironment(),
        kind,
        name,
        where
    );
    FIELDSYNC_MPI_AT(MPI_Comm_set_errhandler(made, MPI_ERRORS_RETURN), where);
}

PrivateComm::~PrivateComm()
{
    int finalised { 0 };
    MPI_Finalized(&finalised);
    if (owned && finalised == 0 && making == MPI_REQUEST_NULL && comm != MPI_COMM_NULL)
    {
        MPI_Comm_free(&comm);
    }
}

const std::shared_ptr<PrivateComm>& privateCommOf(MPI_Comm comm, const std::source_location& where)
{
    FIELDSYNC_CHECK_AT(comm != MPI_COMM_NULL, "the communicator is MPI_COMM_NULL", where);
    void* value { nullptr };
    int found { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_get_attr(comm, cacheKey(where), &value, &found), where);
    if (found == 0)
    {
        auto made = std::make_shared<PrivateComm>();
        made->owned = comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF;
        FIELDSYNC_MPI_AT(MPI_Comm_idup(comm, &made->comm, &made->making), where);
        value = const_cast<Handle*>(&cache(comm, std::move(made), where));
    }
    const Handle& handle { *static_cast<Handle*>(value) };
    if (handle->making != MPI_REQUEST_NULL)
    {
        finishMaking(handle, where);
    }
    return handle;
}

std::shared_ptr<PrivateComm> newPrivateDuplicate(MPI_Comm comm, const std::source_location& where)
{
    auto made = std::make_shared<PrivateComm>();
    made->owned = true;
    FIELDSYNC_MPI_AT(MPI_Comm_idup(comm, &made->comm, &made->making), where);
    finishMaking(made, where);
    return made;
}

void makePrivateComm(MPI_Comm comm, const std::source_location& where)
{
    void* value { nullptr };
    int found { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_get_attr(comm, cacheKey(where), &value, &found), where);
    if (found != 0)
    {
        return;
    }
    auto made = std::make_shared<PrivateComm>();
    made->owned = comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF;
    FIELDSYNC_MPI_AT(MPI_Comm_dup(comm, &made->comm), where);
    FIELDSYNC_MPI_AT(MPI_Comm_set_errhandler(made->comm, MPI_ERRORS_RETURN), where);
    recordMade(made, where);
    static_cast<void>(cache(comm, std::move(made), where));
}

MPI_Comm privateComm(MPI_Comm comm, const std::source_location& where)
{
    return privateCommOf(comm, where)->comm;
}

MPIEnvironment privateEnvironment(const MPIEnvironment& env, const std::source_location& where)
{
    if (env.comm() == MPI_COMM_NULL)
    {
        return env;
    }
    return env.over(privateComm(env.comm(), where));
}

int takeTags(MPI_Comm comm, int count, const std::source_location& where)
{
    FIELDSYNC_CHECK_AT(
        count >= 1 && count <= 64,
        "takeTags: " + std::to_string(count) + " tags asked for one step (1 to 64)",
        where
    );
    PrivateComm& tags { *privateCommOf(comm, where) };
    if (tags.nextSequenced + static_cast<std::uint32_t>(count) > TagWindow::sequencedSpan)
    {
        tags.nextSequenced = 0;
    }
    const auto first = static_cast<int>(tags.nextSequenced);
    tags.nextSequenced += static_cast<std::uint32_t>(count);
    return first;
}

void checkReceived(
    const MPI_Status& status,
    MPI_Datatype type,
    std::size_t expected,
    std::string_view what,
    const std::source_location& where
)
{
    int count { 0 };
    FIELDSYNC_MPI_AT(MPI_Get_count(&status, type, &count), where);
    FIELDSYNC_CHECK_AT(
        count >= 0 && static_cast<std::size_t>(count) == expected,
        std::string(what) + ": rank " + std::to_string(status.MPI_SOURCE) + " sent " +
            std::to_string(count) + " values where " + std::to_string(expected) + " were expected",
        where
    );
}

} // namespace fieldsync::mpi::detail
