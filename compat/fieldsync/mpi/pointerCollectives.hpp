// SPDX-License-Identifier: MIT
/**
 * @file pointerCollectives.hpp
 * @brief The collectives on a host pointer and an `int` count, each one line over the buffer form
 * of fieldsync/mpi/collectives.hpp (a std::span of the values).
 *
 * The forms the collectives specification names (seeds/002: allreduce, reduce, reduce_scatter in
 * equal blocks, allgatherv, alltoall, alltoallv, bcast on `const T* send, T* recv, count`) stay as
 * they are. The others are [[deprecated]] for one minor release, their message naming the span
 * form to write instead (CHANGELOG.md, "Deprecated"). A null pointer holds no values: off the
 * root, the pointers only the root uses may be null. compat.hpp includes this header.
 */
#pragma once

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <source_location>
#include <span>
#include <string>

#include <mpi.h>

namespace fieldsync::mpi
{

namespace detail
{

/**
 * @brief @p count values at @p data as a host span (none for a null pointer).
 * @throws Error naming @p name and @p where when MPI does not run or @p count is negative.
 */
template<typename T>
[[nodiscard]] std::span<T>
hostSpan(T* data, int count, const char* name, const std::source_location& where)
{
    requireMpiRunning(name, where);
    FIELDSYNC_CHECK_AT(
        count >= 0, std::string(name) + ": negative count " + std::to_string(count), where
    );
    return data == nullptr ? std::span<T> {} : std::span<T>(data, static_cast<std::size_t>(count));
}

/**
 * @brief @p countPerRank values for each rank of @p comm at @p data, as hostSpan.
 * @throws Error as hostSpan, for MPI_COMM_NULL, and when the values exceed INT_MAX.
 */
template<typename T>
[[nodiscard]] std::span<T> hostSpanPerRank(
    T* data, int countPerRank, MPI_Comm comm, const char* name, const std::source_location& where
)
{
    if (data == nullptr || countPerRank < 0)
    {
        return hostSpan(data, countPerRank, name, where);
    }
    requireMpiRunning(name, where);
    FIELDSYNC_CHECK_AT(
        comm != MPI_COMM_NULL, std::string(name) + ": the communicator is MPI_COMM_NULL", where
    );
    int size { 1 };
    FIELDSYNC_MPI_AT(MPI_Comm_size(comm, &size), where);
    const auto total = static_cast<long long>(countPerRank) * size;
    FIELDSYNC_CHECK_AT(
        total <= INT_MAX,
        std::string(name) + ": " + std::to_string(countPerRank) + " values per rank times " +
            std::to_string(size) + " ranks exceeds INT_MAX",
        where
    );
    return hostSpan(data, static_cast<int>(total), name, where);
}

/** @brief The sum of the non-negative entries of @p counts (negative ones are reported later). */
[[nodiscard]] inline int sum(std::span<const int> counts) noexcept
{
    long long total { 0 };
    for (const int c : counts)
    {
        total += c > 0 ? c : 0;
    }
    return total > INT_MAX ? INT_MAX : static_cast<int>(total);
}

/** @brief counts[rank in comm], or 0 when it cannot be known (the call reports why). */
[[nodiscard]] inline int countOf(std::span<const int> counts, MPI_Comm comm) noexcept
{
    int initialised { 0 };
    int finalised { 0 };
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    int rank { 0 };
    int size { 0 };
    if (!initialised || finalised || comm == MPI_COMM_NULL ||
        MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS ||
        counts.size() != static_cast<std::size_t>(size))
    {
        return 0;
    }
    return std::max(counts[static_cast<std::size_t>(rank)], 0);
}

} // namespace detail

// The specification's forms (seeds/002)

/** @brief allReduce on @p count host values (the specification's allreduce). */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "allReduce" };
    allReduce(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, count, name, where),
        op,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allReduce on @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "iAllReduce" };
    return iAllReduce(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, count, name, where),
        op,
        comm,
        options,
        where
    );
}

/** @brief reduce on @p count host values; @p recv may be null off root (the specification's
 * reduce). */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "reduce" };
    reduce(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, count, name, where),
        op,
        root,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking reduce on @p count host values; @p recv may be null off root. */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "iReduce" };
    return iReduce(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, count, name, where),
        op,
        root,
        comm,
        options,
        where
    );
}

/** @brief reduceScatter with @p countPerRank values per rank (the specification's
 * reduce_scatter). */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "reduceScatter" };
    reduceScatter(
        detail::hostSpanPerRank(send, countPerRank, comm, name, where),
        detail::hostSpan(recv, countPerRank, name, where),
        op,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking reduceScatter with @p countPerRank values per rank. */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "iReduceScatter" };
    return iReduceScatter(
        detail::hostSpanPerRank(send, countPerRank, comm, name, where),
        detail::hostSpan(recv, countPerRank, name, where),
        op,
        comm,
        options,
        where
    );
}

