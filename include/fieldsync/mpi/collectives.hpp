// SPDX-License-Identifier: MIT
// Blocking collectives on pointers, std::span, std::vector and Kokkos::View (doc/collectives.md).
#pragma once

#include "fieldsync/mpi/callOptions.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "fieldsync/mpi/detail/describe.hpp"
#include "fieldsync/mpi/request.hpp"

#include <source_location>
#include <span>
#include <utility>

namespace fieldsync::mpi
{

/** @brief A std::span, std::vector or contiguous Kokkos::View (any rank, any memory space). */
template<typename B>
concept CollectiveBuffer = detail::BufferLike<B>;

/** @brief A buffer, or inPlace where MPI_IN_PLACE goes in the send position. */
template<typename S>
concept SendArgument = CollectiveBuffer<S> || std::same_as<std::remove_cvref_t<S>, InPlace>;

/** @brief A buffer, or inPlace (scatter and scatterV only). */
template<typename R>
concept ReceiveArgument = CollectiveBuffer<R> || std::same_as<std::remove_cvref_t<R>, InPlace>;

/** @brief allReduce of one value in place: @p value becomes @p op over every rank's value. */
template<typename T, typename E = ViewExecutionSpace>
requires MpiCompatible<T>
void allReduce(
    T& value,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    allReduce(std::span<T>(&value, 1), op, comm, options, where);
}

/** @brief Blocks until every rank of @p comm has called barrier (MPI_Barrier). */
inline void barrier(MPI_Comm comm, std::source_location where = std::source_location::current())
{
    static_cast<void>(detail::submit(
        detail::Kind::Barrier,
        "barrier",
        true,
        detail::NoBuffer {},
        detail::NoBuffer {},
        detail::Params {},
        comm,
        CallOptions<> {},
        where
    ));
}

/** @brief Combines @p send of every rank with @p op into @p recv of every rank (MPI_Allreduce);
 * send may be inPlace. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void allReduce(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::AllReduce,
        "allReduce",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op },
        comm,
        options,
        where
    ));
}

/** @brief In place: combines @p data of every rank with @p op into @p data of every rank. */
template<typename B, typename E = ViewExecutionSpace>
requires CollectiveBuffer<B>
void allReduce(
    B&& data,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::AllReduce,
        "allReduce",
        true,
        inPlace,
        std::forward<B>(data),
        detail::Params { .op = op },
        comm,
        options,
        where
    ));
}

/** @brief Combines @p send of every rank with @p op into @p recv on @p root (MPI_Reduce); recv is
 * unused elsewhere. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void reduce(
    S&& send,
    R&& recv,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::Reduce,
        "reduce",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op, .root = root },
        comm,
        options,
        where
    ));
}

/** @brief In place: every rank contributes @p data, the result replaces @p data on @p root. */
template<typename B, typename E = ViewExecutionSpace>
requires CollectiveBuffer<B>
void reduce(
    B&& data,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::Reduce,
        "reduce",
        true,
        inPlace,
        std::forward<B>(data),
        detail::Params { .op = op, .root = root },
        comm,
        options,
        where
    ));
}

/** @brief Copies @p data of @p root into @p data of every rank (MPI_Bcast). */
template<typename B, typename E = ViewExecutionSpace>
requires CollectiveBuffer<B>
void broadcast(
    B&& data,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::Broadcast,
        "broadcast",
        true,
        detail::NoBuffer {},
        std::forward<B>(data),
        detail::Params { .root = root },
        comm,
        options,
        where
    ));
}

/** @brief Block r of @p recv (send.size() values) receives @p send of rank r, on every rank
 * (MPI_Allgather). In place: each rank's block is already in recv. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void allGather(
    S&& send,
    R&& recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::AllGather,
        "allGather",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params {},
        comm,
        options,
        where
    ));
}

/** @brief As allGather with recvCounts[r] values from rank r, packed in rank order
 * (MPI_Allgatherv). */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void allGatherV(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::AllGatherV,
        "allGatherV",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .recvCounts = recvCounts },
        comm,
        options,
        where
    ));
}

