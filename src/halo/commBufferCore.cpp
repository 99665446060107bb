// SPDX-License-Identifier: MIT
#include "fieldsync/halo/commBufferCore.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/logger.hpp"

#include "transport.hpp"

#include <algorithm>
#include <climits>

namespace fieldsync::halo
{

const char* toString(detail::BufferState state) noexcept
{
    using detail::BufferState;
    switch (state)
    {
    case BufferState::Free:
        return "free";
    case BufferState::Claimed:
        return "claimed";
    case BufferState::InFlight:
        return "in flight";
    case BufferState::Complete:
        return "complete";
    }
    return "unknown";
}

namespace detail
{

CommBufferCore::CommBufferCore(const mpi::detail::SpaceOps& space) : space_(&space) {}

CommBufferCore::CommBufferCore(
    const mpi::detail::SpaceOps& space, MPIEnvironment env, std::vector<std::size_t> rankCommSize
)
    : comm_(env.comm()), env_(env), myRank_(env.rank()), nRanks_(env.sizeRank()), space_(&space),
      staging_(space.useStaging(mpi::Staging::Auto))
{
    setCommRankSize(std::move(rankCommSize));
}

CommBufferCore::CommBufferCore(
    const mpi::detail::SpaceOps& space,
    MPIEnvironment env,
    std::vector<int> ranks,
    std::vector<std::size_t> counts
)
    : comm_(env.comm()), env_(env), myRank_(env.rank()), nRanks_(env.sizeRank()), space_(&space),
      staging_(space.useStaging(mpi::Staging::Auto))
{
    setNeighbours(std::move(ranks), std::move(counts));
}

CommBufferCore::~CommBufferCore()
{
    if (runtimeEnded())
    {
        // outlived MPIInit (named at its end when a public buffer): MPI calls are erroneous now
        // and Kokkos aborts on memory freed after its finalize, so the requests, the bytes and
        // the staging copy are left allocated
        hostStorage_.abandon();
        static_cast<void>(transport_.release());
        return;
    }
    if (!cancelMessages())
    {
        hostStorage_.abandon();
        return; // MPI may still touch the bytes: keep them (logged by the transport)
    }
    space_->deallocate(storage_);
}

bool CommBufferCore::cancelMessages() noexcept
{
    return transport_ == nullptr || transport_->cancel(name_);
}

bool CommBufferCore::settle(std::span<const char> cancel, std::string_view name) noexcept
{
    if (state_ != BufferState::InFlight)
    {
        return true;
    }
    const bool settled = transport_ == nullptr || transport_->settle(cancel, name);
    postedValid_ = false; // the transport dropped its requests
    state_ = BufferState::Complete;
    failed_ = true;
    return settled;
}

void CommBufferCore::setTransport(
    std::unique_ptr<Transport> transport, const std::source_location& where
)
{
    if (state_ == BufferState::InFlight)
    {
        requireState(BufferState::Claimed, "setTransport", where);
    }
    if (!cancelMessages())
    {
        fail("setTransport: the messages in flight could not be completed", where);
    }
    transport_ = std::move(transport);
    postedValid_ = false; // the new transport has posted nothing
}

const std::string& CommBufferCore::emptyName() noexcept
{
    static const std::string empty;
    return empty;
}

void CommBufferCore::fail(const std::string& message, const std::source_location& where) const
{
    throw Error(
        "communication buffer '" + (name().empty() ? std::string("<unclaimed>") : name()) +
            "': " + message,
        where
    );
}

void CommBufferCore::setCommRankSize(
    std::vector<std::size_t> rankCommSize, std::source_location where
)
{
    if (rankCommSize.size() != static_cast<std::size_t>(nRanks_))
    {
        fail(
            "setCommRankSize: " + std::to_string(rankCommSize.size()) +
                " sizes for a communicator of " + std::to_string(nRanks_) + " ranks",
            where
        );
    }
    std::vector<int> ranks(rankCommSize.size());
    for (std::size_t r = 0; r < ranks.size(); ++r)
    {
        ranks[r] = static_cast<int>(r);
    }
    setNeighbours(std::move(ranks), std::move(rankCommSize), where);
}

void CommBufferCore::setEnvironment(MPIEnvironment env, std::source_location where)
{
    requireState(BufferState::Free, "setMPIEnvironment", where);
    if (!cancelMessages())
    {
        fail("setMPIEnvironment: the last messages could not be completed", where);
    }
    transport_.reset(); // bound to the old communicator
    postedValid_ = false;
    comm_ = env.comm();
    myRank_ = env.rank();
    nRanks_ = env.sizeRank();
    staging_ = space_->useStaging(mpi::Staging::Auto);
    env_ = std::move(env);
    setNeighbours({}, {}, where);
}

void CommBufferCore::setNeighbours(
    std::vector<int> ranks, std::vector<std::size_t> counts, std::source_location where
)
{
    requireState(BufferState::Free, "setNeighbours", where);
    if (ranks.size() != counts.size())
    {
        fail(
            "setNeighbours: " + std::to_string(ranks.size()) + " ranks but " +
                std::to_string(counts.size()) + " sizes",
            where
        );
    }
    for (std::size_t k = 0; k < ranks.size(); ++k)
    {
        if (ranks[k] < 0 || ranks[k] >= nRanks_)
        {
            fail(
                "neighbour rank " + std::to_string(ranks[k]) + " is out of range [0, " +
                    std::to_string(nRanks_) + ")",
                where
            );
        }
        if (k > 0 && ranks[k] <= ranks[k - 1])
        {
            fail(
                "neighbour ranks must be strictly ascending, got " + std::to_string(ranks[k - 1]) +
                    " then " + std::to_string(ranks[k]),
                where
            );
        }
    }
    cancelMessages();
    ranks_ = std::move(ranks);
    counts_ = std::move(counts);
    byteOffsets_.assign(ranks_.size() + 1, 0);
    direct_.assign(ranks_.size(), nullptr);
    directCount_ = 0;
    offsetsValid_ = false;
    layoutChanged_ = true;
    const auto self = std::lower_bound(ranks_.begin(), ranks_.end(), myRank_);
    selfSlot_ =
        self != ranks_.end() && *self == myRank_ ? static_cast<int>(self - ranks_.begin()) : -1;
}

int CommBufferCore::slotOf(int rank, const std::source_location& where) const
{
    if (rank < 0 || rank >= nRanks_)
    {
        fail(
            "rank " + std::to_string(rank) + " is out of range [0, " + std::to_string(nRanks_) +
                ")",
            where
        );
    }
    const auto pos = std::lower_bound(ranks_.begin(), ranks_.end(), rank);
    if (pos == ranks_.end() || *pos != rank)
    {
        return -1;
    }
    return static_cast<int>(pos - ranks_.begin());
}

void CommBufferCore::failState(
    BufferState expected, std::string_view call, const std::source_location& where
) const
{
    std::string why;
    if (call.starts_with("initComm"))
    {
        why = "the buffer is already claimed";
    }
    else if (state_ == BufferState::InFlight)
    {
        why = "communication is in flight (wait for it to complete first)";
    }
    else if (state_ == BufferState::Free)
    {
        why = "the buffer is not claimed (call initComm first)";
    }
    else
    {
        why = std::string("the buffer is ") + toString(state_) + ", not " + toString(expected);
    }
    fail(std::string(call) + ": " + why, where);
}

void CommBufferCore::failClaim(std::string_view name, const std::source_location& where) const
{
    if (state_ != BufferState::Free)
    {
        fail(
            "initComm('" + std::string(name) + "'): the buffer is already claimed (state " +
                toString(state_) + ")",
            where
        );
    }
    throw Error("communication buffer: initComm needs a non-empty name", where);
}

void CommBufferCore::setEntryBytes(std::size_t entryBytes)
{
    entryBytes_ = entryBytes;
    for (std::size_t k = 0; k < ranks_.size(); ++k)
    {
        byteOffsets_[k + 1] = byteOffsets_[k] + counts_[k] * entryBytes;
    }
    offsetsValid_ = true;
    layoutChanged_ = true;
}

void CommBufferCore::clearDirect() noexcept
{
    for (void*& direct : direct_)
    {
        if (direct != nullptr) // a store per set slot, not a memset call per claim
        {
            direct = nullptr;
        }
    }
    directCount_ = 0;
}

void CommBufferCore::checkType(const std::type_info& type, const std::source_location& where) const
{
    if (type_ == nullptr || *type_ != type)
    {
        fail(
            std::string("the buffer was claimed with element type '") +
                (type_ != nullptr ? type_->name() : "none") + "', asked for type '" + type.name() +
                "'",
            where
        );
    }
}

void CommBufferCore::failSetDirect(std::size_t k, const std::source_location& where) const
{
    if (state_ != BufferState::Claimed)
    {
        fail("setDirect: the buffer must be claimed and not started", where);
    }
    fail("setDirect: neighbour slot " + std::to_string(k) + " does not exist", where);
}

void CommBufferCore::grow(std::size_t bytes)
{
    space_->deallocate(storage_);
    storage_ = nullptr;
    capacity_ = 0;
    storage_ = static_cast<char*>(space_->allocate(bytes, "fieldsync::commBuffer"));
    capacity_ = bytes;
}

std::span<char>
CommBufferCore::slice(int rank, const std::type_info& type, const std::source_location& where)
{
    if (state_ != BufferState::Claimed && state_ != BufferState::Complete)
    {
        requireState(BufferState::Claimed, "get", where);
    }
    checkType(type, where);
    const int k = slotOf(rank, where);
    if (k < 0)
    {
        return {};
    }
    const auto uk = static_cast<std::size_t>(k);
    return { storage_ + byteOffsets_[uk], bytesOf(uk) };
}

void CommBufferCore::post(char* base, int tag, const std::source_location& where)
{
    // the usual post repeats the last one (same peers, sizes, memory): the transport is told so,
    // and neither side gathers nor compares the messages again
    bool unchanged = postedValid_ && !layoutChanged_ && base == postedBase_;
    for (std::size_t k = 0; unchanged && k < direct_.size(); ++k) // sized alike once gathered
    {
        unchanged = direct_[k] == postedDirect_[k];
    }
    if (!unchanged)
    {
        gatherMessages(base, where);
    }
    if (transport_ == nullptr)
    {
        transport_ = makePointToPoint(comm_, isSend_);
    }
    postedValid_ = false; // until the transport has taken the messages
    transport_->post(messages_, tag, persistent_, unchanged, where);
    postedValid_ = true;
}

void CommBufferCore::send(int tag, std::source_location where)
{
    requireState(BufferState::Claimed, "send", where);
    if (staging_)
    {
        stageToHost();
    }
    isSend_ = true;
    post(staging_ ? hostStaging() : storage_, tag, where);
    state_ = BufferState::InFlight;
}

void CommBufferCore::receive(int tag, std::source_location where)
{
    requireState(BufferState::Claimed, "receive", where);
    isSend_ = false;
    post(staging_ ? hostStaging() : storage_, tag, where);
    state_ = BufferState::InFlight;
}

void CommBufferCore::gatherMessages(char* base, const std::source_location& where)
{
    messages_.clear(); // keeps its capacity: no allocation after the first post
    postedBytes_ = 0;
    for (std::size_t k = 0; k < ranks_.size(); ++k)
    {
        const std::size_t bytes = bytesOf(k);
        if ((ranks_[k] == myRank_ && !selfMessage_) || bytes == 0)
        {
            continue;
        }
        if (bytes > static_cast<std::size_t>(INT_MAX))
        {
            fail(
                "message to rank " + std::to_string(ranks_[k]) + " of " + std::to_string(bytes) +
                    " bytes exceeds INT_MAX",
                where
            );
        }
        void* data = direct_[k] != nullptr ? direct_[k] : base + byteOffsets_[k];
        messages_.push_back(Message { ranks_[k], data, static_cast<int>(bytes) });
        postedBytes_ += bytes;
    }
    postedBase_ = base;
    postedDirect_ = direct_; // same size after the first gather: no allocation
    layoutChanged_ = false;
}

bool CommBufferCore::complete(bool isReceive, const std::source_location& where)
{
    if (state_ == BufferState::Complete)
    {
        return true;
    }
    requireState(BufferState::InFlight, "complete", where);
    try
    {
        if (!transport_->test(name(), where))
        {
            return false;
        }
    }
    catch (const Error&)
    {
        state_ = BufferState::Complete; // the messages are done: the buffer may be released
        failed_ = true;
        throw;
    }
    if (isReceive && staging_)
    {
        stageFromHost();
    }
    state_ = BufferState::Complete;
    return true;
}

std::optional<bool>
CommBufferCore::completeTogether(CommBufferCore& sends, const std::source_location& where)
{
    std::optional<bool> done;
    try
    {
        done = transport_->testTogether(*sends.transport_, name_, where); // in flight: claimed
    }
    catch (const Error&)
    {
        state_ = BufferState::Complete; // as complete(): the receives are done, the sends go on
        failed_ = true;
        throw;
    }
    if (done.value_or(false))
    {
        if (staging_)
        {
            stageFromHost();
        }
        state_ = BufferState::Complete;
        sends.state_ = BufferState::Complete;
    }
    return done;
}

std::string CommBufferCore::describePending(const std::source_location& where)
{
    return transport_ == nullptr ? std::string() : transport_->describePending(where);
}

bool CommBufferCore::awaits(int rank) noexcept
{
    return state_ == BufferState::InFlight && transport_ != nullptr && transport_->awaits(rank);
}

char* CommBufferCore::hostStaging()
{
    return reinterpret_cast<char*>(hostStorage_.reserve(totalBytes()));
}

void CommBufferCore::stageToHost()
{
    space_->toHost(hostStaging(), storage_, totalBytes());
}

void CommBufferCore::stageFromHost()
{
    // the self slot was copied locally into the bytes (unless it came as a message): leave it
    std::size_t gapBegin { totalBytes() };
    std::size_t gapEnd { totalBytes() };
    if (selfSlot_ >= 0 && !selfMessage_)
    {
        gapBegin = byteOffsetOf(static_cast<std::size_t>(selfSlot_));
        gapEnd = gapBegin + bytesOf(static_cast<std::size_t>(selfSlot_));
    }
    const char* host { reinterpret_cast<const char*>(hostStorage_.data()) };
    if (gapBegin > 0)
    {
        space_->fromHost(storage_, host, gapBegin);
    }
    if (gapEnd < totalBytes())
    {
        space_->fromHost(storage_ + gapEnd, host + gapEnd, totalBytes() - gapEnd);
    }
}

} // namespace detail

} // namespace fieldsync::halo
