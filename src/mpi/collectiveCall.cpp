// SPDX-License-Identifier: MIT
// The one implementation of every collective: validation, fencing, host staging and the MPI call,
// on type-erased buffers (see include/fieldsync/mpi/detail/collectiveCall.hpp).
#include "fieldsync/mpi/detail/collectiveCall.hpp"

#include "fieldsync/core/error.hpp"
#include "requestState.hpp"

#include <climits>
#include <cstdint>
#include <string>

namespace fieldsync::mpi::detail
{

namespace
{

std::string str(std::size_t value)
{
    return std::to_string(value);
}

std::string typeName(const TypeDesc& type)
{
    char name[MPI_MAX_OBJECT_NAME] {};
    int length { 0 };
    if (MPI_Type_get_name(type.datatype, name, &length) != MPI_SUCCESS || length == 0)
    {
        return "an MPI datatype";
    }
    std::string text(name, static_cast<std::size_t>(length));
    return type.multiplicity == 1 ? text : std::to_string(type.multiplicity) + " x " + text;
}

const char* className(TypeClass typeClass)
{
    switch (typeClass)
    {
    case TypeClass::Integer:
        return "integer";
    case TypeClass::Floating:
        return "floating-point";
    case TypeClass::Complex:
        return "complex";
    case TypeClass::Logical:
        return "bool";
    case TypeClass::Pair:
        return "value-index pair";
    }
    return "unknown";
}

bool opDefined(ReduceOp op, TypeClass typeClass)
{
    switch (typeClass)
    {
    case TypeClass::Integer:
        return op != ReduceOp::MinLoc && op != ReduceOp::MaxLoc;
    case TypeClass::Floating:
        return op == ReduceOp::Sum || op == ReduceOp::Prod || op == ReduceOp::Min ||
               op == ReduceOp::Max;
    case TypeClass::Complex:
        return op == ReduceOp::Sum || op == ReduceOp::Prod;
    case TypeClass::Logical:
        return op == ReduceOp::LAnd || op == ReduceOp::LOr || op == ReduceOp::LXor;
    case TypeClass::Pair:
        return op == ReduceOp::MinLoc || op == ReduceOp::MaxLoc;
    }
    return false;
}

bool isReduction(Kind kind)
{
    return kind == Kind::AllReduce || kind == Kind::Reduce || kind == Kind::ReduceScatter ||
           kind == Kind::ReduceScatterBlock || kind == Kind::Scan || kind == Kind::ExScan;
}

bool isRooted(Kind kind)
{
    return kind == Kind::Reduce || kind == Kind::Broadcast || kind == Kind::Gather ||
           kind == Kind::GatherV || kind == Kind::Scatter || kind == Kind::ScatterV;
}

/** Per-rank counts scaled to MPI elements, with packed displacements. */
struct Layout
{
    std::vector<int> counts;              /**< MPI counts */
    std::vector<int> displs;              /**< MPI displacements */
    std::vector<std::size_t> valueDispls; /**< displacements in values */
    std::size_t total { 0 };              /**< values over all ranks */
};

/** Everything the cases below share: the call, the state, rank and size, staging helpers. */
class Engine
{
public:
    Engine(Call& call, RequestState& state) : call_(call), state_(state)
    {
        FIELDSYNC_MPI_AT(MPI_Comm_rank(call.comm, &rank_), call.where);
        FIELDSYNC_MPI_AT(MPI_Comm_size(call.comm, &size_), call.where);
    }

    [[nodiscard]] int rank() const { return rank_; }
    [[nodiscard]] int size() const { return size_; }
    [[nodiscard]] std::size_t usize() const { return static_cast<std::size_t>(size_); }
    [[nodiscard]] bool isRoot() const { return rank_ == call_.root; }

    [[noreturn]] void fail(const std::string& message) const
    {
        throw Error(std::string(call_.name) + ": " + message, call_.where);
    }

