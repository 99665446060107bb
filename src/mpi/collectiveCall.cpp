// SPDX-License-Identifier: MIT
// The one entry of every collective on type-erased buffers: the checks all operations share,
// fencing, then the family's engine (reductions.cpp, gathers.cpp, ...) for staging and the MPI
// call (see include/fieldsync/mpi/detail/collectiveCall.hpp).
#include "fieldsync/mpi/detail/collectiveCall.hpp"

#include "collectiveEngine.hpp"

#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/settings.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fieldsync::mpi::detail
{

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

namespace
{

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

namespace
{

/** What fieldsync last learnt of MPI's state: 0 not known, 1 running, 2 finalised. */
std::atomic<int> mpiState { 0 };

/** MPI_COMM_SELF's attribute delete callback, run at the start of MPI_Finalize. */
int markFinalised(MPI_Comm /*comm*/, int /*keyval*/, void* /*value*/, void* /*extra*/)
{
    mpiState.store(2, std::memory_order_relaxed);
    return MPI_SUCCESS;
}

/** Asks MPI; once it runs, registers markFinalised so that later calls need not ask. */
void askMpi(const char* name, const std::source_location& where)
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
    static std::mutex mutex;
    const std::lock_guard lock(mutex);
    if (mpiState.load(std::memory_order_relaxed) == 0)
    {
        int keyval { MPI_KEYVAL_INVALID };
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &markFinalised, &keyval, nullptr) ==
                MPI_SUCCESS &&
            MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr) == MPI_SUCCESS)
        {
            mpiState.store(1, std::memory_order_relaxed);
        }
    }
}

} // namespace

bool mpiKnownRunning() noexcept
{
    return mpiState.load(std::memory_order_relaxed) == 1;
}

void requireMpiRunning(const char* name, const std::source_location& where)
{
    // MPI_Initialized and MPI_Finalized cost about 150 instructions per call in Open MPI 4.1
    // (a lock each); after the first call the answer is one load, until MPI_Finalize runs the
    // attribute callback
    if (mpiState.load(std::memory_order_relaxed) != 1)
    {
        askMpi(name, where);
    }
}