/** @brief allGatherV; @p recv holds the sum of @p recvCounts values (the specification's
 * allgatherv). */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "allGatherV" };
    allGatherV(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, detail::sum(recvCounts), name, where),
        recvCounts,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allGatherV; @p recv holds the sum of @p recvCounts values. */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "iAllGatherV" };
    return iAllGatherV(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, detail::sum(recvCounts), name, where),
        recvCounts,
        comm,
        options,
        where
    );
}

/** @brief allToAll of @p countPerRank values to and from each rank (the specification's
 * alltoall). */
template<typename T, typename E = detail::ViewExecutionSpace>
void allToAll(
    const T* send,
    T* recv,
    int countPerRank,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "allToAll" };
    allToAll(
        detail::hostSpanPerRank(send, countPerRank, comm, name, where),
        detail::hostSpanPerRank(recv, countPerRank, comm, name, where),
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allToAll of @p countPerRank values to and from each rank. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[nodiscard]] Request iAllToAll(
    const T* send,
    T* recv,
    int countPerRank,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "iAllToAll" };
    return iAllToAll(
        detail::hostSpanPerRank(send, countPerRank, comm, name, where),
        detail::hostSpanPerRank(recv, countPerRank, comm, name, where),
        comm,
        options,
        where
    );
}

/** @brief allToAllV on host pointers (the specification's alltoallv). */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "allToAllV" };
    allToAllV(
        detail::hostSpan(send, detail::sum(sendCounts), name, where),
        sendCounts,
        detail::hostSpan(recv, detail::sum(recvCounts), name, where),
        recvCounts,
        comm,
        options,
        where
    );
}

/** @brief Non-blocking allToAllV on host pointers. */
template<typename T, typename E = detail::ViewExecutionSpace>
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
    const char* name { "iAllToAllV" };
    return iAllToAllV(
        detail::hostSpan(send, detail::sum(sendCounts), name, where),
        sendCounts,
        detail::hostSpan(recv, detail::sum(recvCounts), name, where),
        recvCounts,
        comm,
        options,
        where
    );
}

/** @brief broadcast of @p count host values (the specification's bcast). */
template<typename T, typename E = detail::ViewExecutionSpace>
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