    /** Fails unless @p condition holds; @p message() builds the text only on failure, so a
     * passing check costs no allocation. */
    template<typename Message>
    void check(bool condition, const Message& message) const
    {
        if (!condition) [[unlikely]]
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
                       " values, not a multiple of the " + std::to_string(size_) + " ranks";
            }
        );
        return values / usize();
    }

    /** Validates a per-rank counts vector and lays it out packed in rank order. */
    [[nodiscard]] Layout layout(std::span<const int> counts, const char* what) const
    {
        check(
            counts.size() == usize(),
            [&]
            {
                return std::string(what) + " has " + str(counts.size()) +
                       " entries, expected one per rank (" + std::to_string(size_) + ")";
            }
        );
        Layout result;
        result.counts.resize(usize());
        result.displs.resize(usize());
        result.valueDispls.resize(usize());
        for (std::size_t r = 0; r < usize(); ++r)
        {
            check(
                counts[r] >= 0,
                [&] {
                    return std::string(what) + "[" + str(r) + "] is negative (" +
                           std::to_string(counts[r]) + ")";
                }
            );
            result.valueDispls[r] = result.total;
            result.displs[r] = count(result.total);
            result.counts[r] = count(static_cast<std::size_t>(counts[r]));
            result.total += static_cast<std::size_t>(counts[r]);
        }
        static_cast<void>(count(result.total));
        return result;
    }

    /** The pointer MPI reads @p values send values from (staged when the buffer says so). */
    [[nodiscard]] const void* send(std::size_t values)
    {
        const Buffer& buffer = call_.send;
        if (!buffer.stage || values == 0)
        {
            return buffer.data;
        }
        state_.hostSend.resize(values * call_.type.bytes);
        buffer.toHost(state_.hostSend.data(), values);
        return state_.hostSend.data();
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
        state_.hostRecv.resize(std::max(in, out) * call_.type.bytes);
        if (in > 0)
        {
            buffer.toHost(state_.hostRecv.data(), in);
        }
        state_.fromHost = buffer.fromHost;
        state_.outCount = out;
        return state_.hostRecv.data();
    }

    /** @p base advanced by @p values values. */
    [[nodiscard]] void* offset(void* base, std::size_t values) const
    {
        return static_cast<std::byte*>(base) + values * call_.type.bytes;
    }

    /** Keeps @p layout alive in the state (MPI reads count arrays until completion). */
    void keepSend(Layout&& layout)
    {
        state_.sendCounts = std::move(layout.counts);
        state_.sendDispls = std::move(layout.displs);
    }

    /** As keepSend, for the receive side. */
    void keepRecv(Layout&& layout)
    {
        state_.recvCounts = std::move(layout.counts);
        state_.recvDispls = std::move(layout.displs);
    }

private:
    Call& call_;
    RequestState& state_;
    int rank_ { 0 };
    int size_ { 1 };
};

const char* mpiName(Kind kind, bool blocking)
{
    switch (kind)
    {
    case Kind::AllReduce:
        return blocking ? "MPI_Allreduce" : "MPI_Iallreduce";
    case Kind::Reduce:
        return blocking ? "MPI_Reduce" : "MPI_Ireduce";
    case Kind::Broadcast:
        return blocking ? "MPI_Bcast" : "MPI_Ibcast";
    case Kind::AllGather:
        return blocking ? "MPI_Allgather" : "MPI_Iallgather";
    case Kind::AllGatherV:
        return blocking ? "MPI_Allgatherv" : "MPI_Iallgatherv";
    case Kind::Gather:
        return blocking ? "MPI_Gather" : "MPI_Igather";
    case Kind::GatherV:
        return blocking ? "MPI_Gatherv" : "MPI_Igatherv";
    case Kind::Scatter:
        return blocking ? "MPI_Scatter" : "MPI_Iscatter";
    case Kind::ScatterV:
        return blocking ? "MPI_Scatterv" : "MPI_Iscatterv";
    case Kind::AllToAll:
        return blocking ? "MPI_Alltoall" : "MPI_Ialltoall";
    case Kind::AllToAllV:
        return blocking ? "MPI_Alltoallv" : "MPI_Ialltoallv";
    case Kind::ReduceScatter:
        return blocking ? "MPI_Reduce_scatter" : "MPI_Ireduce_scatter";
    case Kind::ReduceScatterBlock:
        return blocking ? "MPI_Reduce_scatter_block" : "MPI_Ireduce_scatter_block";
    case Kind::Scan:
        return blocking ? "MPI_Scan" : "MPI_Iscan";
    case Kind::ExScan:
        return blocking ? "MPI_Exscan" : "MPI_Iexscan";
    case Kind::Barrier:
        return blocking ? "MPI_Barrier" : "MPI_Ibarrier";
    }
    return "MPI";
}

} // namespace

