// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <cstddef>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include <mpi.h>

namespace fieldsync::mpi
{

/** @brief Where a communication buffer is in the seven steps. */
enum class BufferState
{
    Free,     /**< not claimed */
    Claimed,  /**< claimed by initComm, may be filled */
    InFlight, /**< started, requests pending */
    Complete  /**< all requests done, receive slices readable */
};

/** @brief The name of a BufferState, for messages. */
[[nodiscard]] const char* toString(BufferState state) noexcept;

/**
 * @brief The memory-space independent part of a HalfDuplexCommBuffer: the neighbours and their
 * slices (byte offsets), the claim state, the element type and the MPI requests of one
 * direction. Holds every guard rail; the template adds the bytes in a Kokkos memory space.
 */
class CommBufferCore
{
public:
    /** @brief An empty buffer without communicator. */
    CommBufferCore() = default;

    /** @brief Dense form (seed): @p rankCommSize[r] values for every rank r of @p env. */
    CommBufferCore(MPIEnvironment env, std::vector<std::size_t> rankCommSize);

    /** @brief Sparse form: @p counts[k] values for neighbour @p ranks[k] (ascending ranks). */
    CommBufferCore(MPIEnvironment env, std::vector<int> ranks, std::vector<std::size_t> counts);

    /** @brief Replaces the per-rank sizes (dense form); the buffer must be free. */
    void setCommRankSize(
        std::vector<std::size_t> rankCommSize,
        std::source_location where = std::source_location::current()
    );

    /** @brief Replaces the neighbours and their sizes (sparse form); the buffer must be free. */
    void setNeighbours(
        std::vector<int> ranks,
        std::vector<std::size_t> counts,
        std::source_location where = std::source_location::current()
    );

    /** @brief Whether the buffer is claimed (initComm was called and not yet finalised). */
    [[nodiscard]] bool isCommInit() const noexcept { return state_ != BufferState::Free; }

    /** @brief The state in the seven steps. */
    [[nodiscard]] BufferState state() const noexcept { return state_; }

    /** @brief The name given to initComm (empty when free). */
    [[nodiscard]] const std::string& name() const noexcept
    {
        return state_ == BufferState::Free ? emptyName() : name_;
    }

    /** @brief The neighbour ranks (every rank in the dense form). */
    [[nodiscard]] const std::vector<int>& ranks() const noexcept { return ranks_; }

    /** @brief Bytes of neighbour slot @p k for the claimed type. */
    [[nodiscard]] std::size_t bytesOf(std::size_t k) const noexcept
    {
        return byteOffsets_[k + 1] - byteOffsets_[k];
    }

    /** @brief Byte offset of neighbour slot @p k. */
    [[nodiscard]] std::size_t byteOffsetOf(std::size_t k) const noexcept { return byteOffsets_[k]; }

    /** @brief Total bytes for the claimed type. */
    [[nodiscard]] std::size_t totalBytes() const noexcept { return byteOffsets_.back(); }

    /** @brief Uses persistent requests (MPI_Send_init/Recv_init, then MPI_Startall). */
    void setPersistent(bool persistent) noexcept { persistent_ = persistent; }

    /** @brief Whether persistent requests are used. */
    [[nodiscard]] bool persistent() const noexcept { return persistent_; }

    /**
     * @brief Lets MPI use @p data (device or host memory MPI can reach) for neighbour slot @p k
     * instead of the buffer, in the next post (in-place communication); nullptr resets.
     * Cleared by every claim.
     */
    void setDirect(
        std::size_t k, void* data, std::source_location where = std::source_location::current()
    );

    /** @brief Whether neighbour slot @p k goes to MPI from / to the field directly. */
    [[nodiscard]] bool isDirect(std::size_t k) const noexcept { return direct_[k] != nullptr; }

    /** @brief Whether some slot goes directly. */
    [[nodiscard]] bool anyDirect() const noexcept { return directCount_ > 0; }

    /** @brief This process's rank in the communicator. */
    [[nodiscard]] int myRank() const noexcept { return myRank_; }

    /** @brief The slot of neighbour @p rank, -1 when @p rank is in range but no neighbour. */
    [[nodiscard]] int slotOf(int rank, const std::source_location& where) const;

    /** @brief The slot of this rank, -1 when it is not its own neighbour (kept, no search). */
    [[nodiscard]] int selfSlot() const noexcept { return selfSlot_; }

    /**
     * @brief MPI_Testall on this direction's requests; true when none is pending.
     *
     * For a receive (@p isReceive), each completed message's size (MPI_Get_count on a status
     * array kept with the requests, no allocation) must be the expected byte count: a shorter
     * message, or a longer one that MPI truncated (MPI_ERR_TRUNCATE), is a fieldsync::Error
     * naming the buffer, the call site, the peer rank and both byte counts. The direction is
     * complete when that error is thrown (its requests are done), so the buffer can still be
     * finalised.
     */
    [[nodiscard]] bool testRequests(bool isReceive, const std::source_location& where);

