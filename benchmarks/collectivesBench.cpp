// SPDX-License-Identifier: MIT
// collectives_bench: every collective of fieldsync against the native MPI call on the same
// buffer, blocking and non-blocking, on host Kokkos::Views and on std::span, from 8 B to 4 MiB
// per block (the values one rank contributes to, or gets from, one peer); the seed's
// reduceAllScalar and allReduce(T&) on one double; and ReductionBatch of k = 1..16 mixed scalars
// against one MPI_Allreduce of one double.
//
// Method: batches of calls, native (A) and fieldsync (B) interleaved A,B,A,B after one warm-up
// batch of each; a barrier before each batch, the batch's time per call is the maximum over
// ranks, and the printed time is the median over the repetitions (at least 11). After every
// batch the results are compared with values computed independently on each rank; a mismatch
// ends the run with an error.
//
//   mpiexec -n 2 --bind-to core build/release/benchmarks/collectives_bench [--json PATH]
//       [--reps N] [--ops allReduce,broadcast,...] [--max-bytes N] [--quick: 8 B and 64 KiB]
//       [--no-fused]
//       [--profile OP --bytes N --calls N --form 0..3 (view, span, i-view, i-span)
//        --side native|fieldsync] (one side only, for callgrind)
//       [--profile batch --k K --calls N --form 0|2] (ReductionBatch of K mixed scalars: run(),
//        or start() + wait(); for callgrind)
#include "median.hpp"