void requireMpiRunning(const char* name, const std::source_location& where)
{
    int initialised { 0 };
    int finalised { 0 };
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    FIELDSYNC_CHECK_AT(
        initialised && !finalised,
        std::string(name) + ": MPI is not running (" +
            (finalised ? "already finalised" : "not initialised") + "; create an MPIInit first)",
        where
    );
}

int timesSize(int count, MPI_Comm comm, const char* name, const std::source_location& where)
{
    requireMpiRunning(name, where);
    FIELDSYNC_CHECK_AT(
        comm != MPI_COMM_NULL, std::string(name) + ": the communicator is MPI_COMM_NULL", where
    );
    if (count < 0)
    {
        return count;
    }
    int size { 1 };
    FIELDSYNC_MPI_AT(MPI_Comm_size(comm, &size), where);
    const auto total = static_cast<long long>(count) * size;
    FIELDSYNC_CHECK_AT(
        total <= INT_MAX,
        std::string(name) + ": " + std::to_string(count) + " values per rank times " +
            std::to_string(size) + " ranks exceeds INT_MAX",
        where
    );
    return static_cast<int>(total);
}

int sum(std::span<const int> counts) noexcept
{
    long long total { 0 };
    for (const int c : counts)
    {
        total += c > 0 ? c : 0;
    }
    return total > INT_MAX ? INT_MAX : static_cast<int>(total);
}

int countOf(std::span<const int> counts, MPI_Comm comm) noexcept
{
    int initialised { 0 };
    int finalised { 0 };
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    if (!initialised || finalised || comm == MPI_COMM_NULL)
    {
        return 0;
    }
    int rank { 0 };
    int size { 0 };
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS ||
        counts.size() != static_cast<std::size_t>(size))
    {
        return 0;
    }
    const int mine = counts[static_cast<std::size_t>(rank)];
    return mine > 0 ? mine : 0;
}

