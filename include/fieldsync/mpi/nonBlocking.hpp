// SPDX-License-Identifier: MIT
// Non-blocking collectives (iAllReduce, ...): each returns a Request that owns what the operation
// needs until it completes (doc/collectives.md).
#pragma once

#include "fieldsync/mpi/collectives.hpp"

namespace fieldsync::mpi
{

/** @brief Starts a barrier (MPI_Ibarrier); the Request completes when every rank entered it. */
[[nodiscard]] inline Request
iBarrier(MPI_Comm comm, std::source_location where = std::source_location::current())
{
    return detail::submit(
        detail::Kind::Barrier,
        "iBarrier",
        false,
        detail::NoBuffer {},
        detail::NoBuffer {},
        detail::Params {},
        comm,
        CallOptions<> {},
        where
    );
}

/** @brief Non-blocking allReduce: combines @p send of every rank with @p op into @p recv of every
 * rank (MPI_Allreduce); send may be inPlace. Returns the Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllReduce(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::AllReduce,
        "iAllReduce",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allReduce: in place: combines @p data of every rank with @p op into @p data
 * of every rank. Returns the Request to complete. */
template<typename B, typename E = ViewExecutionSpace>
requires CollectiveBuffer<B>
[[nodiscard]] Request iAllReduce(
    B&& data,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::AllReduce,
        "iAllReduce",
        false,
        inPlace,
        std::forward<B>(data),
        detail::Params { .op = op },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking reduce: combines @p send of every rank with @p op into @p recv on @p root
 * (MPI_Reduce); recv is unused elsewhere. Returns the Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iReduce(
    S&& send,
    R&& recv,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::Reduce,
        "iReduce",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op, .root = root },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking reduce: in place: every rank contributes @p data, the result replaces @p
 * data on @p root. Returns the Request to complete. */
template<typename B, typename E = ViewExecutionSpace>
requires CollectiveBuffer<B>
[[nodiscard]] Request iReduce(
    B&& data,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::Reduce,
        "iReduce",
        false,
        inPlace,
        std::forward<B>(data),
        detail::Params { .op = op, .root = root },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking broadcast: copies @p data of @p root into @p data of every rank (MPI_Bcast).
 * Returns the Request to complete. */
template<typename B, typename E = ViewExecutionSpace>
requires CollectiveBuffer<B>
[[nodiscard]] Request iBroadcast(
    B&& data,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::Broadcast,
        "iBroadcast",
        false,
        detail::NoBuffer {},
        std::forward<B>(data),
        detail::Params { .root = root },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allGather: block r of @p recv (send.size() values) receives @p send of rank
 * r, on every rank (MPI_Allgather). In place: each rank's block is already in recv. Returns the
 * Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllGather(
    S&& send,
    R&& recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::AllGather,
        "iAllGather",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params {},
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allGatherV: as allGather with recvCounts[r] values from rank r, packed in
 * rank order (MPI_Allgatherv). Returns the Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllGatherV(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::AllGatherV,
        "iAllGatherV",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .recvCounts = recvCounts },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking gather: block r of @p recv on @p root receives @p send of rank r
 * (MPI_Gather). In place: every rank's block r of recv is its contribution. Returns the Request to
 * complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iGather(
    S&& send,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::Gather,
        "iGather",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .root = root },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking gatherV: as gather with recvCounts[r] values from rank r, packed in rank
 * order (MPI_Gatherv); recvCounts is read on root only unless in place. Returns the Request to
 * complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iGatherV(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::GatherV,
        "iGatherV",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .root = root, .recvCounts = recvCounts },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking scatter: rank r receives block r (recv.size() values) of @p send of @p root
 * (MPI_Scatter). recv may be inPlace: each rank's block r of send is its result. Returns the
 * Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires CollectiveBuffer<S> && ReceiveArgument<R>
[[nodiscard]] Request iScatter(
    S&& send,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::Scatter,
        "iScatter",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .root = root },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking scatterV: as scatter with sendCounts[r] values for rank r, packed in rank
 * order (MPI_Scatterv); sendCounts is read on root only unless in place. Returns the Request to
 * complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires CollectiveBuffer<S> && ReceiveArgument<R>
[[nodiscard]] Request iScatterV(
    S&& send,
    std::span<const int> sendCounts,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::ScatterV,
        "iScatterV",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .root = root, .sendCounts = sendCounts },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allToAll: block r of @p send goes to rank r, block r of @p recv comes from
 * rank r (MPI_Alltoall). Returns the Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllToAll(
    S&& send,
    R&& recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::AllToAll,
        "iAllToAll",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params {},
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allToAllV: as allToAll with per-rank counts, blocks packed in rank order
 * (MPI_Alltoallv). Returns the Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iAllToAllV(
    S&& send,
    std::span<const int> sendCounts,
    R&& recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::AllToAllV,
        "iAllToAllV",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .sendCounts = sendCounts, .recvCounts = recvCounts },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking reduceScatter: reduces @p send (size x n values) over all ranks with @p op;
 * rank r receives block r of the result in @p recv (MPI_Reduce_scatter_block). Returns the Request
 * to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iReduceScatter(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::ReduceScatterBlock,
        "iReduceScatter",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking reduceScatter: as reduceScatter with recvCounts[r] values for rank r
 * (MPI_Reduce_scatter). Returns the Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iReduceScatter(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::ReduceScatter,
        "iReduceScatter",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op, .recvCounts = recvCounts },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking scan: rank r receives @p op over @p send of ranks 0..r (MPI_Scan). Returns
 * the Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iScan(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::Scan,
        "iScan",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking exScan: rank r > 0 receives @p op over @p send of ranks 0..r-1; recv of rank
 * 0 is left unchanged (MPI_Exscan). Returns the Request to complete. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
[[nodiscard]] Request iExScan(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return detail::submit(
        detail::Kind::ExScan,
        "iExScan",
        false,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op },
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allReduce on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iAllReduce(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iAllReduce(
        detail::hostSpan(send, count, "iAllReduce", where),
        detail::hostSpan(recv, count, "iAllReduce", where),
        op,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking In-place allReduce on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iAllReduce(
    T* data,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iAllReduce(detail::hostSpan(data, count, "iAllReduce", where), op, comm, options, where);
}

/** @brief Non-blocking reduce on @p count host values; @p recv may be null off root. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iReduce(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iReduce(
        detail::hostSpan(send, count, "iReduce", where),
        detail::hostSpan(recv, recv ? count : 0, "iReduce", where),
        op,
        root,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking In-place reduce on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iReduce(
    T* data,
    int count,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iReduce(detail::hostSpan(data, count, "iReduce", where), op, root, comm, options, where);
}

/** @brief Non-blocking broadcast of @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iBroadcast(
    T* data,
    int count,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iBroadcast(
        detail::hostSpan(data, count, "iBroadcast", where), root, comm, options, where
    );
}

/** @brief Non-blocking allGather of @p count values per rank; @p recv holds count x size values. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iAllGather(
    const T* send,
    int count,
    T* recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iAllGather(
        detail::hostSpan(send, count, "iAllGather", where),
        detail::hostSpan(
            recv, detail::timesSize(count, comm, "iAllGather", where), "iAllGather", where
        ),
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allGatherV; @p recv holds the sum of @p recvCounts values. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iAllGatherV(
    const T* send,
    int count,
    T* recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iAllGatherV(
        detail::hostSpan(send, count, "iAllGatherV", where),
        detail::hostSpan(recv, detail::sum(recvCounts), "iAllGatherV", where),
        recvCounts,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking gather of @p count values per rank; @p recv (count x size values) may be
 * null off root. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iGather(
    const T* send,
    int count,
    T* recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iGather(
        detail::hostSpan(send, count, "iGather", where),
        detail::hostSpan(
            recv, recv ? detail::timesSize(count, comm, "iGather", where) : 0, "iGather", where
        ),
        root,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking gatherV; @p recv (sum of recvCounts values) may be null off root. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iGatherV(
    const T* send,
    int count,
    T* recv,
    std::span<const int> recvCounts,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iGatherV(
        detail::hostSpan(send, count, "iGatherV", where),
        detail::hostSpan(recv, recv ? detail::sum(recvCounts) : 0, "iGatherV", where),
        recvCounts,
        root,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking scatter of @p count values per rank; @p send (count x size values) may be
 * null off root. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iScatter(
    const T* send,
    T* recv,
    int count,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iScatter(
        detail::hostSpan(
            send, send ? detail::timesSize(count, comm, "iScatter", where) : 0, "iScatter", where
        ),
        detail::hostSpan(recv, count, "iScatter", where),
        root,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking scatterV; @p send (sum of sendCounts values) may be null off root. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iScatterV(
    const T* send,
    std::span<const int> sendCounts,
    T* recv,
    int recvCount,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iScatterV(
        detail::hostSpan(send, send ? detail::sum(sendCounts) : 0, "iScatterV", where),
        sendCounts,
        detail::hostSpan(recv, recvCount, "iScatterV", where),
        root,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allToAll of @p countPerRank values to and from each rank. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iAllToAll(
    const T* send,
    T* recv,
    int countPerRank,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iAllToAll(
        detail::hostSpan(
            send, detail::timesSize(countPerRank, comm, "iAllToAll", where), "iAllToAll", where
        ),
        detail::hostSpan(
            recv, detail::timesSize(countPerRank, comm, "iAllToAll", where), "iAllToAll", where
        ),
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allToAllV on host pointers. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iAllToAllV(
    const T* send,
    std::span<const int> sendCounts,
    T* recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iAllToAllV(
        detail::hostSpan(send, detail::sum(sendCounts), "iAllToAllV", where),
        sendCounts,
        detail::hostSpan(recv, detail::sum(recvCounts), "iAllToAllV", where),
        recvCounts,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking reduceScatter with @p countPerRank values per rank. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iReduceScatter(
    const T* send,
    T* recv,
    int countPerRank,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iReduceScatter(
        detail::hostSpan(
            send,
            detail::timesSize(countPerRank, comm, "iReduceScatter", where),
            "iReduceScatter",
            where
        ),
        detail::hostSpan(recv, countPerRank, "iReduceScatter", where),
        op,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking reduceScatter with @p recvCounts on host pointers. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iReduceScatter(
    const T* send,
    T* recv,
    std::span<const int> recvCounts,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iReduceScatter(
        detail::hostSpan(send, detail::sum(recvCounts), "iReduceScatter", where),
        detail::hostSpan(recv, detail::countOf(recvCounts, comm), "iReduceScatter", where),
        recvCounts,
        op,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking scan on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iScan(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iScan(
        detail::hostSpan(send, count, "iScan", where),
        detail::hostSpan(recv, count, "iScan", where),
        op,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking exScan on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
[[nodiscard]] Request iExScan(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iExScan(
        detail::hostSpan(send, count, "iExScan", where),
        detail::hostSpan(recv, count, "iExScan", where),
        op,
        comm,
        options,
        where
    );
}

} // namespace fieldsync::mpi