namespace
{

/** The checks every operation shares: the op against the type, the root against the size. */
void checkArguments(const Engine& e)
{
    const Call& call = e.call();
    // check mode: an object destroyed unfinished since the last call (kept by its destructor);
    // raised here, so that in check mode the other ranks learn of it in the agreement
    raiseDeferredError(call.where);
    if (isReduction(call.kind) && !opDefined(call.op, call.type.typeClass))
    {
        e.fail(
            std::string("ReduceOp ") + toString(call.op) + " is not defined on " +
            typeName(call.type) + " (" + className(call.type.typeClass) + " values)"
        );
    }
    if (call.algorithm != Algorithm::Native && !algorithmApplies(call.kind, call.algorithm))
    {
        e.fail(
            std::string("algorithm ") + toString(call.algorithm) + " does not apply to " +
            publicName(call.kind, true) +
            (call.kind == Kind::ReduceScatter ? " with per-rank counts" : "") +
            " (doc/algorithms.md lists the algorithms of each collective)"
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
}

/**
 * Orders the user's kernels before MPI touches the memory: the instance that runs the call and
 * the instances it depends on (CallOptions::dependsOn), through BufferAccess::fence. A staged
 * buffer is not fenced here: its staging copies are ordered after the user's kernels themselves
 * (BufferAccess::toHost fences the dependencies, then enqueues on the instance), so a staged
 * device buffer costs one stream-ordered copy and one fence each way, and nothing more.
 */
void fenceBuffers(const Call& call)
{
    if (call.send.access && !call.send.stage)
    {
        call.send.access->fence();
    }
    if (call.recv.access && !call.recv.stage)
    {
        call.recv.access->fence();
    }
}

/** Hands a started non-blocking call's references to its views' memory to its state: moved,
 * so no reference count changes on the way. */
void keepViews(Call& call, RequestState& state) noexcept
{
    state.keepSend = std::move(call.send.kept);
    state.keepRecv = std::move(call.recv.kept);
}

/** Stages and starts (or runs) the operation in its family's engine; returns the MPI code. */
int dispatch(Engine& e)
{
    switch (e.call().kind)
    {
    case Kind::AllReduce:
    case Kind::Reduce:
    case Kind::ReduceScatter:
    case Kind::ReduceScatterBlock:
        return runReduction(e);
    case Kind::Scan:
    case Kind::ExScan:
        return runScan(e);
    case Kind::AllGather:
    case Kind::AllGatherV:
    case Kind::Gather:
    case Kind::GatherV:
        return runGather(e);
    case Kind::Scatter:
    case Kind::ScatterV:
        return runScatter(e);
    case Kind::AllToAll:
    case Kind::AllToAllV:
        return runAllToAll(e);
    case Kind::Broadcast:
    case Kind::Barrier:
        return runBroadcast(e);
    }
    return MPI_ERR_OTHER;
}

/** Checks, stages and starts the operation. In check mode a rank whose own checks fail still
 * joins the agreement (saying so), so that every rank of the call raises an Error. */
int checkAndDispatch(Engine& e)
{
    try
    {
        checkArguments(e);
        return dispatch(e);
    }
    catch (const Error&)
    {
        if (checkMode() && !e.agreed())
        {
            e.agreeWithPeers(std::current_exception());
        }
        throw;
    }
}

/**
 * This thread's count and displacement arrays of blocking calls, kept with their sizes from one
 * call to the next: a blocking V call after the first on a communicator allocates nothing (a
 * collective after set-up must not allocate; this is correctness of that rule, not a speed hint).
 */
thread_local std::array<std::vector<int>, 4> blockingArrays;

/** Lends a blocking call's state this thread's arrays for the length of the call (given back
 * on every way out, an exception included). */
class BlockingCounts
{
public:
    explicit BlockingCounts(RequestState& state) noexcept : state_(state) { swapArrays(); }
    ~BlockingCounts() { swapArrays(); }
    BlockingCounts(const BlockingCounts&) = delete;
    BlockingCounts& operator=(const BlockingCounts&) = delete;

private:
    void swapArrays() noexcept
    {
        blockingArrays[0].swap(state_.sendCounts);
        blockingArrays[1].swap(state_.sendDispls);
        blockingArrays[2].swap(state_.recvCounts);
        blockingArrays[3].swap(state_.recvDispls);
    }

    RequestState& state_;
};

} // namespace

Request run(Call& call)
{
    requireMpiRunning(call.name, call.where);
    FIELDSYNC_CHECK_AT(
        call.comm != MPI_COMM_NULL,
        std::string(call.name) + ": the communicator is MPI_COMM_NULL",
        call.where
    );
    if (call.matchId != nullptr)
    {
        // matched by id: the call runs on the id's private duplicate (made on its first use)
        call.comm = matchedComm(call.comm, *call.matchId, call.name, call.where);
    }
    if (call.blocking)
    {
        // A blocking call completes before it returns: its state lives on the stack, so a
        // blocking collective allocates nothing beyond what its counts or staging need, and
        // only a staged result has anything to finish
        RequestState state;
        state.name = call.name;
        state.where = call.where;
        const BlockingCounts counts(state);
        Engine e(call, state);
        fenceBuffers(call);
        const int rc = checkAndDispatch(e);
        fieldsync::detail::checkMpi(rc, mpiName(call.kind, true), call.where);
        if (state.copyBack)
        {
            state.finish();
        }
        return Request {};
    }
    auto owned = std::make_unique<RequestState>();
    owned->name = call.name;
    owned->where = call.where;
    Engine e(call, *owned);
    fenceBuffers(call);
    const int rc = checkAndDispatch(e);
    fieldsync::detail::checkMpi(rc, mpiName(call.kind, false), call.where);
    keepViews(call, *owned); // the engine is done with the call's buffers
    // a device form's result buffer names the instance its results are ready on (readyOn)
    auto results = call.recv.access ? std::move(call.recv.access) : std::move(call.send.access);
    return Request(std::move(owned), std::move(results));
}

} // namespace fieldsync::mpi::detail
