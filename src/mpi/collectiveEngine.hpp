// SPDX-License-Identifier: MIT
// Private to src/mpi: the engine state the collective families share (validation, staging,
// counts), and one entry point per family (reductions.cpp, gathers.cpp, ...).
#pragma once

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "requestState.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <exception>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace fieldsync::mpi::detail
{

/** @brief Decimal text of @p value (for messages). */
inline std::string str(std::size_t value)
{
    return std::to_string(value);
}

/** @brief Which of the call state's count arrays a layout fills. */
enum class Side
{
    Send,     /**< sendCounts and sendDispls */
    Recv,     /**< recvCounts and recvDispls */
    CheckOnly /**< none: the counts are only checked (a V operation off its root) */
};

/** @brief What MPI is given for one side each: the send and receive pointers and this rank's count.
 */
struct Pointers
{
    const void* send { nullptr }; /**< send pointer, MPI_IN_PLACE or null */
    void* recv { nullptr };       /**< receive pointer, MPI_IN_PLACE or null */
    int count { 0 };              /**< MPI count of this rank's values */
};

class Engine;

/**
 * @brief Check mode: agrees the call's signature (operation, element type, op, root, counts)
 * with every rank of the communicator, and throws the same Error on every rank when they differ
 * or when @p localFailure says this rank's own checks failed (which it then rethrows).
 * Implemented in collectiveCheck.cpp.
 */
void checkAgreement(const Engine& e, const std::exception_ptr& localFailure);

/** @brief MPI's name of the element type of @p type ("MPI_DOUBLE", "3 x MPI_DOUBLE"). */
[[nodiscard]] std::string typeName(const TypeDesc& type);

/** @brief The kind of values a TypeClass holds, for messages ("floating-point"). */
[[nodiscard]] const char* className(TypeClass typeClass);

/** @brief Everything the family runners share: the call, the state, rank and size, staging helpers.
 */
class Engine
{
public:
    /** The engine of @p call; rank and size are asked of MPI at their first use (an allReduce
     * needs neither). */
    Engine(Call& call, RequestState& state) : call_(call), state_(state) {}

    [[nodiscard]] const Call& call() const { return call_; }
    [[nodiscard]] RequestState& state() { return state_; }
    [[nodiscard]] MPI_Request* request() { return &state_.request; }
    [[nodiscard]] bool blocking() const { return call_.blocking; }
    [[nodiscard]] bool inPlace() const { return call_.inPlace; }
    [[nodiscard]] MPI_Datatype type() const { return call_.type.datatype; }
    [[nodiscard]] MPI_Op op() const { return getOp(call_.op); }
    [[nodiscard]] MPI_Comm comm() const { return call_.comm; }
    [[nodiscard]] int root() const { return call_.root; }
    [[nodiscard]] const Buffer& sendBuffer() const { return call_.send; }
    [[nodiscard]] const Buffer& recvBuffer() const { return call_.recv; }
    [[nodiscard]] int rank() const
    {
        if (rank_ < 0)
        {
            FIELDSYNC_MPI_AT(MPI_Comm_rank(call_.comm, &rank_), call_.where);
        }
        return rank_;
    }
    [[nodiscard]] int size() const
    {
        if (size_ < 0)
        {
            FIELDSYNC_MPI_AT(MPI_Comm_size(call_.comm, &size_), call_.where);
        }
        return size_;
    }
    [[nodiscard]] std::size_t usize() const { return static_cast<std::size_t>(size()); }
    [[nodiscard]] bool isRoot() const { return rank() == call_.root; }
    [[nodiscard]] bool native() const { return call_.algorithm == Algorithm::Native; }

    /** Whether the ranks' signatures were agreed (check mode) for this call. */
    [[nodiscard]] bool agreed() const { return agreed_; }

    /** The last step before MPI: in check mode, agrees with the other ranks (once); free when
     * check mode is off. @p localFailure, when set, is this rank's failed own check. A
     * non-blocking call with a matchId is not agreed: the agreement waits for the peers, and
     * the ranks may start the calls of different ids in different orders. */
    void agreeWithPeers(const std::exception_ptr& localFailure = nullptr)
    {
        static const bool on = checkMode(); // read once: one predictable branch per call
        if (on && !agreed_ && (call_.blocking || call_.matchId == nullptr))
        {
            agreed_ = true;
            checkAgreement(*this, localFailure);
        }
    }

    [[noreturn]] void fail(const std::string& message) const
    {
        throw Error(std::string(call_.name) + ": " + message, call_.where);
    }

    /** Fails unless @p condition holds; @p message() builds the text only on failure, so a
     * passing check costs no allocation. */
    template<typename Message>
    void check(bool condition, const Message& message) const
    {
        if (!condition)
        {
            fail(message());
        }
    }

    /** The MPI count of @p values values; an Error if it exceeds int. */
    [[nodiscard]] int count(std::size_t values) const
    {
        const auto elements = static_cast<std::uint64_t>(values) *
                              static_cast<std::uint64_t>(call_.type.multiplicity);
        check(
            elements <= static_cast<std::uint64_t>(INT_MAX),
            [&]
            {
                return "count of " + str(values) +
                       " values exceeds what MPI takes in one call (INT_MAX "
                       "elements)";
            }
        );
        return static_cast<int>(elements);
    }

    /** Checks that @p buffer holds at least @p values values. */
    void need(const Buffer& buffer, std::size_t values, const char* what) const
    {
        check(
            buffer.count >= values,
            [&]
            {
                return std::string(what) + " too small: holds " + str(buffer.count) +
                       " values, needs " + str(values);
            }
        );
    }

    /** Values per rank when @p values are split evenly over the ranks. */
    [[nodiscard]] std::size_t perRank(std::size_t values, const char* what) const
    {
        check(
            values % usize() == 0,
            [&]
            {
                return std::string(what) + " holds " + str(values) +
                       " values, not a multiple of the " + std::to_string(size()) + " ranks";
            }
        );
        return values / usize();
    }

    /**
     * Validates a per-rank counts vector and lays it out packed in rank order in the state's
     * count arrays of @p side (MPI reads them until completion). Returns the values over all
     * ranks. One pass with no branch per rank; a bad entry is looked for only after it, so the
     * messages name the first one, as a check per entry would.
     */
    [[nodiscard]] std::size_t layout(std::span<const int> counts, const char* what, Side side)
    {
        const std::size_t ranks { usize() };
        check(
            counts.size() == ranks,
            [&]
            {
                return std::string(what) + " has " + str(counts.size()) +
                       " entries, expected one per rank (" + std::to_string(size()) + ")";
            }
        );
        const auto multiplicity = static_cast<std::int64_t>(call_.type.multiplicity);
        int* mpiCounts { nullptr };
        int* mpiDispls { nullptr };
        if (side != Side::CheckOnly)
        {
            const bool send = side == Side::Send;
            laidOut_[send ? 0 : 1] = true;
            mpiCounts = sized(countsOf(send));
            mpiDispls = sized(displsOf(send));
        }
        std::int64_t total { 0 };
        int anyNegative { 0 };
        for (std::size_t r = 0; r < ranks; ++r)
        {
            if (mpiCounts != nullptr) // the same every rank: predicted
            {
                // out of int range only when the checks below fail, before MPI sees them
                mpiDispls[r] = static_cast<int>(total * multiplicity);
                mpiCounts[r] = static_cast<int>(std::int64_t { counts[r] } * multiplicity);
            }
            anyNegative |= counts[r];
            total += counts[r];
        }
        // the sum of non-negative ints stays far from the int64 limit; the largest element
        // count MPI is given is the total's (a displacement or a count is never larger)
        if (anyNegative < 0 || total * multiplicity > INT_MAX)
        {
            reportBadCounts(counts, what);
        }
        return static_cast<std::size_t>(total);
    }

    /** The values of ranks 0 to @p r - 1 in @p counts (validated by layout() first). */
    [[nodiscard]] static std::size_t valuesBefore(std::span<const int> counts, int r)
    {
        return std::accumulate(counts.begin(), counts.begin() + r, std::size_t { 0 });
    }

    /** The pointer MPI reads @p values send values from (staged when the buffer says so). */
    [[nodiscard]] const void* send(std::size_t values)
    {
        const Buffer& buffer = call_.send;
        if (!buffer.stage || values == 0)
        {
            return buffer.data;
        }
        std::byte* host { state_.hostSend.reserve(values * call_.type.bytes) };
        buffer.access->toHost(host, values);
        return host;
    }

    /**
     * The pointer MPI uses for the receive (or in-place) buffer; when staged, @p in values are
     * copied to the host first and @p out values back after completion.
     */
    [[nodiscard]] void* recv(std::size_t in, std::size_t out)
    {
        Buffer& buffer = call_.recv;
        if (!buffer.stage || (in == 0 && out == 0))
        {
            return buffer.data;
        }
        std::byte* host { state_.hostRecv.reserve(std::max(in, out) * call_.type.bytes) };
        if (in > 0)
        {
            buffer.access->toHost(host, in);
        }
        state_.copyBack = buffer.access;
        state_.outCount = out;
        return host;
    }

    /** Checks and prepares a send of @p sendValues values and a receive of @p recvValues. */
    [[nodiscard]] Pointers sendRecv(std::size_t sendValues, std::size_t recvValues)
    {
        need(call_.send, sendValues, "send buffer");
        need(call_.recv, recvValues, "receive buffer");
        const void* sp = send(sendValues);
        return Pointers { sp, recv(0, recvValues), 0 };
    }

    /** @p base advanced by @p values values. */
    [[nodiscard]] void* offset(void* base, std::size_t values) const
    {
        return static_cast<std::byte*>(base) + values * call_.type.bytes;
    }

    /** This rank's entry of @p counts (validated by layout() first). */
    [[nodiscard]] std::size_t mine(std::span<const int> counts) const
    {
        return static_cast<std::size_t>(counts[static_cast<std::size_t>(rank())]);
    }

    /** Checks that the send buffer holds exactly @p values, this rank's entry of recvCounts. */
    void sendHolds(std::size_t values, const char* who) const
    {
        check(
            call_.send.count == values,
            [&]
            {
                return "send buffer holds " + str(call_.send.count) + " values but recvCounts[" +
                       who + " " + std::to_string(rank()) + "] is " + str(values);
            }
        );
    }

    /** The MPI counts of @p side that this call laid out (layout()), or null when it laid out
     * none (a V operation off its root). */
    [[nodiscard]] const int* keptCounts(Side side) const
    {
        const bool send = side == Side::Send;
        return laidOut_[send ? 0 : 1] ? countsOf(send).data() : nullptr;
    }

    /** The MPI displacements of @p side that this call laid out, or null (as keptCounts). */
    [[nodiscard]] const int* keptDispls(Side side) const
    {
        const bool send = side == Side::Send;
        return laidOut_[send ? 0 : 1] ? displsOf(send).data() : nullptr;
    }

private:
    /** The state's counts of the send (@p send) or the receive side. */
    [[nodiscard]] std::vector<int>& countsOf(bool send) const
    {
        return send ? state_.sendCounts : state_.recvCounts;
    }

    /** The state's displacements of the send (@p send) or the receive side. */
    [[nodiscard]] std::vector<int>& displsOf(bool send) const
    {
        return send ? state_.sendDispls : state_.recvDispls;
    }

    /** Fails naming the first entry of @p counts that is negative, or the first count or
     * displacement MPI cannot take (found by layout()). */
    [[noreturn]] void reportBadCounts(std::span<const int> counts, const char* what) const
    {
        std::size_t total { 0 };
        for (std::size_t r = 0; r < counts.size(); ++r)
        {
            check(
                counts[r] >= 0,
                [&] {
                    return std::string(what) + "[" + str(r) + "] is negative (" +
                           std::to_string(counts[r]) + ")";
                }
            );
            static_cast<void>(count(total));
            static_cast<void>(count(static_cast<std::size_t>(counts[r])));
            total += static_cast<std::size_t>(counts[r]);
        }
        static_cast<void>(count(total));
        fail(std::string("internal error: ") + what + " was reported bad but is not");
    }

    /** @p v resized to one entry per rank. */
    [[nodiscard]] int* sized(std::vector<int>& v) const
    {
        v.resize(usize());
        return v.data();
    }

    Call& call_;
    RequestState& state_;
    mutable int rank_ { -1 }; /**< rank in the communicator, -1 until asked */
    mutable int size_ { -1 }; /**< ranks of the communicator, -1 until asked */
    bool agreed_ { false };
    std::array<bool, 2> laidOut_ {}; /**< layout() wrote the send, the receive arrays */
};

/** @brief allReduce, reduce and reduceScatter (both forms); returns the MPI error code. */
int runReduction(Engine& e);

/** @brief scan and exScan; returns the MPI error code. */
int runScan(Engine& e);

/** @brief allGather, allGatherV, gather and gatherV; returns the MPI error code. */
int runGather(Engine& e);

/** @brief scatter and scatterV; returns the MPI error code. */
int runScatter(Engine& e);

/** @brief allToAll and allToAllV; returns the MPI error code. */
int runAllToAll(Engine& e);

/** @brief True when fieldsync has @p algorithm for the collective @p kind. */
[[nodiscard]] bool algorithmApplies(Kind kind, Algorithm algorithm) noexcept;

/**
 * @brief Runs (or, non-blocking, starts) the call's own algorithm on host memory prepared as for
 * the MPI call: @p send and @p recv as MPI takes them (MPI_IN_PLACE included), @p values the
 * values per rank (gathers, scatters, reduceScatter) or in all (the others).
 */
int runAlgorithm(Engine& e, const void* send, void* recv, std::size_t values);

/** @brief broadcast and barrier; returns the MPI error code. */
int runBroadcast(Engine& e);

} // namespace fieldsync::mpi::detail
