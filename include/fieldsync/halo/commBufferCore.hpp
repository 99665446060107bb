// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/stagingBytes.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <source_location>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include <mpi.h>

namespace fieldsync::halo
{

using mpi::MPIEnvironment;
class Transport;

namespace detail
{
/** @brief Where a communication buffer is in the seven steps. */
enum class BufferState
{
    Free,     /**< not claimed */
    Claimed,  /**< claimed by initComm, may be filled */
    InFlight, /**< started, requests pending */
    Complete  /**< all requests done, receive slices readable */
};
} // namespace detail

/** @brief The name of a BufferState, for messages. */
[[nodiscard]] const char* toString(detail::BufferState state) noexcept;

using fieldsync::toString; // the core overloads (call sites) stay visible here

namespace detail
{

/** @brief One message of one direction: the peer, the memory MPI reads or writes, its size. */
struct Message
{
    int rank { -1 };        /**< peer rank in the communicator */
    void* data { nullptr }; /**< memory MPI can reach (buffer, staging copy or the field) */
    int bytes { 0 };        /**< bytes of the message */
};

/**
 * @brief One direction of point-to-point communication, compiled once for every memory space:
 * the neighbours and their slices (byte offsets), the claim state, the element type, the bytes
 * (in the memory space of its SpaceOps, with a host staging copy when MPI cannot reach them)
 * and the messages, moved by an exchange back end (Transport). Holds every guard rail;
 * HalfDuplexCommBuffer<MemSpace> adds typed access to the bytes.
 *
 * Destroying it with messages in flight cancels and completes them before any memory is freed
 * (memory MPI may still touch after a failed cancel is kept, not freed, and logged). Destroyed
 * after the MPI and Kokkos run ended (runtimeEnded(): a buffer in a static that outlived
 * MPIInit), it calls neither MPI nor Kokkos and leaves its requests and bytes allocated.
 */
class CommBufferCore
{
public:
    /** @brief An empty buffer without communicator, for memory of @p space. */
    explicit CommBufferCore(const mpi::detail::SpaceOps& space);

    /** @brief Dense form (seed): @p rankCommSize[r] values for every rank r of @p env. */
    CommBufferCore(
        const mpi::detail::SpaceOps& space,
        MPIEnvironment env,
        std::vector<std::size_t> rankCommSize
    );

    /** @brief Sparse form: @p counts[k] values for neighbour @p ranks[k] (ascending ranks). */
    CommBufferCore(
        const mpi::detail::SpaceOps& space,
        MPIEnvironment env,
        std::vector<int> ranks,
        std::vector<std::size_t> counts
    );

    /**
     * @brief Cancels and completes messages in flight, then frees the bytes; after the run ended
     * (runtimeEnded()), leaves them allocated and calls neither MPI nor Kokkos.
     */
    ~CommBufferCore();

    CommBufferCore(const CommBufferCore&) = delete;
    CommBufferCore& operator=(const CommBufferCore&) = delete;
    CommBufferCore(CommBufferCore&&) = delete;
    CommBufferCore& operator=(CommBufferCore&&) = delete;