/** @brief Block r of @p recv on @p root receives @p send of rank r (MPI_Gather). In place: every
 * rank's block r of recv is its contribution. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void gather(
    S&& send,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::Gather,
        "gather",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .root = root },
        comm,
        options,
        where
    ));
}

/** @brief As gather with recvCounts[r] values from rank r, packed in rank order (MPI_Gatherv);
 * recvCounts is read on root only unless in place. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void gatherV(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::GatherV,
        "gatherV",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .root = root, .recvCounts = recvCounts },
        comm,
        options,
        where
    ));
}

/** @brief Rank r receives block r (recv.size() values) of @p send of @p root (MPI_Scatter). recv
 * may be inPlace: each rank's block r of send is its result. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires CollectiveBuffer<S> && ReceiveArgument<R>
void scatter(
    S&& send,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::Scatter,
        "scatter",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .root = root },
        comm,
        options,
        where
    ));
}

/** @brief As scatter with sendCounts[r] values for rank r, packed in rank order (MPI_Scatterv);
 * sendCounts is read on root only unless in place. */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires CollectiveBuffer<S> && ReceiveArgument<R>
void scatterV(
    S&& send,
    std::span<const int> sendCounts,
    R&& recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::ScatterV,
        "scatterV",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .root = root, .sendCounts = sendCounts },
        comm,
        options,
        where
    ));
}

/** @brief Block r of @p send goes to rank r, block r of @p recv comes from rank r (MPI_Alltoall).
 */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void allToAll(
    S&& send,
    R&& recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::AllToAll,
        "allToAll",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params {},
        comm,
        options,
        where
    ));
}

/** @brief As allToAll with per-rank counts, blocks packed in rank order (MPI_Alltoallv). */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void allToAllV(
    S&& send,
    std::span<const int> sendCounts,
    R&& recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::AllToAllV,
        "allToAllV",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .sendCounts = sendCounts, .recvCounts = recvCounts },
        comm,
        options,
        where
    ));
}

/** @brief Reduces @p send (size x n values) over all ranks with @p op; rank r receives block r of
 * the result in @p recv (MPI_Reduce_scatter_block). */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void reduceScatter(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::ReduceScatterBlock,
        "reduceScatter",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op },
        comm,
        options,
        where
    ));
}

/** @brief As reduceScatter with recvCounts[r] values for rank r (MPI_Reduce_scatter). */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void reduceScatter(
    S&& send,
    R&& recv,
    std::span<const int> recvCounts,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::ReduceScatter,
        "reduceScatter",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op, .recvCounts = recvCounts },
        comm,
        options,
        where
    ));
}

/** @brief Rank r receives @p op over @p send of ranks 0..r (MPI_Scan). */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void scan(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::Scan,
        "scan",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op },
        comm,
        options,
        where
    ));
}

/** @brief Rank r > 0 receives @p op over @p send of ranks 0..r-1; recv of rank 0 is left unchanged
 * (MPI_Exscan). */
template<typename S, typename R, typename E = ViewExecutionSpace>
requires SendArgument<S> && CollectiveBuffer<R>
void exScan(
    S&& send,
    R&& recv,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    static_cast<void>(detail::submit(
        detail::Kind::ExScan,
        "exScan",
        true,
        std::forward<S>(send),
        std::forward<R>(recv),
        detail::Params { .op = op },
        comm,
        options,
        where
    ));
}

/** @brief allReduce on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
void allReduce(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    allReduce(
        detail::hostSpan(send, count, "allReduce", where),
        detail::hostSpan(recv, count, "allReduce", where),
        op,
        comm,
        options,
        where
    );
}

/** @brief In-place allReduce on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
void allReduce(
    T* data,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    allReduce(detail::hostSpan(data, count, "allReduce", where), op, comm, options, where);
}

/** @brief reduce on @p count host values; @p recv may be null off root. */
template<typename T, typename E = ViewExecutionSpace>
void reduce(
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
    reduce(
        detail::hostSpan(send, count, "reduce", where),
        detail::hostSpan(recv, recv ? count : 0, "reduce", where),
        op,
        root,
        comm,
        options,
        where
    );
}

/** @brief In-place reduce on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
void reduce(
    T* data,
    int count,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    reduce(detail::hostSpan(data, count, "reduce", where), op, root, comm, options, where);
}

/** @brief broadcast of @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
void broadcast(
    T* data,
    int count,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    broadcast(detail::hostSpan(data, count, "broadcast", where), root, comm, options, where);
}

/** @brief allGather of @p count values per rank; @p recv holds count x size values. */
template<typename T, typename E = ViewExecutionSpace>
void allGather(
    const T* send,
    int count,
    T* recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    allGather(
        detail::hostSpan(send, count, "allGather", where),
        detail::hostSpan(
            recv, detail::timesSize(count, comm, "allGather", where), "allGather", where
        ),
        comm,
        options,
        where
    );
}