Request run(Call call)
{
    requireMpiRunning(call.name, call.where);
    FIELDSYNC_CHECK_AT(
        call.comm != MPI_COMM_NULL,
        std::string(call.name) + ": the communicator is MPI_COMM_NULL",
        call.where
    );
    // A blocking call completes before it returns: its state lives on the stack, so a blocking
    // collective allocates nothing beyond what its counts or staging need.
    RequestState local;
    std::unique_ptr<RequestState> owned;
    if (!call.blocking)
    {
        owned = std::make_unique<RequestState>();
    }
    RequestState* const state = owned ? owned.get() : &local;
    state->name = call.name;
    state->where = call.where;
    Engine e(call, *state);
    if (isReduction(call.kind) && !opDefined(call.op, call.type.typeClass))
    {
        e.fail(
            std::string("ReduceOp ") + toString(call.op) + " is not defined on " +
            typeName(call.type) + " (" + className(call.type.typeClass) + " values)"
        );
    }
    if (isRooted(call.kind))
    {
        e.check(
            call.root >= 0 && call.root < e.size(),
            [&]
            {
                return "root " + std::to_string(call.root) +
                       " is out of range for a communicator of " + std::to_string(e.size()) +
                       " ranks";
            }
        );
    }

    // order the user's kernels before MPI (or the staging copies) touch the memory
    for (const Buffer* buffer : { &call.send, &call.recv })
    {
        if (buffer->fence)
        {
            buffer->fence();
        }
    }
    state->keepSend = std::move(call.send.keepAlive);
    state->keepRecv = std::move(call.recv.keepAlive);

    const MPI_Datatype type = call.type.datatype;
    const MPI_Op op = getOp(call.op);
    const MPI_Comm comm = call.comm;
    const bool blocking = call.blocking;
    const bool inPlace = call.inPlace;
    const Buffer& sendBuffer = call.send;
    const Buffer& recvBuffer = call.recv;
    MPI_Request* request = &state->request;
    int rc { MPI_SUCCESS };

    switch (call.kind)
    {
    case Kind::AllReduce:
    case Kind::Scan:
    case Kind::ExScan:
    {
        const std::size_t n = inPlace ? recvBuffer.count : sendBuffer.count;
        e.need(recvBuffer, n, "receive buffer");
        const void* sp = inPlace ? MPI_IN_PLACE : e.send(n);
        const bool written = !(call.kind == Kind::ExScan && e.rank() == 0 && !inPlace);
        void* rp = e.recv(inPlace ? n : 0, written ? n : 0);
        const int c = e.count(n);
        if (call.kind == Kind::AllReduce)
        {
            rc = blocking ? MPI_Allreduce(sp, rp, c, type, op, comm)
                          : MPI_Iallreduce(sp, rp, c, type, op, comm, request);
        }
        else if (call.kind == Kind::Scan)
        {
            rc = blocking ? MPI_Scan(sp, rp, c, type, op, comm)
                          : MPI_Iscan(sp, rp, c, type, op, comm, request);
        }
        else
        {
            rc = blocking ? MPI_Exscan(sp, rp, c, type, op, comm)
                          : MPI_Iexscan(sp, rp, c, type, op, comm, request);
        }
        break;
    }
    case Kind::Reduce:
    {
        const std::size_t n = inPlace ? recvBuffer.count : sendBuffer.count;
        const void* sp { nullptr };
        void* rp { nullptr };
        if (inPlace)
        {
            void* io = e.recv(n, e.isRoot() ? n : 0);
            sp = e.isRoot() ? MPI_IN_PLACE : io;
            rp = e.isRoot() ? io : nullptr;
        }
        else
        {
            if (e.isRoot())
            {
                e.need(recvBuffer, n, "receive buffer");
            }
            sp = e.send(n);
            rp = e.isRoot() ? e.recv(0, n) : nullptr;
        }
        const int c = e.count(n);
        rc = blocking ? MPI_Reduce(sp, rp, c, type, op, call.root, comm)
                      : MPI_Ireduce(sp, rp, c, type, op, call.root, comm, request);
        break;
    }
    case Kind::Broadcast:
    {
        const std::size_t n = recvBuffer.count;
        void* p = e.recv(e.isRoot() ? n : 0, e.isRoot() ? 0 : n);
        const int c = e.count(n);
        rc = blocking ? MPI_Bcast(p, c, type, call.root, comm)
                      : MPI_Ibcast(p, c, type, call.root, comm, request);
        break;
    }
    case Kind::AllGather:
    {
        const std::size_t n =
            inPlace ? e.perRank(recvBuffer.count, "in-place buffer") : sendBuffer.count;
        e.need(recvBuffer, n * e.usize(), "receive buffer");
        const void* sp = inPlace ? MPI_IN_PLACE : e.send(n);
        void* rp = e.recv(inPlace ? n * e.usize() : 0, n * e.usize());
        const int c = e.count(n);
        rc = blocking ? MPI_Allgather(sp, c, type, rp, c, type, comm)
                      : MPI_Iallgather(sp, c, type, rp, c, type, comm, request);
        break;
    }
    case Kind::AllGatherV:
    {
        Layout l = e.layout(call.recvCounts, "recvCounts");
        const auto mine =
            static_cast<std::size_t>(call.recvCounts[static_cast<std::size_t>(e.rank())]);
        if (!inPlace)
        {
            e.check(
                sendBuffer.count == mine,
                [&]
                {
                    return "send buffer holds " + str(sendBuffer.count) +
                           " values but recvCounts[rank " + std::to_string(e.rank()) + "] is " +
                           str(mine);
                }
            );
        }
        e.need(recvBuffer, l.total, "receive buffer");
        const void* sp = inPlace ? MPI_IN_PLACE : e.send(mine);
        void* rp = e.recv(inPlace ? l.total : 0, l.total);
        const int c = e.count(mine);
        e.keepRecv(std::move(l));
        rc = blocking ? MPI_Allgatherv(
                            sp,
                            c,
                            type,
                            rp,
                            state->recvCounts.data(),
                            state->recvDispls.data(),
                            type,
                            comm
                        )
                      : MPI_Iallgatherv(
                            sp,
                            c,
                            type,
                            rp,
                            state->recvCounts.data(),
                            state->recvDispls.data(),
                            type,
                            comm,
                            request
                        );
        break;
    }
    case Kind::Gather:
    {
        std::size_t n { 0 };
        const void* sp { nullptr };
        void* rp { nullptr };
        if (inPlace)
        {
            n = e.perRank(recvBuffer.count, "in-place buffer");
            void* io = e.recv(recvBuffer.count, e.isRoot() ? recvBuffer.count : 0);
            sp = e.isRoot() ? MPI_IN_PLACE : e.offset(io, n * static_cast<std::size_t>(e.rank()));
            rp = e.isRoot() ? io : nullptr;
        }
        else
        {
            n = sendBuffer.count;
            if (e.isRoot())
            {
                e.need(recvBuffer, n * e.usize(), "receive buffer");
            }
            sp = e.send(n);
            rp = e.isRoot() ? e.recv(0, n * e.usize()) : nullptr;
        }
        const int c = e.count(n);
        rc = blocking ? MPI_Gather(sp, c, type, rp, c, type, call.root, comm)
                      : MPI_Igather(sp, c, type, rp, c, type, call.root, comm, request);
        break;
    }
    case Kind::GatherV:
    {
        const void* sp { nullptr };
        void* rp { nullptr };
        int c { 0 };
        if (inPlace || e.isRoot())
        {
            Layout l = e.layout(call.recvCounts, "recvCounts");
            const auto me = static_cast<std::size_t>(e.rank());
            const auto mine = static_cast<std::size_t>(call.recvCounts[me]);
            e.need(recvBuffer, l.total, inPlace ? "in-place buffer" : "receive buffer");
            if (inPlace)
            {
                void* io = e.recv(l.total, e.isRoot() ? l.total : 0);
                sp = e.isRoot() ? MPI_IN_PLACE : e.offset(io, l.valueDispls[me]);
                rp = e.isRoot() ? io : nullptr;
            }
            else
            {
                e.check(
                    sendBuffer.count == mine,
                    [&]
                    {
                        return "send buffer holds " + str(sendBuffer.count) +
                               " values but recvCounts[root " + std::to_string(e.rank()) + "] is " +
                               str(mine);
                    }
                );
                sp = e.send(mine);
                rp = e.recv(0, l.total);
            }
            c = e.count(mine);
            e.keepRecv(std::move(l));
        }
        else
        {
            // off the root, recvCounts is optional; given, it checks this rank's send count
            if (!call.recvCounts.empty())
            {
                static_cast<void>(e.layout(call.recvCounts, "recvCounts"));
                const auto mine =
                    static_cast<std::size_t>(call.recvCounts[static_cast<std::size_t>(e.rank())]);
                e.check(
                    sendBuffer.count == mine,
                    [&]
                    {
                        return "send buffer holds " + str(sendBuffer.count) +
                               " values but recvCounts[rank " + std::to_string(e.rank()) + "] is " +
                               str(mine);
                    }
                );
            }
            sp = e.send(sendBuffer.count);
            c = e.count(sendBuffer.count);
        }
        const int* counts = state->recvCounts.empty() ? nullptr : state->recvCounts.data();
        const int* displs = state->recvDispls.empty() ? nullptr : state->recvDispls.data();
        rc = blocking
                 ? MPI_Gatherv(sp, c, type, rp, counts, displs, type, call.root, comm)
                 : MPI_Igatherv(sp, c, type, rp, counts, displs, type, call.root, comm, request);
        break;
    }
    case Kind::Scatter:
    {
        std::size_t n { 0 };
        const void* sp { nullptr };
        void* rp { nullptr };
        if (inPlace)
        {
            n = e.perRank(recvBuffer.count, "in-place buffer");
            void* io = e.recv(recvBuffer.count, e.isRoot() ? 0 : recvBuffer.count);
            sp = e.isRoot() ? io : nullptr;
            rp = e.isRoot() ? MPI_IN_PLACE : e.offset(io, n * static_cast<std::size_t>(e.rank()));
        }
        else
        {
            n = recvBuffer.count;
            if (e.isRoot())
            {
                e.need(sendBuffer, n * e.usize(), "send buffer");
            }
            sp = e.isRoot() ? e.send(n * e.usize()) : nullptr;
            rp = e.recv(0, n);
        }
        const int c = e.count(n);
        rc = blocking ? MPI_Scatter(sp, c, type, rp, c, type, call.root, comm)
                      : MPI_Iscatter(sp, c, type, rp, c, type, call.root, comm, request);
        break;
    }
    case Kind::ScatterV:
    {
        const void* sp { nullptr };
        void* rp { nullptr };
        int c { 0 };
        if (inPlace || e.isRoot())
        {
            Layout l = e.layout(call.sendCounts, "sendCounts");
            const auto me = static_cast<std::size_t>(e.rank());
            const auto mine = static_cast<std::size_t>(call.sendCounts[me]);
            if (inPlace)
            {
                e.need(recvBuffer, l.total, "in-place buffer");
                void* io = e.recv(l.total, e.isRoot() ? 0 : l.total);
                sp = e.isRoot() ? io : nullptr;
                rp = e.isRoot() ? MPI_IN_PLACE : e.offset(io, l.valueDispls[me]);
            }
            else
            {
                e.need(sendBuffer, l.total, "send buffer");
                e.need(recvBuffer, mine, "receive buffer");
                sp = e.send(l.total);
                rp = e.recv(0, mine);
            }
            c = e.count(mine);
            e.keepSend(std::move(l));
        }
        else
        {
            // off the root, sendCounts is optional; given, it fixes (and checks) this rank's count
            std::size_t mine = recvBuffer.count;
            if (!call.sendCounts.empty())
            {
                static_cast<void>(e.layout(call.sendCounts, "sendCounts"));
                mine =
                    static_cast<std::size_t>(call.sendCounts[static_cast<std::size_t>(e.rank())]);
                e.need(recvBuffer, mine, "receive buffer");
            }
            rp = e.recv(0, mine);
            c = e.count(mine);
        }
        const int* counts = state->sendCounts.empty() ? nullptr : state->sendCounts.data();
        const int* displs = state->sendDispls.empty() ? nullptr : state->sendDispls.data();
        rc = blocking
                 ? MPI_Scatterv(sp, counts, displs, type, rp, c, type, call.root, comm)
                 : MPI_Iscatterv(sp, counts, displs, type, rp, c, type, call.root, comm, request);
        break;
    }
    case Kind::AllToAll:
    {
        const std::size_t n = inPlace ? e.perRank(recvBuffer.count, "in-place buffer")
                                      : e.perRank(sendBuffer.count, "send buffer");
        e.need(recvBuffer, n * e.usize(), "receive buffer");
        const void* sp = inPlace ? MPI_IN_PLACE : e.send(n * e.usize());
        void* rp = e.recv(inPlace ? n * e.usize() : 0, n * e.usize());
        const int c = e.count(n);
        rc = blocking ? MPI_Alltoall(sp, c, type, rp, c, type, comm)
                      : MPI_Ialltoall(sp, c, type, rp, c, type, comm, request);
        break;
    }
    case Kind::AllToAllV:
    {
        Layout r = e.layout(call.recvCounts, "recvCounts");
        const std::size_t rTotal = r.total;
        e.need(recvBuffer, rTotal, inPlace ? "in-place buffer" : "receive buffer");
        const void* sp = MPI_IN_PLACE;
        if (!inPlace)
        {
            Layout s = e.layout(call.sendCounts, "sendCounts");
            e.need(sendBuffer, s.total, "send buffer");
            sp = e.send(s.total);
            e.keepSend(std::move(s));
        }
        void* rp = e.recv(inPlace ? rTotal : 0, rTotal);
        e.keepRecv(std::move(r));
        const int* sc = inPlace ? nullptr : state->sendCounts.data();
        const int* sd = inPlace ? nullptr : state->sendDispls.data();
        const int* rcs = state->recvCounts.data();
        const int* rd = state->recvDispls.data();
        rc = blocking ? MPI_Alltoallv(sp, sc, sd, type, rp, rcs, rd, type, comm)
                      : MPI_Ialltoallv(sp, sc, sd, type, rp, rcs, rd, type, comm, request);
        break;
    }
    case Kind::ReduceScatter:
    {
        Layout l = e.layout(call.recvCounts, "recvCounts");
        const auto mine =
            static_cast<std::size_t>(call.recvCounts[static_cast<std::size_t>(e.rank())]);
        const void* sp = MPI_IN_PLACE;
        void* rp { nullptr };
        if (inPlace)
        {
            e.need(recvBuffer, l.total, "in-place buffer");
            rp = e.recv(l.total, mine);
        }
        else
        {
            e.need(sendBuffer, l.total, "send buffer");
            e.need(recvBuffer, mine, "receive buffer");
            sp = e.send(l.total);
            rp = e.recv(0, mine);
        }
        e.keepRecv(std::move(l));
        rc = blocking
                 ? MPI_Reduce_scatter(sp, rp, state->recvCounts.data(), type, op, comm)
                 : MPI_Ireduce_scatter(sp, rp, state->recvCounts.data(), type, op, comm, request);
        break;
    }
    case Kind::ReduceScatterBlock:
    {
        const std::size_t n = inPlace ? e.perRank(recvBuffer.count, "in-place buffer")
                                      : e.perRank(sendBuffer.count, "send buffer");
        e.need(recvBuffer, inPlace ? n * e.usize() : n, "receive buffer");
        const void* sp = inPlace ? MPI_IN_PLACE : e.send(n * e.usize());
        void* rp = e.recv(inPlace ? n * e.usize() : 0, n);
        const int c = e.count(n);
        rc = blocking ? MPI_Reduce_scatter_block(sp, rp, c, type, op, comm)
                      : MPI_Ireduce_scatter_block(sp, rp, c, type, op, comm, request);
        break;
    }
    case Kind::Barrier:
        rc = blocking ? MPI_Barrier(comm) : MPI_Ibarrier(comm, request);
        break;
    }
    fieldsync::detail::checkMpi(rc, mpiName(call.kind, blocking), call.where);
    if (blocking)
    {
        state->finish();
        return Request {};
    }
    return Request(std::move(owned));
}

} // namespace fieldsync::mpi::detail
