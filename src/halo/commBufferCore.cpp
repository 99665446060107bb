// SPDX-License-Identifier: MIT
#include "fieldsync/halo/commBufferCore.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"

#include <algorithm>
#include <climits>

namespace fieldsync::mpi
{

const char* toString(BufferState state) noexcept
{
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

CommBufferCore::CommBufferCore(MPIEnvironment env, std::vector<std::size_t> rankCommSize)
    : comm_(env.comm()), env_(env), myRank_(env.rank()), nRanks_(env.sizeRank())
{
    setCommRankSize(std::move(rankCommSize));
}

CommBufferCore::CommBufferCore(
    MPIEnvironment env, std::vector<int> ranks, std::vector<std::size_t> counts
)
    : comm_(env.comm()), env_(env), myRank_(env.rank()), nRanks_(env.sizeRank())
{
    setNeighbours(std::move(ranks), std::move(counts));
}

CommBufferCore::~CommBufferCore()
{
    freeRequests();
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
    freeRequests();
    ranks_ = std::move(ranks);
    counts_ = std::move(counts);
    byteOffsets_.assign(ranks_.size() + 1, 0);
    direct_.assign(ranks_.size(), nullptr);
    directCount_ = 0;
    offsetsValid_ = false;
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

std::size_t CommBufferCore::claim(
    std::string_view name,
    const std::type_info& type,
    std::size_t entryBytes,
    const std::source_location& where
)
{
    if (state_ != BufferState::Free)
    {
        fail(
            "initComm('" + std::string(name) + "'): the buffer is already claimed (state " +
                toString(state_) + ")",
            where
        );
    }
    if (name.empty())
    {
        throw Error("communication buffer: initComm needs a non-empty name", where);
    }
    if (name_ != name)
    {
        name_.assign(name); // the same key claims its buffer again: usually no copy
    }
    type_ = &type;
    if (entryBytes != entryBytes_ || !offsetsValid_)
    {
        entryBytes_ = entryBytes;
        for (std::size_t k = 0; k < ranks_.size(); ++k)
        {
            byteOffsets_[k + 1] = byteOffsets_[k] + counts_[k] * entryBytes;
        }
        offsetsValid_ = true;
    }
    if (directCount_ > 0)
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
    failed_ = false;
    state_ = BufferState::Claimed;
    return byteOffsets_.back();
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

void CommBufferCore::setDirect(std::size_t k, void* data, std::source_location where)
{
    if (state_ != BufferState::Claimed)
    {
        fail("setDirect: the buffer must be claimed and not started", where);
    }
    if (k >= direct_.size())
    {
        fail("setDirect: neighbour slot " + std::to_string(k) + " does not exist", where);
    }
    directCount_ += (data != nullptr ? 1 : 0) - (direct_[k] != nullptr ? 1 : 0);
    direct_[k] = data;
}

void CommBufferCore::post(bool isSend, char* base, int tag, const std::source_location& where)
{
    // Assemble this post's messages; when they are the last post's (the usual case), persistent
    // requests are restarted and MPI_Isend/Irecv reuse the kept peers, pointers and sizes.
    std::size_t n { 0 };
    bool same { true };
    for (std::size_t k = 0; k < ranks_.size(); ++k)
    {
        const std::size_t bytes = bytesOf(k);
        if (ranks_[k] == myRank_ || bytes == 0)
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
        same = same && n < requestData_.size() && requestData_[n] == data &&
               requestRank_[n] == ranks_[k] && requestBytes_[n] == static_cast<int>(bytes);
        ++n;
    }
    same = same && n == requestData_.size();
    if (same && persistent_ && requestsPersistent_ && tag == requestTag_)
    {
        if (n > 0)
        {
            FIELDSYNC_MPI_AT(MPI_Startall(static_cast<int>(n), requests_.data()), where);
        }
        return;
    }
    if (same && !persistent_ && !requestsPersistent_ &&
        std::all_of(
            requests_.begin(), requests_.end(), [](MPI_Request r) { return r == MPI_REQUEST_NULL; }
        ))
    {
        for (std::size_t i = 0; i < n; ++i)
        {
            if (isSend)
            {
                FIELDSYNC_MPI_AT(
                    MPI_Isend(
                        requestData_[i],
                        requestBytes_[i],
                        MPI_BYTE,
                        requestRank_[i],
                        tag,
                        comm_,
                        &requests_[i]
                    ),
                    where
                );
            }
            else
            {
                FIELDSYNC_MPI_AT(
                    MPI_Irecv(
                        requestData_[i],
                        requestBytes_[i],
                        MPI_BYTE,
                        requestRank_[i],
                        tag,
                        comm_,
                        &requests_[i]
                    ),
                    where
                );
            }
        }
        requestTag_ = tag;
        return;
    }
    // completed non-persistent requests are MPI_REQUEST_NULL: nothing to free (the usual case)
    const bool live = std::any_of(
        requests_.begin(), requests_.end(), [](MPI_Request r) { return r != MPI_REQUEST_NULL; }
    );
    if (live)
    {
        freeRequests();
    }
    requests_.clear();
    requestRank_.clear();
    requestData_.clear();
    requestBytes_.clear();
    for (std::size_t k = 0; k < ranks_.size(); ++k)
    {
        const std::size_t bytes = bytesOf(k);
        if (ranks_[k] == myRank_ || bytes == 0)
        {
            continue;
        }
        void* data = direct_[k] != nullptr ? direct_[k] : base + byteOffsets_[k];
        requestRank_.push_back(ranks_[k]);
        requestData_.push_back(data);
        requestBytes_.push_back(static_cast<int>(bytes));
        requests_.push_back(MPI_REQUEST_NULL);
        const int count = static_cast<int>(bytes);
        MPI_Request& request = requests_.back();
        if (persistent_)
        {
            if (isSend)
            {
                FIELDSYNC_MPI_AT(
                    MPI_Send_init(data, count, MPI_BYTE, ranks_[k], tag, comm_, &request), where
                );
            }
            else
            {
                FIELDSYNC_MPI_AT(
                    MPI_Recv_init(data, count, MPI_BYTE, ranks_[k], tag, comm_, &request), where
                );
            }
        }
        else if (isSend)
        {
            FIELDSYNC_MPI_AT(
                MPI_Isend(data, count, MPI_BYTE, ranks_[k], tag, comm_, &request), where
            );
        }
        else
        {
            FIELDSYNC_MPI_AT(
                MPI_Irecv(data, count, MPI_BYTE, ranks_[k], tag, comm_, &request), where
            );
        }
    }
    requestTag_ = tag;
    requestsPersistent_ = persistent_;
    statuses_.resize(requests_.size());
    postedBytes_ = 0;
    for (const int bytes : requestBytes_)
    {
        postedBytes_ += static_cast<std::size_t>(bytes);
    }
    if (persistent_ && !requests_.empty())
    {
        FIELDSYNC_MPI_AT(MPI_Startall(static_cast<int>(requests_.size()), requests_.data()), where);
    }
}

bool CommBufferCore::testRequests(bool isReceive, const std::source_location& where)
{
    if (requests_.empty())
    {
        return true;
    }
    int flag { 0 };
    const int code =
        MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, statuses_.data());
    if (code != MPI_SUCCESS) [[unlikely]]
    {
        int errorClass { code };
        MPI_Error_class(code, &errorClass);
        if (errorClass == MPI_ERR_IN_STATUS)
        {
            failStatuses(isReceive, code, where);
        }
        detail::checkMpi(code, "MPI_Testall", where);
    }
    if (flag == 0)
    {
        return false;
    }
    if (isReceive)
    {
        checkReceivedCounts(where);
    }
    return true;
}

namespace
{
constexpr const char* mapsHint =
    " (the send and receive maps disagree: the peer's send map and this rank's receive map list "
    "a different number of cells for this pair of ranks)";
}

void CommBufferCore::checkReceivedCounts(const std::source_location& where)
{
    for (std::size_t i = 0; i < statuses_.size(); ++i)
    {
        int count { 0 };
        FIELDSYNC_MPI_AT(MPI_Get_count(&statuses_[i], MPI_BYTE, &count), where);
        if (count != requestBytes_[i]) [[unlikely]]
        {
            state_ = BufferState::Complete; // the requests are done: the buffer may be released
            failed_ = true;
            fail(
                "receive from rank " + std::to_string(requestRank_[i]) + ": expected " +
                    std::to_string(requestBytes_[i]) + " bytes, received " + std::to_string(count) +
                    " bytes" + (count > requestBytes_[i] ? " (truncated)" : "") + mapsHint,
                where
            );
        }
    }
}

void CommBufferCore::failStatuses(bool isReceive, int code, const std::source_location& where)
{
    std::string text;
    int firstCode { code };
    for (std::size_t i = 0; i < statuses_.size(); ++i)
    {
        const int error = statuses_[i].MPI_ERROR;
        if (error == MPI_SUCCESS || error == MPI_ERR_PENDING)
        {
            continue;
        }
        int errorClass { error };
        MPI_Error_class(error, &errorClass);
        if (!text.empty())
        {
            text += "; ";
        }
        else
        {
            firstCode = error;
        }
        text += std::string(isReceive ? "receive from rank " : "send to rank ") +
                std::to_string(requestRank_[i]);
        if (errorClass == MPI_ERR_TRUNCATE)
        {
            text += ": expected " + std::to_string(requestBytes_[i]) +
                    " bytes, received a longer message (truncated)" + mapsHint;
        }
        else
        {
            text += " failed";
        }
    }
    if (text.empty())
    {
        text = std::string(isReceive ? "receive" : "send") + " failed";
    }
    // the failed requests completed; drop them all so the next post builds fresh ones
    freeRequests();
    state_ = BufferState::Complete;
    failed_ = true;
    throw Error(
        "communication buffer '" + (name().empty() ? std::string("<unclaimed>") : name()) +
            "': " + text,
        where,
        firstCode
    );
}

std::string CommBufferCore::describePending(bool isSend, const std::source_location& where)
{
    std::string text;
    for (std::size_t i = 0; i < requests_.size(); ++i)
    {
        int flag { 0 };
        FIELDSYNC_MPI_AT(MPI_Request_get_status(requests_[i], &flag, MPI_STATUS_IGNORE), where);
        if (flag != 0)
        {
            continue;
        }
        if (!text.empty())
        {
            text += ", ";
        }
        text += std::string(isSend ? "send to rank " : "receive from rank ") +
                std::to_string(requestRank_[i]) + " (" + std::to_string(requestBytes_[i]) + " B)";
    }
    return text;
}

void CommBufferCore::freeRequests() noexcept
{
    int finalised { 0 };
    MPI_Finalized(&finalised);
    for (MPI_Request& request : requests_)
    {
        if (request == MPI_REQUEST_NULL || finalised)
        {
            continue;
        }
        int flag { 0 };
        MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
        if (flag == 0)
        {
            logger().error(
                "communication buffer '{}': dropping a request still in flight; cancelling it",
                name()
            );
            MPI_Cancel(&request);
        }
        if (request != MPI_REQUEST_NULL)
        {
            MPI_Request_free(&request);
        }
    }
    requests_.clear();
    requestRank_.clear();
    requestData_.clear();
    requestBytes_.clear();
    statuses_.clear();
    postedBytes_ = 0;
    requestsPersistent_ = false;
}

} // namespace fieldsync::mpi