/** @brief Non-blocking broadcast of @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
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

// Deprecated: pointer forms the specification does not name

/** @brief Deprecated: in-place allReduce on @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::allReduce(std::span(data, count), op, comm)")]] void allReduce(
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

/** @brief Deprecated: non-blocking in-place allReduce on @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iAllReduce(std::span(data, count), op, comm)"
)]] [[nodiscard]] Request
iAllReduce(
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

/** @brief Deprecated: in-place reduce on @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::reduce(std::span(data, count), op, root, comm)")]] void reduce(
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

/** @brief Deprecated: non-blocking in-place reduce on @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iReduce(std::span(data, count), op, root, comm)"
)]] [[nodiscard]] Request
iReduce(
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

/** @brief Deprecated: reduceScatter with @p recvCounts on host pointers. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::reduceScatter(std::span send, std::span recv, recvCounts, op, "
             "comm) or Kokkos::Views")]] void
reduceScatter(
    const T* send,
    T* recv,
    std::span<const int> recvCounts,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "reduceScatter" };
    reduceScatter(
        detail::hostSpan(send, detail::sum(recvCounts), name, where),
        detail::hostSpan(recv, detail::countOf(recvCounts, comm), name, where),
        recvCounts,
        op,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: non-blocking reduceScatter with @p recvCounts on host pointers. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iReduceScatter(std::span send, std::span recv, recvCounts, op, "
             "comm) or Kokkos::Views")]] [[nodiscard]] Request
iReduceScatter(
    const T* send,
    T* recv,
    std::span<const int> recvCounts,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "iReduceScatter" };
    return iReduceScatter(
        detail::hostSpan(send, detail::sum(recvCounts), name, where),
        detail::hostSpan(recv, detail::countOf(recvCounts, comm), name, where),
        recvCounts,
        op,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: allGather of @p count values per rank; @p recv holds count x size values. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::allGather(std::span send, std::span recv, comm) or "
             "Kokkos::Views")]] void
allGather(
    const T* send,
    int count,
    T* recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "allGather" };
    allGather(
        detail::hostSpan(send, count, name, where),
        detail::hostSpanPerRank(recv, count, comm, name, where),
        comm,
        options,
        where
    );
}

/** @brief Deprecated: non-blocking allGather of @p count values per rank. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iAllGather(std::span send, std::span recv, comm) or "
             "Kokkos::Views")]] [[nodiscard]] Request
iAllGather(
    const T* send,
    int count,
    T* recv,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "iAllGather" };
    return iAllGather(
        detail::hostSpan(send, count, name, where),
        detail::hostSpanPerRank(recv, count, comm, name, where),
        comm,
        options,
        where
    );
}

/** @brief Deprecated: gather of @p count values per rank; @p recv may be null off root. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::gather(std::span send, std::span recv, root, comm) or "
             "Kokkos::Views")]] void
gather(
    const T* send,
    int count,
    T* recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "gather" };
    gather(
        detail::hostSpan(send, count, name, where),
        detail::hostSpanPerRank(recv, count, comm, name, where),
        root,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: non-blocking gather of @p count values per rank. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iGather(std::span send, std::span recv, root, comm) or "
             "Kokkos::Views")]] [[nodiscard]] Request
iGather(
    const T* send,
    int count,
    T* recv,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "iGather" };
    return iGather(
        detail::hostSpan(send, count, name, where),
        detail::hostSpanPerRank(recv, count, comm, name, where),
        root,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: gatherV; @p recv (sum of recvCounts values) may be null off root. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::gatherV(std::span send, std::span recv, recvCounts, root, comm) "
             "or Kokkos::Views")]] void
gatherV(
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
    const char* name { "gatherV" };
    gatherV(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, detail::sum(recvCounts), name, where),
        recvCounts,
        root,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: non-blocking gatherV. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iGatherV(std::span send, std::span recv, recvCounts, root, "
             "comm) or Kokkos::Views")]] [[nodiscard]] Request
iGatherV(
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
    const char* name { "iGatherV" };
    return iGatherV(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, detail::sum(recvCounts), name, where),
        recvCounts,
        root,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: scatter of @p count values per rank; @p send may be null off root. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::scatter(std::span send, std::span recv, root, comm) or "
             "Kokkos::Views")]] void
scatter(
    const T* send,
    T* recv,
    int count,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "scatter" };
    scatter(
        detail::hostSpanPerRank(send, count, comm, name, where),
        detail::hostSpan(recv, count, name, where),
        root,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: non-blocking scatter of @p count values per rank. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iScatter(std::span send, std::span recv, root, comm) or "
             "Kokkos::Views")]] [[nodiscard]] Request
iScatter(
    const T* send,
    T* recv,
    int count,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "iScatter" };
    return iScatter(
        detail::hostSpanPerRank(send, count, comm, name, where),
        detail::hostSpan(recv, count, name, where),
        root,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: scatterV; @p send (sum of sendCounts values) may be null off root. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::scatterV(std::span send, sendCounts, std::span recv, root, "
             "comm) or Kokkos::Views")]] void
scatterV(
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
    const char* name { "scatterV" };
    scatterV(
        detail::hostSpan(send, detail::sum(sendCounts), name, where),
        sendCounts,
        detail::hostSpan(recv, recvCount, name, where),
        root,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: non-blocking scatterV. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iScatterV(std::span send, sendCounts, std::span recv, root, "
             "comm) or Kokkos::Views")]] [[nodiscard]] Request
iScatterV(
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
    const char* name { "iScatterV" };
    return iScatterV(
        detail::hostSpan(send, detail::sum(sendCounts), name, where),
        sendCounts,
        detail::hostSpan(recv, recvCount, name, where),
        root,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: scan on @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::scan(std::span send, std::span recv, op, comm) or "
             "Kokkos::Views")]] void
scan(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "scan" };
    scan(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, count, name, where),
        op,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: non-blocking scan on @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iScan(std::span send, std::span recv, op, comm) or "
             "Kokkos::Views")]] [[nodiscard]] Request
iScan(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "iScan" };
    return iScan(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, count, name, where),
        op,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: exScan on @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::exScan(std::span send, std::span recv, op, comm) or "
             "Kokkos::Views")]] void
exScan(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "exScan" };
    exScan(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, count, name, where),
        op,
        comm,
        options,
        where
    );
}

/** @brief Deprecated: non-blocking exScan on @p count host values. */
template<typename T, typename E = detail::ViewExecutionSpace>
[[deprecated("use fieldsync::mpi::iExScan(std::span send, std::span recv, op, comm) or "
             "Kokkos::Views")]] [[nodiscard]] Request
iExScan(
    const T* send,
    T* recv,
    int count,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    const char* name { "iExScan" };
    return iExScan(
        detail::hostSpan(send, count, name, where),
        detail::hostSpan(recv, count, name, where),
        op,
        comm,
        options,
        where
    );
}

} // namespace fieldsync::mpi