#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/mpi/operators.hpp"
#include "fieldsync/mpi/reductionBatch.hpp"

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{
using fieldsync_bench::median;

namespace fm = fieldsync::mpi;
using HostView = Kokkos::View<double*, Kokkos::HostSpace>;

/** The collectives measured; Scalar and SeedScalar are one double in place. */
enum class Op
{
    AllReduce,
    Reduce,
    Broadcast,
    AllGather,
    AllGatherV,
    Gather,
    GatherV,
    Scatter,
    ScatterV,
    AllToAll,
    AllToAllV,
    ReduceScatter,
    Scan,
    ExScan,
    Barrier,
    Scalar,
    SeedScalar
};

constexpr const char* opNames[] { "allReduce",      "reduce",   "broadcast", "allGather",
                                  "allGatherV",     "gather",   "gatherV",   "scatter",
                                  "scatterV",       "allToAll", "allToAllV", "reduceScatter",
                                  "scan",           "exScan",   "barrier",   "allReduce(T&)",
                                  "reduceAllScalar" };
constexpr int opCount { 17 };

/** Whether @p op moves a buffer (the rest run at one size only). */
bool sized(Op op)
{
    return op != Op::Barrier && op != Op::Scalar && op != Op::SeedScalar;
}

/** The value rank @p r holds at index @p i: exact in double, sums over ranks stay exact. */
double f(int r, std::size_t i)
{
    return static_cast<double>(r * 1000 + static_cast<int>(i % 997) + 1);
}

/** The buffers of one size: n values per block, p blocks where an operation needs them. */
struct Buffers
{
    int rank { 0 };
    int size { 1 };
    std::size_t n { 1 };
    HostView sendN, sendP, recvN, recvP; /**< n and p x n values */
    std::vector<int> counts, displs;     /**< n per rank, packed */
    double scalar { 0 };

    Buffers(std::size_t values, int r, int p)
        : rank(r), size(p), n(values), sendN("sendN", values),
          sendP("sendP", values * static_cast<std::size_t>(p)), recvN("recvN", values),
          recvP("recvP", values * static_cast<std::size_t>(p)),
          counts(static_cast<std::size_t>(p), static_cast<int>(values)),
          displs(static_cast<std::size_t>(p))
    {
        for (int q = 0; q < p; ++q)
        {
            displs[static_cast<std::size_t>(q)] = q * static_cast<int>(values);
        }
        for (std::size_t i = 0; i < sendN.size(); ++i)
        {
            sendN(i) = f(rank, i);
        }
        for (std::size_t i = 0; i < sendP.size(); ++i)
        {
            sendP(i) = f(rank, i);
        }
    }

    /** Overwrites what an operation writes, so the check after a batch sees this batch's work. */
    void poison(Op op)
    {
        Kokkos::deep_copy(recvN, -1.0);
        Kokkos::deep_copy(recvP, -1.0);
        scalar = f(rank, 0);
        if (op == Op::Broadcast && rank == 0)
        {
            Kokkos::deep_copy(recvN, sendN);
        }
    }

    /** Whether the results of @p op are the truth (computed here, independently of MPI). */
    [[nodiscard]] bool check(Op op) const
    {
        const auto sumOver = [&](int upTo, std::size_t i)
        {
            double s { 0 };
            for (int q = 0; q < upTo; ++q)
            {
                s += f(q, i);
            }
            return s;
        };
        const std::size_t pn = n * static_cast<std::size_t>(size);
        const auto self = static_cast<std::size_t>(rank);
        bool ok { true };
        switch (op)
        {
        case Op::AllReduce:
        case Op::Reduce:
            if (op == Op::AllReduce || rank == 0)
            {
                for (std::size_t i = 0; i < n; ++i)
                {
                    ok = ok && recvN(i) == sumOver(size, i);
                }
            }
            break;
        case Op::Broadcast:
            for (std::size_t i = 0; i < n; ++i)
            {
                ok = ok && recvN(i) == f(0, i);
            }
            break;
        case Op::AllGather:
        case Op::AllGatherV:
        case Op::Gather:
        case Op::GatherV:
            if (op == Op::AllGather || op == Op::AllGatherV || rank == 0)
            {
                for (std::size_t j = 0; j < pn; ++j)
                {
                    ok = ok && recvP(j) == f(static_cast<int>(j / n), j % n);
                }
            }
            break;
        case Op::Scatter:
        case Op::ScatterV:
            for (std::size_t i = 0; i < n; ++i)
            {
                ok = ok && recvN(i) == f(0, self * n + i);
            }
            break;
        case Op::AllToAll:
        case Op::AllToAllV:
            for (std::size_t j = 0; j < pn; ++j)
            {
                ok = ok && recvP(j) == f(static_cast<int>(j / n), self * n + j % n);
            }
            break;
        case Op::ReduceScatter:
            for (std::size_t i = 0; i < n; ++i)
            {
                ok = ok && recvN(i) == sumOver(size, self * n + i);
            }
            break;
        case Op::Scan:
        case Op::ExScan:
            if (op == Op::Scan || rank > 0)
            {
                for (std::size_t i = 0; i < n; ++i)
                {
                    ok = ok && recvN(i) == sumOver(op == Op::Scan ? rank + 1 : rank, i);
                }
            }
            break;
        case Op::Barrier:
            break;
        case Op::Scalar:
        case Op::SeedScalar:
            ok = scalar == f(size - 1, 0);
            break;
        }
        return ok;
    }
};

/** One native call (blocking, or started and waited for). */
[[gnu::noinline]] void native(Op op, bool blocking, Buffers& b)
{
    const MPI_Comm w { MPI_COMM_WORLD };
    const MPI_Datatype d { MPI_DOUBLE };
    const int c = static_cast<int>(b.n);
    const int* k = b.counts.data();
    const int* o = b.displs.data();
    double* sN = b.sendN.data();
    double* sP = b.sendP.data();
    double* rN = b.recvN.data();
    double* rP = b.recvP.data();
    if (blocking)
    {
        switch (op)
        {
        case Op::AllReduce:
            MPI_Allreduce(sN, rN, c, d, MPI_SUM, w);
            break;
        case Op::Reduce:
            MPI_Reduce(sN, rN, c, d, MPI_SUM, 0, w);
            break;
        case Op::Broadcast:
            MPI_Bcast(rN, c, d, 0, w);
            break;
        case Op::AllGather:
            MPI_Allgather(sN, c, d, rP, c, d, w);
            break;
        case Op::AllGatherV:
            MPI_Allgatherv(sN, c, d, rP, k, o, d, w);
            break;
        case Op::Gather:
            MPI_Gather(sN, c, d, rP, c, d, 0, w);
            break;
        case Op::GatherV:
            MPI_Gatherv(sN, c, d, rP, k, o, d, 0, w);
            break;
        case Op::Scatter:
            MPI_Scatter(sP, c, d, rN, c, d, 0, w);
            break;
        case Op::ScatterV:
            MPI_Scatterv(sP, k, o, d, rN, c, d, 0, w);
            break;
        case Op::AllToAll:
            MPI_Alltoall(sP, c, d, rP, c, d, w);
            break;
        case Op::AllToAllV:
            MPI_Alltoallv(sP, k, o, d, rP, k, o, d, w);
            break;
        case Op::ReduceScatter:
            MPI_Reduce_scatter_block(sP, rN, c, d, MPI_SUM, w);
            break;
        case Op::Scan:
            MPI_Scan(sN, rN, c, d, MPI_SUM, w);
            break;
        case Op::ExScan:
            MPI_Exscan(sN, rN, c, d, MPI_SUM, w);
            break;
        case Op::Barrier:
            MPI_Barrier(w);
            break;
        case Op::Scalar:
        case Op::SeedScalar:
            MPI_Allreduce(MPI_IN_PLACE, &b.scalar, 1, d, MPI_MAX, w);
            break;
        }
        return;
    }
    MPI_Request r { MPI_REQUEST_NULL };
    switch (op)
    {
    case Op::AllReduce:
        MPI_Iallreduce(sN, rN, c, d, MPI_SUM, w, &r);
        break;
    case Op::Reduce:
        MPI_Ireduce(sN, rN, c, d, MPI_SUM, 0, w, &r);
        break;
    case Op::Broadcast:
        MPI_Ibcast(rN, c, d, 0, w, &r);
        break;
    case Op::AllGather:
        MPI_Iallgather(sN, c, d, rP, c, d, w, &r);
        break;
    case Op::AllGatherV:
        MPI_Iallgatherv(sN, c, d, rP, k, o, d, w, &r);
        break;
    case Op::Gather:
        MPI_Igather(sN, c, d, rP, c, d, 0, w, &r);
        break;
    case Op::GatherV:
        MPI_Igatherv(sN, c, d, rP, k, o, d, 0, w, &r);
        break;
    case Op::Scatter:
        MPI_Iscatter(sP, c, d, rN, c, d, 0, w, &r);
        break;
    case Op::ScatterV:
        MPI_Iscatterv(sP, k, o, d, rN, c, d, 0, w, &r);
        break;
    case Op::AllToAll:
        MPI_Ialltoall(sP, c, d, rP, c, d, w, &r);
        break;
    case Op::AllToAllV:
        MPI_Ialltoallv(sP, k, o, d, rP, k, o, d, w, &r);
        break;
    case Op::ReduceScatter:
        MPI_Ireduce_scatter_block(sP, rN, c, d, MPI_SUM, w, &r);
        break;
    case Op::Scan:
        MPI_Iscan(sN, rN, c, d, MPI_SUM, w, &r);
        break;
    case Op::ExScan:
        MPI_Iexscan(sN, rN, c, d, MPI_SUM, w, &r);
        break;
    case Op::Barrier:
        MPI_Ibarrier(w, &r);
        break;
    case Op::Scalar:
    case Op::SeedScalar:
        MPI_Iallreduce(MPI_IN_PLACE, &b.scalar, 1, d, MPI_MAX, w, &r);
        break;
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/** One blocking fieldsync call on buffers of kind @p B (HostView or std::span<double>). */
template<typename B>
[[gnu::noinline]] void
fieldsyncBlocking(Op op, Buffers& b, const B& sN, const B& sP, const B& rN, const B& rP)
{
    const MPI_Comm w { MPI_COMM_WORLD };
    const auto sum = fm::ReduceOp::Sum;
    const std::span<const int> k { b.counts };
    switch (op)
    {
    case Op::AllReduce:
        fm::allReduce(sN, rN, sum, w);
        break;
    case Op::Reduce:
        fm::reduce(sN, rN, sum, 0, w);
        break;
    case Op::Broadcast:
        fm::broadcast(rN, 0, w);
        break;
    case Op::AllGather:
        fm::allGather(sN, rP, w);
        break;
    case Op::AllGatherV:
        fm::allGatherV(sN, rP, k, w);
        break;
    case Op::Gather:
        fm::gather(sN, rP, 0, w);
        break;
    case Op::GatherV:
        fm::gatherV(sN, rP, k, 0, w);
        break;
    case Op::Scatter:
        fm::scatter(sP, rN, 0, w);
        break;
    case Op::ScatterV:
        fm::scatterV(sP, k, rN, 0, w);
        break;
    case Op::AllToAll:
        fm::allToAll(sP, rP, w);
        break;
    case Op::AllToAllV:
        fm::allToAllV(sP, k, rP, k, w);
        break;
    case Op::ReduceScatter:
        fm::reduceScatter(sP, rN, sum, w);
        break;
    case Op::Scan:
        fm::scan(sN, rN, sum, w);
        break;
    case Op::ExScan:
        fm::exScan(sN, rN, sum, w);
        break;
    case Op::Barrier:
        fm::barrier(w);
        break;
    case Op::Scalar:
        fm::allReduce(b.scalar, fm::ReduceOp::Max, w);
        break;
    case Op::SeedScalar:
        fm::reduceAllScalar(&b.scalar, fm::ReduceOp::MAX, w);
        break;
    }
}

/** One non-blocking fieldsync call, waited for at once. */
template<typename B>
[[gnu::noinline]] void
fieldsyncNonBlocking(Op op, Buffers& b, const B& sN, const B& sP, const B& rN, const B& rP)
{
    const MPI_Comm w { MPI_COMM_WORLD };
    const auto sum = fm::ReduceOp::Sum;
    const std::span<const int> k { b.counts };
    fm::Request r;
    switch (op)
    {
    case Op::AllReduce:
        r = fm::iAllReduce(sN, rN, sum, w);
        break;
    case Op::Reduce:
        r = fm::iReduce(sN, rN, sum, 0, w);
        break;
    case Op::Broadcast:
        r = fm::iBroadcast(rN, 0, w);
        break;
    case Op::AllGather:
        r = fm::iAllGather(sN, rP, w);
        break;
    case Op::AllGatherV:
        r = fm::iAllGatherV(sN, rP, k, w);
        break;
    case Op::Gather:
        r = fm::iGather(sN, rP, 0, w);
        break;
    case Op::GatherV:
        r = fm::iGatherV(sN, rP, k, 0, w);
        break;
    case Op::Scatter:
        r = fm::iScatter(sP, rN, 0, w);
        break;
    case Op::ScatterV:
        r = fm::iScatterV(sP, k, rN, 0, w);
        break;
    case Op::AllToAll:
        r = fm::iAllToAll(sP, rP, w);
        break;
    case Op::AllToAllV:
        r = fm::iAllToAllV(sP, k, rP, k, w);
        break;
    case Op::ReduceScatter:
        r = fm::iReduceScatter(sP, rN, sum, w);
        break;
    case Op::Scan:
        r = fm::iScan(sN, rN, sum, w);
        break;
    case Op::ExScan:
        r = fm::iExScan(sN, rN, sum, w);
        break;
    case Op::Barrier:
        r = fm::iBarrier(w);
        break;
    case Op::Scalar:
    case Op::SeedScalar:
        r = fm::iAllReduce(std::span<double>(&b.scalar, 1), fm::ReduceOp::Max, w);
        break;
    }
    r.wait();
}

/** The four forms measured: blocking or not, on views or on spans. */
struct Form
{
    bool blocking;
    bool span;
    const char* name;
};
constexpr Form forms[] { { true, false, "view" },
                         { true, true, "span" },
                         { false, false, "i-view" },
                         { false, true, "i-span" } };

/** @p calls fieldsync calls of @p op in @p form. */
void fieldsyncCalls(Op op, const Form& form, Buffers& b, int calls)
{
    using Span = std::span<double>;
    const Span sN { b.sendN.data(), b.sendN.size() };
    const Span sP { b.sendP.data(), b.sendP.size() };
    const Span rN { b.recvN.data(), b.recvN.size() };
    const Span rP { b.recvP.data(), b.recvP.size() };
    for (int i = 0; i < calls; ++i)
    {
        if (form.blocking && form.span)
        {
            fieldsyncBlocking(op, b, sN, sP, rN, rP);
        }
        else if (form.blocking)
        {
            fieldsyncBlocking(op, b, b.sendN, b.sendP, b.recvN, b.recvP);
        }
        else if (form.span)
        {
            fieldsyncNonBlocking(op, b, sN, sP, rN, rP);
        }
        else
        {
            fieldsyncNonBlocking(op, b, b.sendN, b.sendP, b.recvN, b.recvP);
        }
    }
}

void nativeCalls(Op op, const Form& form, Buffers& b, int calls)
{
    for (int i = 0; i < calls; ++i)
    {
        native(op, form.blocking, b);
    }
}

/** Seconds per call of @p batch (@p calls calls) on the slowest rank, checked after. */
template<typename Batch, typename Check>
double timedBatch(const Batch& batch, const Check& check, int calls, const char* what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    batch();
    double t = (MPI_Wtime() - t0) / calls;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int ok = check() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (ok == 0)
    {
        throw std::runtime_error(std::string("collectives_bench: wrong result of ") + what);
    }
    return t;
}

/** Median seconds per call of A and B, interleaved A,B,A,B after one warm-up of each. */
template<typename A, typename B, typename Prepare, typename CheckA, typename CheckB>
std::pair<double, double> interleaved(
    const A& a,
    const B& b,
    const Prepare& prepare,
    const CheckA& checkA,
    const CheckB& checkB,
    int calls,
    int reps,
    const char* what
)
{
    std::vector<double> ta;
    std::vector<double> tb;
    for (int rep = -1; rep < reps; ++rep)
    {
        prepare();
        const double x = timedBatch(a, checkA, calls, what);
        prepare();
        const double y = timedBatch(b, checkB, calls, what);
        if (rep >= 0)
        {
            ta.push_back(x);
            tb.push_back(y);
        }
    }
    return { median(ta), median(tb) };
}

/** Calls per batch: about 2 MiB moved per batch, 2 to 200 calls. */
int callsFor(std::size_t bytes, int size)
{
    const std::size_t moved = bytes * static_cast<std::size_t>(size);
    return static_cast<int>(std::clamp<std::size_t>((std::size_t { 2 } << 20) / moved, 2, 200));
}

struct Row
{
    std::string op;
    std::string form;
    std::size_t bytes;
    double native;
    double fieldsync;
};

/** The mixed scalars of a ReductionBatch of k entries: kinds cycle int, long, float, double. */
struct Scalars
{
    std::vector<int> ints;
    std::vector<long> longs;
    std::vector<float> floats;
    std::vector<double> doubles;
};

/** Fills @p s with rank @p r's values (k entries). */
void fillScalars(Scalars& s, int k, int r)
{
    s.ints.assign(16, 0);
    s.longs.assign(16, 0);
    s.floats.assign(16, 0);
    s.doubles.assign(16, 0);
    for (int i = 0; i < k; ++i)
    {
        const auto slot = static_cast<std::size_t>(i / 4);
        switch (i % 4)
        {
        case 0:
            s.ints[slot] = r + i;
            break;
        case 1:
            s.longs[slot] = 1000L * r + i;
            break;
        case 2:
            s.floats[slot] = static_cast<float>(r + i);
            break;
        default:
            s.doubles[slot] = 0.5 * r + i;
            break;
        }
    }
}

/** The batch of k entries on @p s: sum of ints, max of longs, min of floats, sum of doubles. */
void addScalars(fm::ReductionBatch& batch, Scalars& s, int k)
{
    for (int i = 0; i < k; ++i)
    {
        const auto slot = static_cast<std::size_t>(i / 4);
        switch (i % 4)
        {
        case 0:
            batch.add(s.ints[slot], fm::ReduceOp::Sum);
            break;
        case 1:
            batch.add(s.longs[slot], fm::ReduceOp::Max);
            break;
        case 2:
            batch.add(s.floats[slot], fm::ReduceOp::Min);
            break;
        default:
            batch.add(s.doubles[slot], fm::ReduceOp::Sum);
            break;
        }
    }
}

/** @p calls runs of @p batch over @p s (run(), or start() + wait() unless @p blocking); sums
 * grow with each call, so every call starts from rank @p rank's values. */
void runBatch(fm::ReductionBatch& batch, Scalars& s, int k, int rank, int calls, bool blocking)
{
    for (int i = 0; i < calls; ++i)
    {
        fillScalars(s, k, rank);
        if (blocking)
        {
            batch.run();
        }
        else
        {
            batch.start();
            batch.wait();
        }
    }
}

/** Whether @p s holds the reduced values of k entries over @p p ranks (closed forms). */
bool checkScalars(const Scalars& s, int k, int p)
{
    bool ok { true };
    for (int i = 0; i < k; ++i)
    {
        const auto slot = static_cast<std::size_t>(i / 4);
        switch (i % 4)
        {
        case 0:
            ok = ok && s.ints[slot] == p * (p - 1) / 2 + p * i;
            break;
        case 1:
            ok = ok && s.longs[slot] == 1000L * (p - 1) + i;
            break;
        case 2:
            ok = ok && s.floats[slot] == static_cast<float>(i);
            break;
        default:
            ok = ok && s.doubles[slot] == 0.25 * p * (p - 1) + p * i;
            break;
        }
    }
    return ok;
}

struct FusedRow
{
    int k;
    double native;   /**< MPI_Allreduce of one double, paired with batch */
    double batch;    /**< ReductionBatch::run */
    double iNative;  /**< MPI_Iallreduce + MPI_Wait of one double, paired with iBatch */
    double iBatch;   /**< ReductionBatch::start + wait */
    double native3;  /**< MPI_Allreduce of one double, paired with separate */
    double separate; /**< k allReduce(T&) calls */
};

/** ReductionBatch of k = 1..16 (blocking, non-blocking) and k separate allReduce(T&) calls,
 * each against one MPI_Allreduce of one double, interleaved. */
std::vector<FusedRow> fused(int rank, int size, int reps)
{
    std::vector<FusedRow> rows;
    const int calls { 200 };
    for (int k = 1; k <= 16; ++k)
    {
        Scalars s;
        fillScalars(s, k, rank); // sizes the vectors: later fills keep the addresses
        fm::ReductionBatch batch(MPI_COMM_WORLD);
        addScalars(batch, s, k);
        double one { 0 };
        const auto prepare = [&]
        {
            fillScalars(s, k, rank);
            one = rank;
        };
        const auto checkOne = [&]
        {
            return one == size - 1;
        };
        const auto nativeBatch = [&]
        {
            for (int i = 0; i < calls; ++i)
            {
                fillScalars(s, k, rank);
                MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            }
        };
        const auto nativeIBatch = [&]
        {
            for (int i = 0; i < calls; ++i)
            {
                fillScalars(s, k, rank);
                MPI_Request r { MPI_REQUEST_NULL };
                MPI_Iallreduce(MPI_IN_PLACE, &one, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            }
        };
        const auto batchCalls = [&](bool blocking)
        {
            runBatch(batch, s, k, rank, calls, blocking);
        };
        const auto separateCalls = [&]
        {
            for (int i = 0; i < calls; ++i)
            {
                fillScalars(s, k, rank);
                for (int j = 0; j < k; ++j)
                {
                    const auto slot = static_cast<std::size_t>(j / 4);
                    switch (j % 4)
                    {
                    case 0:
                        fm::allReduce(s.ints[slot], fm::ReduceOp::Sum, MPI_COMM_WORLD);
                        break;
                    case 1:
                        fm::allReduce(s.longs[slot], fm::ReduceOp::Max, MPI_COMM_WORLD);
                        break;
                    case 2:
                        fm::allReduce(s.floats[slot], fm::ReduceOp::Min, MPI_COMM_WORLD);
                        break;
                    default:
                        fm::allReduce(s.doubles[slot], fm::ReduceOp::Sum, MPI_COMM_WORLD);
                        break;
                    }
                }
            }
        };
        const auto checkBatch = [&]
        {
            return checkScalars(s, k, size);
        };
        FusedRow row {};
        row.k = k;
        auto [n1, b1] = interleaved(
            nativeBatch,
            [&] { batchCalls(true); },
            prepare,
            checkOne,
            checkBatch,
            calls,
            reps,
            "ReductionBatch::run"
        );
        auto [n2, b2] = interleaved(
            nativeIBatch,
            [&] { batchCalls(false); },
            prepare,
            checkOne,
            checkBatch,
            calls,
            reps,
            "ReductionBatch::start/wait"
        );
        auto [n3, b3] = interleaved(
            nativeBatch,
            separateCalls,
            prepare,
            checkOne,
            checkBatch,
            calls,
            std::min(reps, 11),
            "allReduce(T&) x k"
        );
        row.native = n1;
        row.batch = b1;
        row.iNative = n2;
        row.iBatch = b2;
        row.native3 = n3;
        row.separate = b3;
        rows.push_back(row);
    }
    return rows;
}

/** The value after @p flag in @p args, or @p fallback. */
std::string
option(const std::vector<std::string>& args, const std::string& flag, const std::string& fallback)
{
    const auto it = std::find(args.begin(), args.end(), flag);
    return it != args.end() && it + 1 != args.end() ? *(it + 1) : fallback;
}

Op opByName(const std::string& name)
{
    for (int i = 0; i < opCount; ++i)
    {
        if (name == opNames[i])
        {
            return static_cast<Op>(i);
        }
    }
    throw std::runtime_error("collectives_bench: unknown operation " + name);
}

int bench(int argc, char** argv)
{
    int rank { 0 };
    int size { 1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::vector<std::string> args(argv + 1, argv + argc);
    const auto has = [&](const std::string& flag)
    {
        return std::find(args.begin(), args.end(), flag) != args.end();
    };
    const std::string profile = option(args, "--profile", "");
    if (profile == "batch")
    {
        // ReductionBatch of --k mixed scalars, run() (--form 0) or start() + wait() (--form 2)
        const int k = std::stoi(option(args, "--k", "16"));
        const bool blocking = option(args, "--form", "0") != "2";
        const int calls = std::stoi(option(args, "--calls", "10000"));
        Scalars s;
        fillScalars(s, k, rank);
        fm::ReductionBatch batch(MPI_COMM_WORLD);
        addScalars(batch, s, k);
        runBatch(batch, s, k, rank, calls, blocking);
        return checkScalars(s, k, size) ? 0 : 1;
    }
    if (!profile.empty())
    {
        // one side of one operation, untimed, for valgrind --tool=callgrind
        const Op op = opByName(profile);
        Buffers b(std::stoul(option(args, "--bytes", "8")) / sizeof(double), rank, size);
        const Form form = forms[std::stoi(option(args, "--form", "0"))];
        const int calls = std::stoi(option(args, "--calls", "10000"));
        b.poison(op);
        if (option(args, "--side", "fieldsync") == "native")
        {
            nativeCalls(op, form, b, calls);
        }
        else
        {
            fieldsyncCalls(op, form, b, calls);
        }
        return b.check(op) ? 0 : 1;
    }
    const int reps = std::max(11, std::stoi(option(args, "--reps", "11")));
    const std::size_t maxBytes = std::stoul(option(args, "--max-bytes", "4194304"));
    const bool quick = has("--quick");
    std::vector<Op> ops;
    std::stringstream list(option(args, "--ops", ""));
    for (std::string name; std::getline(list, name, ',');)
    {
        ops.push_back(opByName(name));
    }
    if (ops.empty())
    {
        for (int i = 0; i < opCount; ++i)
        {
            ops.push_back(static_cast<Op>(i));
        }
    }
    std::vector<std::size_t> sizes;
    for (const std::size_t bytes : { 8, 64, 512, 4096, 65536, 1048576, 4194304 })
    {
        if (bytes <= maxBytes && (!quick || bytes == 8 || bytes == 65536))
        {
            sizes.push_back(bytes);
        }
    }
    std::vector<Row> rows;
    if (rank == 0)
    {
        std::printf(
            "collectives_bench: %d ranks, doubles, median of %d interleaved batches, max over "
            "ranks\n"
            "bytes = one block (what one rank sends to or gets from one peer)\n"
            "%-16s %-7s %9s %11s %11s %8s %9s\n",
            size,
            reps,
            "operation",
            "form",
            "bytes",
            "native us",
            "fsync us",
            "ratio",
            "diff us"
        );
    }
    for (const Op op : ops)
    {
        for (const std::size_t bytes : sizes)
        {
            if (!sized(op) && bytes != sizes.front())
            {
                continue;
            }
            Buffers b(bytes / sizeof(double), rank, size);
            const int calls = callsFor(bytes, size);
            for (const Form& form : forms)
            {
                const auto name = opNames[static_cast<int>(op)];
                auto [tn, tf] = interleaved(
                    [&] { nativeCalls(op, form, b, calls); },
                    [&] { fieldsyncCalls(op, form, b, calls); },
                    [&] { b.poison(op); },
                    [&] { return b.check(op); },
                    [&] { return b.check(op); },
                    calls,
                    reps,
                    name
                );
                rows.push_back({ name, form.name, sized(op) ? bytes : 8, tn, tf });
                if (rank == 0)
                {
                    std::printf(
                        "%-16s %-7s %9zu %11.3f %11.3f %8.3f %+9.3f\n",
                        name,
                        form.name,
                        rows.back().bytes,
                        tn * 1e6,
                        tf * 1e6,
                        tf / tn,
                        (tf - tn) * 1e6
                    );
                    std::fflush(stdout);
                }
            }
        }
    }
    std::vector<FusedRow> fusedRows;
    if (!has("--no-fused"))
    {
        fusedRows = fused(rank, size, reps);
        if (rank == 0)
        {
            std::printf(
                "\nReductionBatch of k mixed scalars (int sum, long max, float min, double sum, "
                "cycling) vs one allreduce of one double\n"
                "%3s %9s %9s %7s %10s %10s %7s %9s %9s %7s\n",
                "k",
                "MPI us",
                "run us",
                "ratio",
                "MPI_I us",
                "start us",
                "ratio",
                "MPI us",
                "k x us",
                "ratio"
            );
            for (const FusedRow& r : fusedRows)
            {
                std::printf(
                    "%3d %9.3f %9.3f %7.3f %10.3f %10.3f %7.3f %9.3f %9.3f %7.3f\n",
                    r.k,
                    r.native * 1e6,
                    r.batch * 1e6,
                    r.batch / r.native,
                    r.iNative * 1e6,
                    r.iBatch * 1e6,
                    r.iBatch / r.iNative,
                    r.native3 * 1e6,
                    r.separate * 1e6,
                    r.separate / r.native3
                );
            }
        }
    }
    const std::string json = option(args, "--json", "collectives_bench.json");
    if (rank == 0)
    {
        std::ofstream out(json);
        out << "{\n  \"ranks\": " << size << ",\n  \"repetitions\": " << reps
            << ",\n  \"collectives\": [\n";
        for (std::size_t i = 0; i < rows.size(); ++i)
        {
            const Row& r = rows[i];
            out << "    {\"operation\": \"" << r.op << "\", \"form\": \"" << r.form
                << "\", \"bytes\": " << r.bytes << ", \"native_us\": " << r.native * 1e6
                << ", \"fieldsync_us\": " << r.fieldsync * 1e6
                << ", \"ratio\": " << r.fieldsync / r.native << "}"
                << (i + 1 < rows.size() ? ",\n" : "\n");
        }
        out << "  ],\n  \"fused\": [\n";
        for (std::size_t i = 0; i < fusedRows.size(); ++i)
        {
            const FusedRow& r = fusedRows[i];
            out << "    {\"k\": " << r.k << ", \"native_us\": " << r.native * 1e6
                << ", \"batch_us\": " << r.batch * 1e6 << ", \"ratio\": " << r.batch / r.native
                << ", \"inative_us\": " << r.iNative * 1e6 << ", \"ibatch_us\": " << r.iBatch * 1e6
                << ", \"iratio\": " << r.iBatch / r.iNative
                << ", \"native3_us\": " << r.native3 * 1e6
                << ", \"separate_us\": " << r.separate * 1e6
                << ", \"separate_ratio\": " << r.separate / r.native3 << "}"
                << (i + 1 < fusedRows.size() ? ",\n" : "\n");
        }
        out << "  ]\n}\n";
        std::printf("wrote %s\n", json.c_str());
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    fm::MPIInit mpi(argc, argv);
    fm::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    try
    {
        return bench(argc, argv);
    }
    catch (const std::exception& error)
    {
        std::fprintf(stderr, "%s\n", error.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 1;
}