/** @brief allGatherV; @p recv holds the sum of @p recvCounts values. */
template<typename T, typename E = ViewExecutionSpace>
void allGatherV(
    const T* send,
    int count,
    T* recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    allGatherV(
        detail::hostSpan(send, count, "allGatherV", where),
        detail::hostSpan(recv, detail::sum(recvCounts), "allGatherV", where),
        recvCounts,
        comm,
        options,
        where
    );
}

/** @brief gather of @p count values per rank; @p recv (count x size values) may be null off root.
 */
template<typename T, typename E = ViewExecutionSpace>
void gather(
    const T* send,
    int count,
    T* recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    gather(
        detail::hostSpan(send, count, "gather", where),
        detail::hostSpan(
            recv, recv ? detail::timesSize(count, comm, "gather", where) : 0, "gather", where
        ),
        root,
        comm,
        options,
        where
    );
}

/** @brief gatherV; @p recv (sum of recvCounts values) may be null off root. */
template<typename T, typename E = ViewExecutionSpace>
void gatherV(
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
    gatherV(
        detail::hostSpan(send, count, "gatherV", where),
        detail::hostSpan(recv, recv ? detail::sum(recvCounts) : 0, "gatherV", where),
        recvCounts,
        root,
        comm,
        options,
        where
    );
}

/** @brief scatter of @p count values per rank; @p send (count x size values) may be null off root.
 */
template<typename T, typename E = ViewExecutionSpace>
void scatter(
    const T* send,
    T* recv,
    int count,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    scatter(
        detail::hostSpan(
            send, send ? detail::timesSize(count, comm, "scatter", where) : 0, "scatter", where
        ),
        detail::hostSpan(recv, count, "scatter", where),
        root,
        comm,
        options,
        where
    );
}

/** @brief scatterV; @p send (sum of sendCounts values) may be null off root. */
template<typename T, typename E = ViewExecutionSpace>
void scatterV(
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
    scatterV(
        detail::hostSpan(send, send ? detail::sum(sendCounts) : 0, "scatterV", where),
        sendCounts,
        detail::hostSpan(recv, recvCount, "scatterV", where),
        root,
        comm,
        options,
        where
    );
}

/** @brief allToAll of @p countPerRank values to and from each rank. */
template<typename T, typename E = ViewExecutionSpace>
void allToAll(
    const T* send,
    T* recv,
    int countPerRank,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    allToAll(
        detail::hostSpan(
            send, detail::timesSize(countPerRank, comm, "allToAll", where), "allToAll", where
        ),
        detail::hostSpan(
            recv, detail::timesSize(countPerRank, comm, "allToAll", where), "allToAll", where
        ),
        comm,
        options,
        where
    );
}

/** @brief allToAllV on host pointers. */
template<typename T, typename E = ViewExecutionSpace>
void allToAllV(
    const T* send,
    std::span<const int> sendCounts,
    T* recv,
    std::span<const int> recvCounts,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    allToAllV(
        detail::hostSpan(send, detail::sum(sendCounts), "allToAllV", where),
        sendCounts,
        detail::hostSpan(recv, detail::sum(recvCounts), "allToAllV", where),
        recvCounts,
        comm,
        options,
        where
    );
}

/** @brief reduceScatter with @p countPerRank values per rank. */
template<typename T, typename E = ViewExecutionSpace>
void reduceScatter(
    const T* send,
    T* recv,
    int countPerRank,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    reduceScatter(
        detail::hostSpan(
            send,
            detail::timesSize(countPerRank, comm, "reduceScatter", where),
            "reduceScatter",
            where
        ),
        detail::hostSpan(recv, countPerRank, "reduceScatter", where),
        op,
        comm,
        options,
        where
    );
}

/** @brief reduceScatter with @p recvCounts on host pointers. */
template<typename T, typename E = ViewExecutionSpace>
void reduceScatter(
    const T* send,
    T* recv,
    std::span<const int> recvCounts,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    reduceScatter(
        detail::hostSpan(send, detail::sum(recvCounts), "reduceScatter", where),
        detail::hostSpan(recv, detail::countOf(recvCounts, comm), "reduceScatter", where),
        recvCounts,
        op,
        comm,
        options,
        where
    );
}

/** @brief scan on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
void scan(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    scan(
        detail::hostSpan(send, count, "scan", where),
        detail::hostSpan(recv, count, "scan", where),
        op,
        comm,
        options,
        where
    );
}

/** @brief exScan on @p count host values. */
template<typename T, typename E = ViewExecutionSpace>
void exScan(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    exScan(
        detail::hostSpan(send, count, "exScan", where),
        detail::hostSpan(recv, count, "exScan", where),
        op,
        comm,
        options,
        where
    );
}

} // namespace fieldsync::mpi
