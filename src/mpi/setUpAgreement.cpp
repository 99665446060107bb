// SPDX-License-Identifier: MIT
// Before a collective set-up call (in every mode; doc/reliability.md, "Set-up calls"): a timed
// agreement (timedAllGather.hpp) on a private duplicate of the communicator, so that a rank that
// skips the call is named within the wait time-out and ranks that make different set-up calls
// get an Error naming both.
#include "fieldsync/mpi/setUpAgreement.hpp"

#include "timedAllGather.hpp"

#include "fieldsync/mpi/detail/privateComm.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace fieldsync::mpi
{

namespace
{
/** @brief Arrival notices on the channel's duplicate. */
constexpr int arrivalTag { detail::reservedTag(detail::ReservedTag::SetUpArrival) };
/** @brief "I gave up agreement N" notices on the channel's duplicate. */
constexpr int abandonTag { detail::reservedTag(detail::ReservedTag::SetUpAbandon) };
constexpr std::size_t siteWords { 16 };           /**< int64 words of the call site's text */
constexpr std::size_t valueWords { 8 };           /**< the number of values, then up to 7 of them */
constexpr std::size_t valuesAt { 1 + siteWords }; /**< first value word */
constexpr std::size_t recordWords { valuesAt + valueWords }; /**< call, site, values */

using Record = std::array<std::int64_t, recordWords>;

/** @brief A dummy all-gather this rank joined for an agreement it missed (kept until done). */
struct Joined
{
    Record mine {};                           /**< call 0: "not made here" */
    std::vector<std::int64_t> all;            /**< what it receives (ignored) */
    MPI_Request request { MPI_REQUEST_NULL }; /**< the all-gather */
};

/**
 * @brief The duplicate of one communicator that its set-up agreements travel on, and this
 * rank's count of agreements on it. Not the library's private duplicate: a rank that missed an
 * agreement joins its all-gather at its next set-up agreement, and so its collectives there
 * would come in another order than check mode's collective agreements on the private duplicate.
 */
struct Channel
{
    MPI_Comm comm { MPI_COMM_NULL };             /**< the duplicate */
    MPI_Request making { MPI_REQUEST_NULL };     /**< its MPI_Comm_idup, while in flight */
    std::int64_t posted { 0 };                   /**< all-gathers this rank posted on comm */
    std::vector<std::unique_ptr<Joined>> joined; /**< dummies still in flight */
};

/** @brief Frees the duplicate with its communicator (not for the predefined ones, whose
 * attributes go inside MPI_Finalize, which frees everything itself). */
int freeChannel(MPI_Comm comm, int /*keyval*/, void* value, void* /*extra*/)
{
    auto* channel = static_cast<Channel*>(value);
    if (channel->making != MPI_REQUEST_NULL || !channel->joined.empty())
    {
        static_cast<void>(channel); // in flight: MPI may still write to it, left to MPI_Finalize
        return MPI_SUCCESS;
    }
    if (comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
    {
        delete channel; // inside MPI_Finalize: the duplicate ends with MPI
        return MPI_SUCCESS;
    }
    const int code { MPI_Comm_free(&channel->comm) };
    delete channel;
    return code;
}

/** @brief The attribute key of the channels, made once per process. */
int channelKey(const std::source_location& where)
{
    static const int key = [&where]
    {
        int made { MPI_KEYVAL_INVALID };
        FIELDSYNC_MPI_AT(
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, freeChannel, &made, nullptr), where
        );
        return made;
    }();
    return key;
}

/** @brief @p comm's channel, or null when none was made yet. */
Channel* findChannel(MPI_Comm comm, const std::source_location& where)
{
    void* value { nullptr };
    int found { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_get_attr(comm, channelKey(where), &value, &found), where);
    return found != 0 ? static_cast<Channel*>(value) : nullptr;
}

/** @brief @p comm's channel, its duplicate made with MPI_Comm_idup through the one wait the first
 * time, named after @p call (a time-out leaves the idup in flight, and a later call waits for
 * it again). */
Channel& channelOf(MPI_Comm comm, detail::SetUpCall call, const std::source_location& where)
{
    Channel* channel = findChannel(comm, where);
    if (channel == nullptr)
    {
        channel = new Channel;
        FIELDSYNC_MPI_AT(MPI_Comm_idup(comm, &channel->comm, &channel->making), where);
        FIELDSYNC_MPI_AT(MPI_Comm_set_attr(comm, channelKey(where), channel), where);
    }
    if (channel->making != MPI_REQUEST_NULL)
    {
        detail::finishDuplicate(
            channel->making, channel->comm, "fieldsync::mpi set-up agreement", toString(call), where
        );
    }
    return *channel;
}

/** @brief This rank's record: @p call, the end of "file:line" (its last 127 bytes) and
 * @p values (their number, then the first 6 and a hash of the rest where there are more than 7).
 */
Record recordOf(
    detail::SetUpCall call, const std::source_location& where, std::span<const std::int64_t> values
)
{
    Record record {};
    record[valuesAt] = static_cast<std::int64_t>(values.size());
    const std::size_t kept { values.size() <= valueWords - 1 ? values.size() : valueWords - 2 };
    std::copy_n(values.begin(), kept, record.begin() + valuesAt + 1);
    if (kept < values.size())
    {
        std::uint64_t hash { 0xcbf29ce484222325ULL }; // FNV-1a over the values not kept
        for (const std::int64_t v : values.subspan(kept))
        {
            hash = (hash ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ULL;
        }
        record[recordWords - 1] = static_cast<std::int64_t>(hash >> 1);
    }
    record[0] = static_cast<std::int64_t>(call);
    std::string site { where.file_name() };
    site.append(":").append(std::to_string(where.line()));
    const std::size_t room { siteWords * sizeof(std::int64_t) - 1 };
    const std::size_t from { site.size() > room ? site.size() - room : 0 };
    std::memcpy(&record[1], site.data() + from, site.size() - from);
    return record;
}

/** @brief The values of rank @p r's record in @p all: "(2, 1, 0)" ("#hash" for a folded rest).
 */
std::string valuesOf(const std::vector<std::int64_t>& all, std::size_t r)
{
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(r * recordWords + valuesAt);
    const auto n = static_cast<std::size_t>(*first);
    const std::size_t kept { n <= valueWords - 1 ? n : valueWords - 2 };
    std::string text { "(" };
    for (std::size_t k { 0 }; k < kept; ++k)
    {
        text.append(k > 0 ? ", " : "")
            .append(std::to_string(first[static_cast<std::ptrdiff_t>(k) + 1]));
    }
    if (kept < n)
    {
        text.append(", #").append(std::to_string(first[valueWords - 1]));
    }
    return text.append(")");
}

/** @brief The call site of rank @p r's record in @p all. */
std::string siteOf(const std::vector<std::int64_t>& all, std::size_t r)
{
    const char* text { reinterpret_cast<const char*>(&all[r * recordWords + 1]) };
    return { text, strnlen(text, siteWords * sizeof(std::int64_t)) };
}

/** @brief Posts a dummy all-gather for each agreement up to @p serial that this rank missed,
 * completing what the ranks that gave up on it left in flight; frees the dummies done. */
void joinUpTo(Channel& channel, std::int64_t serial, const std::source_location& where)
{
    int size { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_size(channel.comm, &size), where);
    for (; channel.posted < serial; ++channel.posted)
    {
        auto dummy = std::make_unique<Joined>();
        dummy->all.resize(recordWords * static_cast<std::size_t>(size));
        FIELDSYNC_MPI_AT(
            MPI_Iallgather(
                dummy->mine.data(),
                recordWords,
                MPI_INT64_T,
                dummy->all.data(),
                recordWords,
                MPI_INT64_T,
                channel.comm,
                &dummy->request
            ),
            where
        );
        channel.joined.push_back(std::move(dummy));
    }
    std::erase_if(
        channel.joined,
        [](const std::unique_ptr<Joined>& dummy)
        {
            int done { 0 };
            return MPI_Test(&dummy->request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done != 0;
        }
    );
}

/**
 * @brief Reads the notices of ranks that gave up an agreement: those of agreements this rank has
 * not posted yet are joined (joinUpTo); returns the first rank that gave up @p current (-1:
 * none). Notices of earlier agreements are dropped.
 */
int readAbandoned(Channel& channel, std::int64_t current, const std::source_location& where)
{
    int gaveUp { -1 };
    for (;;)
    {
        int flag { 0 };
        MPI_Status status {};
        FIELDSYNC_MPI_AT(
            MPI_Iprobe(MPI_ANY_SOURCE, abandonTag, channel.comm, &flag, &status), where
        );
        if (flag == 0)
        {
            return gaveUp;
        }
        std::int64_t serial { 0 };
        FIELDSYNC_MPI_AT(
            MPI_Recv(
                &serial,
                1,
                MPI_INT64_T,
                status.MPI_SOURCE,
                abandonTag,
                channel.comm,
                MPI_STATUS_IGNORE
            ),
            where
        );
        gaveUp = serial == current && gaveUp < 0 ? status.MPI_SOURCE : gaveUp;
        joinUpTo(channel, serial, where);
    }
}

/** @brief An Error on every rank when some rank made another set-up call (or none). */
void compareCalls(
    const std::vector<std::int64_t>& all, detail::SetUpCall call, const std::source_location& where
)
{
    const std::size_t size { all.size() / recordWords };
    std::string text;
    std::size_t listed { 0 };
    for (std::size_t r = 0; r < size; ++r)
    {
        const std::int64_t theirs { all[r * recordWords] };
        if (theirs == static_cast<std::int64_t>(call) || listed++ >= 8)
        {
            continue;
        }
        text.append(" rank ").append(std::to_string(r));
        if (theirs == 0)
        {
            text.append(" did not make a set-up call here (it joined late an agreement that "
                        "another rank gave up at its time-out);");
            continue;
        }
        text.append(" called ").append(toString(static_cast<detail::SetUpCall>(theirs)));
        text.append(" at ").append(siteOf(all, r)).append(";");
    }
    if (listed > 0)
    {
        std::string message { "ranks made different collective set-up calls:" };
        message.append(text).append(" this rank called ").append(toString(call));
        message.append(" at ").append(where.file_name()).append(":");
        message.append(std::to_string(where.line()));
        throw Error(message, where);
    }
}
/** @brief An Error on every rank when the ranks, all making @p call, passed different values.
 */
void compareValues(
    const std::vector<std::int64_t>& all,
    detail::SetUpCall call,
    const char* what,
    const std::source_location& where
)
{
    const std::size_t size { all.size() / recordWords };
    const auto valuesEqual = [&all](std::size_t r)
    {
        return std::equal(
            all.begin() + static_cast<std::ptrdiff_t>(valuesAt),
            all.begin() + static_cast<std::ptrdiff_t>(recordWords),
            all.begin() + static_cast<std::ptrdiff_t>(r * recordWords + valuesAt)
        );
    };
    std::string text;
    std::size_t listed { 0 };
    for (std::size_t r = 1; r < size; ++r)
    {
        if (!valuesEqual(r) && listed++ < 8)
        {
            text.append(" rank ").append(std::to_string(r)).append(" passed ");
            text.append(valuesOf(all, r)).append(" at ").append(siteOf(all, r)).append(";");
        }
    }
    if (listed > 0)
    {
        std::string message { "ranks passed different " };
        message.append(what).append(" to the ").append(toString(call)).append(":");
        message.append(text).append(" rank 0 passed ").append(valuesOf(all, 0));
        message.append(" at ").append(siteOf(all, 0));
        throw Error(message, where);
    }
}
} // namespace

const char* detail::toString(SetUpCall call) noexcept
{
    switch (call)
    {
    case detail::SetUpCall::Duplicate:
        return "MPIEnvironment::duplicate";
    case detail::SetUpCall::Split:
        return "MPIEnvironment::split";
    case detail::SetUpCall::SplitByName:
        return "MPIEnvironment::split by name";
    case detail::SetUpCall::SplitShared:
        return "MPIEnvironment::splitShared";
    case detail::SetUpCall::CartesianTopology:
        return "CartesianTopology constructor";
    case detail::SetUpCall::GraphTopology:
        return "GraphTopology constructor";
    case detail::SetUpCall::HaloCommunicator:
        return "halo::Communicator constructor";
    case detail::SetUpCall::HaloBuilder:
        return "HaloBuilder constructor";
    case detail::SetUpCall::Hierarchy:
        return "CommunicatorHierarchy constructor";
    case detail::SetUpCall::GhostList:
        return "GhostList constructor";
    case detail::SetUpCall::StructuredBlock:
        return "StructuredBlock constructor";
    case detail::SetUpCall::HierarchyPush:
        return "CommunicatorHierarchy::pushCommunicator";
    case detail::SetUpCall::HierarchyPushNode:
        return "CommunicatorHierarchy::pushNodeCommunicator";
    case detail::SetUpCall::HierarchyAllReduce:
        return "CommunicatorHierarchy::allReduce";
    case detail::SetUpCall::Migration:
        return "Migration constructor";
    case detail::SetUpCall::MigrationMigrate:
        return "Migration::migrate";
    case detail::SetUpCall::Rebalance:
        return "Rebalancer::newOwners";
    case detail::SetUpCall::LayoutFromGhosts:
        return "partition::layoutFromGhosts";
    }
    return "an unknown set-up call";
}

bool agreedInEveryMode(detail::SetUpCall call) noexcept
{
    // GhostList's first collective step is an answered exchange through the one wait, which
    // names a rank that never comes; the hierarchy's allReduce is a per-step call
    return call != detail::SetUpCall::GhostList && call != detail::SetUpCall::HierarchyAllReduce;
}

void prepareSetUpAgreement(MPI_Comm comm, const std::source_location& where)
{
    if (findChannel(comm, where) != nullptr)
    {
        return;
    }
    auto channel = std::make_unique<Channel>();
    FIELDSYNC_MPI_AT(MPI_Comm_dup(comm, &channel->comm), where);
    FIELDSYNC_MPI_AT(MPI_Comm_set_errhandler(channel->comm, MPI_ERRORS_RETURN), where);
    FIELDSYNC_MPI_AT(MPI_Comm_set_attr(comm, channelKey(where), channel.get()), where);
    static_cast<void>(channel.release()); // owned by the attribute now
}

void agreeOnSetUp(
    MPI_Comm comm,
    detail::SetUpCall call,
    const std::source_location& where,
    std::span<const std::int64_t> values,
    const char* what
)
{
    static const bool checking = checkMode(); // read once
    if (!checking && !agreedInEveryMode(call))
    {
        return;
    }
    Channel& channel = channelOf(comm, call, where);
    static_cast<void>(readAbandoned(channel, channel.posted, where));
    const std::int64_t serial { ++channel.posted };
    const Record mine = recordOf(call, where, values);
    const detail::TimedAllGather how { channel.comm,   arrivalTag,
                                       serial,         "fieldsync::mpi set-up agreement",
                                       toString(call), where };
    std::vector<std::int64_t> all;
    try
    {
        all = detail::timedAllGather(how, mine);
    }
    catch (...)
    {
        detail::notifyOthers(channel.comm, abandonTag, serial); // "I gave up agreement N"
        throw;
    }
    compareCalls(all, call, where);
    compareValues(all, call, what, where);
    const int gaveUp { readAbandoned(channel, serial, where) };
    FIELDSYNC_CHECK_AT(
        gaveUp < 0,
        std::string(toString(call)) + ": rank " + std::to_string(gaveUp) +
            " gave up waiting for this set-up call at its time-out just before this "
            "rank arrived, so it will not make the call; this rank stops too",
        where
    );
}

} // namespace fieldsync::mpi