    /** @brief Replaces the per-rank sizes (dense form); the buffer must be free. */
    void setCommRankSize(
        std::vector<std::size_t> rankCommSize,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief Moves the (free) buffer to @p env's communicator: no neighbours until
     * setCommRankSize() or setNeighbours(); a back end made for the old communicator is dropped.
     */
    void setEnvironment(
        MPIEnvironment env, std::source_location where = std::source_location::current()
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
    )
    {
        if (state_ != BufferState::Claimed || k >= direct_.size())
        {
            failSetDirect(k, where);
        }
        directCount_ += (data != nullptr ? 1 : 0) - (direct_[k] != nullptr ? 1 : 0);
        direct_[k] = data;
    }

    /** @brief Whether neighbour slot @p k goes to MPI from / to the field directly. */
    [[nodiscard]] bool isDirect(std::size_t k) const noexcept { return direct_[k] != nullptr; }

    /** @brief The memory of neighbour slot @p k: its in-place pointer, or its slice of the bytes.
     */
    [[nodiscard]] char* slotData(std::size_t k) const noexcept
    {
        return direct_[k] != nullptr ? static_cast<char*>(direct_[k]) : storage_ + byteOffsets_[k];
    }

    /** @brief Whether some slot goes directly. */
    [[nodiscard]] bool anyDirect() const noexcept { return directCount_ > 0; }

    /** @brief This process's rank in the communicator. */
    [[nodiscard]] int myRank() const noexcept { return myRank_; }

    /** @brief The slot of neighbour @p rank, -1 when @p rank is in range but no neighbour. */
    [[nodiscard]] int slotOf(int rank, const std::source_location& where) const;

    /** @brief The slot of this rank, -1 when it is not its own neighbour (kept, no search). */
    [[nodiscard]] int selfSlot() const noexcept { return selfSlot_; }

    /**
     * @brief Claims the buffer under @p name for @p entryBytes bytes per counted entry of
     * element type @p type; grows the bytes when needed (never shrinks; never while in flight).
     */
    void claimBytes(
        std::string_view name,
        const std::type_info& type,
        std::size_t entryBytes,
        const std::source_location& where
    )
    {
        const std::size_t bytes = claim(name, type, entryBytes, where);
        if (capacity_ < bytes)
        {
            grow(bytes);
        }
    }

    /**
     * @brief Whether this rank's own slot travels as an MPI message to itself (a half-duplex
     * buffer used alone, as NeoN posts it) instead of being left to a local copy (the default:
     * DuplexBuffer copies the self slot from its send half). Set while not in flight.
     */
    void setSelfMessage(bool selfMessage) noexcept
    {
        selfMessage_ = selfMessage;
        layoutChanged_ = true;
    }

    /** @brief Whether the self slot travels as an MPI message (setSelfMessage). */
    [[nodiscard]] bool selfMessage() const noexcept { return selfMessage_; }

    /** @brief Stages the messages through host memory (set when free or claimed). */
    void setStaging(bool staging) noexcept { staging_ = staging; }

    /** @brief Whether the messages go through host staging memory. */
    [[nodiscard]] bool staging() const noexcept { return staging_; }

    /**
     * @brief The bytes of @p rank's slice (empty when @p rank is in range but no neighbour),
     * for a claim of element type @p type, when claimed and not in flight.
     * @throws Error when the state, the type or the rank is wrong.
     */
    [[nodiscard]] std::span<char>
    slice(int rank, const std::type_info& type, const std::source_location& where);

    /** @brief The bytes, in the buffer's memory space. */
    [[nodiscard]] char* data() const noexcept { return storage_; }

    /** @brief The memory space of the bytes. */
    [[nodiscard]] const mpi::detail::SpaceOps& space() const noexcept { return *space_; }

    /** @brief Posts the sends (after staging them to the host when staged). */
    void send(int tag, std::source_location where = std::source_location::current());

    /** @brief Posts the receives. */
    void receive(int tag, std::source_location where = std::source_location::current());

    /**
     * @brief Marks a started direction complete once its messages are done; a staged receive is
     * copied back from the host. Returns true when complete.
     *
     * A received message of another size than expected (shorter, or longer and truncated by
     * MPI) is a fieldsync::Error naming the buffer, the call site, the peer rank and both byte
     * counts. The direction is complete when that error is thrown (its messages are done), so the
     * buffer can still be finalised.
     */
    bool complete(bool isReceive, const std::source_location& where);

    /**
     * @brief complete() of this receive direction and of @p sends, the send direction of the
     * same buffer, both in flight (the caller checks), in one test where their back end keeps both
     * directions together (Transport::testTogether): true when both are complete; std::nullopt,
     * testing nothing, where it does not (complete() each direction). A receive of another size
     * throws as complete() does, this direction complete then, @p sends still in flight.
     */
    [[nodiscard]] std::optional<bool>
    completeTogether(CommBufferCore& sends, const std::source_location& where);

    /** @brief Releases the claim; the buffer must not be in flight. */
    void finaliseComm(std::source_location where = std::source_location::current())
    {
        requireNotInFlight("finaliseComm", where);
        state_ = BufferState::Free; // name() reads empty now; name_ is kept for the next claim
        type_ = nullptr;
    }

    /** @brief Whether a message of this claim failed (wrong size, MPI error); the claim is done. */
    [[nodiscard]] bool failed() const noexcept { return failed_; }

    /** @brief Messages posted by the last post (MPI messages only, no self copy). */
    [[nodiscard]] std::size_t postedMessages() const noexcept { return messages_.size(); }

    /** @brief Bytes posted by the last post (MPI messages only, no self copy). */
    [[nodiscard]] std::size_t postedBytes() const noexcept { return postedBytes_; }

    /**
     * @brief The messages still pending, e.g. "receive from rank 3 (4096 B)", comma separated
     * (completes nothing, so no status is lost).
     */
    [[nodiscard]] std::string describePending(const std::source_location& where);

    /**
     * @brief Whether a message of this buffer with @p rank may still be in flight (false once
     * the buffer completed; true for a collective back end in flight). Never throws.
     */
    [[nodiscard]] bool awaits(int rank) noexcept;

    /**
     * @brief Moves the messages through @p transport from the next post on (default: the
     * point-to-point back end); the buffer must not be in flight.
     */
    void setTransport(std::unique_ptr<Transport> transport, const std::source_location& where);

    /** @brief Whether a back end was set or made by a post. */
    [[nodiscard]] bool hasTransport() const noexcept { return transport_ != nullptr; }

    /**
     * @brief Cancels and completes the messages in flight (logged), frees persistent requests.
     * Returns false when a message could not be completed under the time-out.
     */
    bool cancelMessages() noexcept;

    /**
     * @brief After a failed check (check mode): settles the messages in flight through
     * Transport::settle (receives flagged in @p cancel are cancelled, every other message is
     * completed) and marks the direction complete and failed, so the claim can be finalised.
     * Returns false when a message could not be completed under the time-out.
     */
    bool settle(std::span<const char> cancel, std::string_view name) noexcept;

protected:
    /** @brief Claims the buffer: state, name, type and byte offsets; returns the bytes needed. */
    std::size_t claim(
        std::string_view name,
        const std::type_info& type,
        std::size_t entryBytes,
        const std::source_location& where
    )
    {
        if (state_ != BufferState::Free || name.empty())
        {
            failClaim(name, where);
        }
        if (name_ != name)
        {
            name_.assign(name); // the same key claims its buffer again: usually no copy
        }
        type_ = &type;
        if (entryBytes != entryBytes_ || !offsetsValid_)
        {
            setEntryBytes(entryBytes);
        }
        if (directCount_ > 0)
        {
            clearDirect();
        }
        failed_ = false;
        state_ = BufferState::Claimed;
        return byteOffsets_.back();
    }

    /** @brief Throws the Error of a claim of a claimed buffer or with an empty @p name. */
    [[noreturn]] void failClaim(std::string_view name, const std::source_location& where) const;

    /** @brief Sets the byte offsets for @p entryBytes per entry (a new layout). */
    void setEntryBytes(std::size_t entryBytes);

    /** @brief Clears every in-place slot. */
    void clearDirect() noexcept;

    /** @brief Replaces the bytes by @p bytes new ones (nothing in flight). */
    void grow(std::size_t bytes);

    /** @brief Checks that the claimed type is @p type (by typeid). */
    void checkType(const std::type_info& type, const std::source_location& where) const;

    /** @brief Throws unless in @p expected; @p call names the operation (inline test). */
    void requireState(
        BufferState expected, std::string_view call, const std::source_location& where
    ) const
    {
        if (state_ != expected)
        {
            failState(expected, call, where);
        }
    }

    /** @brief Throws unless the messages are done (not in flight); @p call names the operation. */
    void requireNotInFlight(std::string_view call, const std::source_location& where) const
    {
        if (state_ == BufferState::InFlight)
        {
            failState(BufferState::Complete, call, where);
        }
    }

    /** @brief Throws the Error of requireState (out of line: the per-step path only tests). */
    [[noreturn]] void
    failState(BufferState expected, std::string_view call, const std::source_location& where) const;

    /** @brief An empty name (what name() gives while free). */
    static const std::string& emptyName() noexcept;

    /** @brief Posts the messages of every non-self, non-empty slot from @p base. */
    void post(char* base, int tag, const std::source_location& where);

    /** @brief Gathers messages_ from the slots (in place or at @p base) and records the layout. */
    void gatherMessages(char* base, const std::source_location& where);

    /** @brief The host staging copy, at least the claim's bytes (pinned in CUDA builds). */
    [[nodiscard]] char* hostStaging();

    /** @brief Copies the bytes to the host staging copy (sends). */
    void stageToHost();

    /** @brief Copies the received bytes back from the host staging copy (not the self slot). */
    void stageFromHost();

    /** @brief Throws an Error naming the buffer and the call. */
    [[noreturn]] void fail(const std::string& message, const std::source_location& where) const;

    /** @brief Throws the Error of a setDirect on an unclaimed buffer or a missing slot @p k. */
    [[noreturn]] void failSetDirect(std::size_t k, const std::source_location& where) const;

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
    const mpi::detail::SpaceOps* space_;         /**< memory space of the bytes */
    char* storage_ { nullptr };                  /**< the bytes (in space_) */
    std::size_t capacity_ { 0 };                 /**< bytes allocated at storage_ */
    mpi::detail::StagingBytes hostStorage_;      /**< host staging copy (pinned in CUDA builds) */
    bool staging_ { false };                     /**< messages go through hostStorage_ */
    bool isSend_ { false };                      /**< direction of the last post */
    std::unique_ptr<Transport> transport_;       /**< the messages (point-to-point) */
    std::vector<Message> messages_;              /**< this post's messages (kept: no allocation) */
    bool layoutChanged_ { true };     /**< ranks, counts or entry size changed since messages_ */
    bool postedValid_ { false };      /**< the transport's last post was messages_, and it worked */
    char* postedBase_ { nullptr };    /**< the base address messages_ was gathered for */
    std::vector<void*> postedDirect_; /**< direct_ when messages_ was gathered */
    std::size_t postedBytes_ { 0 };   /**< bytes of messages_ */
    bool failed_ { false };           /**< a message of this claim failed */
    bool selfMessage_ { false };      /**< the self slot is an MPI message, not a local copy */
};

} // namespace detail

} // namespace fieldsync::halo