    /** @brief Whether a message of this claim failed (wrong size, MPI error); the claim is done. */
    [[nodiscard]] bool failed() const noexcept { return failed_; }

    /** @brief Messages posted by the last post (MPI messages only, no self copy). */
    [[nodiscard]] std::size_t postedMessages() const noexcept { return requests_.size(); }

    /** @brief Bytes posted by the last post (MPI messages only, no self copy). */
    [[nodiscard]] std::size_t postedBytes() const noexcept { return postedBytes_; }

    /**
     * @brief The messages still pending, e.g. "receive from rank 3 (4096 B)", comma separated
     * (MPI_Request_get_status: completes nothing, so no status is lost).
     */
    [[nodiscard]] std::string describePending(bool isSend, const std::source_location& where);

    /** @brief Frees persistent requests (inactive); logs and cancels active ones. */
    void freeRequests() noexcept;

protected:
    ~CommBufferCore();
    CommBufferCore(const CommBufferCore&) = delete;
    CommBufferCore& operator=(const CommBufferCore&) = delete;
    CommBufferCore(CommBufferCore&&) = delete;
    CommBufferCore& operator=(CommBufferCore&&) = delete;

    /** @brief Claims the buffer: state, name, type and byte offsets; returns the bytes needed. */
    std::size_t claim(
        std::string_view name,
        const std::type_info& type,
        std::size_t entryBytes,
        const std::source_location& where
    );

    /** @brief Checks that the claimed type is @p type (by typeid). */
    void checkType(const std::type_info& type, const std::source_location& where) const;

    /** @brief Throws unless in @p expected; @p call names the operation (inline test). */
    void requireState(
        BufferState expected, std::string_view call, const std::source_location& where
    ) const
    {
        if (state_ != expected) [[unlikely]]
        {
            failState(expected, call, where);
        }
    }

    /** @brief Throws the Error of requireState (out of line: the per-step path only tests). */
    [[noreturn]] void
    failState(BufferState expected, std::string_view call, const std::source_location& where) const;

    /** @brief An empty name (what name() gives while free). */
    static const std::string& emptyName() noexcept;

    /** @brief Posts the MPI operations of every non-self, non-empty slot from @p base. */
    void post(bool isSend, char* base, int tag, const std::source_location& where);

    /** @brief Throws an Error naming the buffer and the call. */
    [[noreturn]] void fail(const std::string& message, const std::source_location& where) const;

    /** @brief Throws the Error for requests that MPI reports failed (MPI_ERR_IN_STATUS). */
    [[noreturn]] void failStatuses(bool isReceive, int code, const std::source_location& where);

    /** @brief Throws when a completed receive holds another byte count than expected. */
    void checkReceivedCounts(const std::source_location& where);

    MPI_Comm comm_ { MPI_COMM_NULL };         /**< communicator the messages use */
    std::optional<MPIEnvironment> env_;       /**< keeps the communicator alive */
    int myRank_ { 0 };                        /**< rank in comm_ */
    int nRanks_ { 0 };                        /**< size of comm_ */
    BufferState state_ { BufferState::Free }; /**< step in the seven steps */
    std::string name_;    /**< name of the last claim (kept when freed: no copy on re-claim) */
    int selfSlot_ { -1 }; /**< slot of myRank_, -1 when none */
    const std::type_info* type_ { nullptr };     /**< element type of the claim */
    std::size_t entryBytes_ { 0 };               /**< bytes per counted entry */
    bool offsetsValid_ { false };                /**< byteOffsets_ match entryBytes_ */
    std::vector<int> ranks_;                     /**< neighbour ranks */
    std::vector<std::size_t> counts_;            /**< entries per neighbour */
    std::vector<std::size_t> byteOffsets_ { 0 }; /**< byte offsets per neighbour, +1 */
    std::vector<void*> direct_;                  /**< in-place pointers per neighbour or nullptr */
    std::size_t directCount_ { 0 };              /**< number of non-null direct_ */
    bool persistent_ { false };                  /**< persistent requests */
    std::vector<MPI_Request> requests_;          /**< requests of the last post */
    std::vector<int> requestRank_;               /**< peer of each request */
    std::vector<void*> requestData_;    /**< memory of each request (persistent signature) */
    std::vector<int> requestBytes_;     /**< bytes of each request */
    std::vector<MPI_Status> statuses_;  /**< statuses of the last MPI_Testall */
    std::size_t postedBytes_ { 0 };     /**< bytes of the requests */
    bool failed_ { false };             /**< a message of this claim failed */
    int requestTag_ { -1 };             /**< tag of the persistent requests */
    bool requestsPersistent_ { false }; /**< requests_ are persistent handles */
};

} // namespace fieldsync::mpi
