// SPDX-License-Identifier: MIT
// The pack and unpack kernels of the halo exchange: the gather in the field's execution space
// (any memory space), and the pack by runs on the host; the host copy per run is compiled
// (src/halo/packKernels.cpp).
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/detail/valueOrder.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/mpi/memorySpace.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace fieldsync::halo
{

/** @brief The rank (number of dimensions) of a Kokkos view type, as an int. */
template<typename V>
inline constexpr int viewRank = static_cast<int>(V::rank);

/** @brief Components per cell of a rank-1 or rank-2 view. */
template<typename V>
std::size_t componentsOf(const V& view)
{
    if constexpr (viewRank<V> == 2)
    {
        return view.extent(1);
    }
    else
    {
        return 1;
    }
}

/**
 * @brief The kernel labels as strings made once: Kokkos takes a label as std::string, and
 * "fieldsync::unpack" is too long for the small-string buffer (one allocation per launch).
 */
inline const std::string& packLabel()
{
    static const std::string label { "fieldsync::pack" };
    return label;
}

/** @brief See packLabel(). */
inline const std::string& unpackLabel()
{
    static const std::string label { "fieldsync::unpack" };
    return label;
}

/**
 * @brief Component @p c of cell @p cell of a rank-1 (@p c is 0) or rank-2 view. Kernels use it
 * instead of an `if constexpr` on the rank: nvcc rejects an extended lambda whose first use of a
 * captured variable is inside a constexpr-if branch.
 */
template<typename V, typename I>
KOKKOS_INLINE_FUNCTION decltype(auto) cellAt(const V& field, const I cell, const std::size_t c)
{
    if constexpr (viewRank<V> == 1)
    {
        (void)c;
        return field(cell);
    }
    else
    {
        return field(cell, c);
    }
}

/**
 * @brief Whether kernels on @p Exec take one thread per (cell, component) instead of one per
 * cell with a loop over the components: on a GPU (an execution space whose memory the host cannot
 * read), so that neighbouring threads read and write neighbouring components (coalesced); on the
 * host the loop per cell reads each cell's components from one cache line.
 */
template<typename Exec>
inline constexpr bool threadPerComponent =
    !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

/**
 * @brief Runs f(i, c) for every cell position i in [begin, end) and component c in [0, comps)
 * on @p exec, one thread per pair, components of one cell on neighbouring threads.
 */
template<typename Exec, typename F>
void forEachCellComponent(
    const std::string& label,
    const Exec& exec,
    std::size_t begin,
    std::size_t end,
    std::size_t comps,
    const F& f
)
{
    const auto n = static_cast<std::int64_t>(comps);
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<Exec>(
            exec, static_cast<std::int64_t>(begin) * n, static_cast<std::int64_t>(end) * n
        ),
        KOKKOS_LAMBDA(const std::int64_t k) {
            const std::int64_t i = k / n;
            f(i, static_cast<std::size_t>(k - i * n));
        }
    );
}

/**
 * @brief Cells a GPU thread packs or unpacks in a rank-1 field: it issues all its index and
 * value loads before its stores, so a warp has several gathers in flight instead of one
 * dependent pair (index, then value) per thread. Measured by gpu_bench (doc/notes/gpu.md).
 */
inline constexpr int cellsPerThread { 4 };

/** @brief Whether pack() and unpack() of a @p V field on @p Exec go through packCells(). */
template<typename V, typename Exec>
inline constexpr bool packsCellsPerThread =
    viewRank<V> == 1 &&
    threadPerComponent<Exec>&&
        std::is_trivially_default_constructible_v<typename V::non_const_value_type>;

/** @brief Combines @p value into @p target with @p op (unpack's one step). */
template<typename T>
KOKKOS_INLINE_FUNCTION void combine(T& target, const T& value, const ReverseOp op)
{
    if (op == ReverseOp::Replace)
    {
        target = value;
    }
    else if constexpr (std::is_arithmetic_v<T>)
    {
        if (op == ReverseOp::Sum)
        {
            target += value;
        }
        else if (op == ReverseOp::Max)
        {
            target = target < value ? value : target;
        }
        else
        {
            target = value < target ? value : target;
        }
    }
}

namespace detail
{
/**
 * @brief The cells a thread of packCells() or unpackCells() takes: thread t takes list
 * positions begin + t + j * m (m = ceil(n / K), j < K), so that each of its K loads is coalesced
 * across the warp.
 */
struct ThreadCells
{
    std::int64_t begin { 0 }; /**< first list position */
    std::int64_t end { 0 };   /**< one past the last */
    std::int64_t m { 0 };     /**< threads: the distance between a thread's positions */

    /** @brief Position @p j of thread @p t, or -1 past the end. */
    KOKKOS_INLINE_FUNCTION std::int64_t at(std::int64_t t, int j) const
    {
        const std::int64_t i = begin + t + j * m;
        return i < end ? i : -1;
    }
};
} // namespace detail

/**
 * @brief Runs f(t, cells) for every thread t of a ThreadCells of @p K positions per thread over
 * list positions [begin, end), on @p exec: the one preamble of packCells() and unpackCells().
 */
template<int K, typename Exec, typename F>
void forEachThreadCells(
    const std::string& label, const Exec& exec, std::size_t begin, std::size_t end, const F& f
)
{
    const auto b0 = static_cast<std::int64_t>(begin);
    const auto e0 = static_cast<std::int64_t>(end);
    const detail::ThreadCells cells { b0, e0, (e0 - b0 + K - 1) / K };
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<Exec>(exec, 0, cells.m),
        KOKKOS_LAMBDA(const std::int64_t t) { f(t, cells); }
    );
}

/**
 * @brief Packs rank-1 field cells idx(begin..end) into buffer(i * stride + offset) on @p exec,
 * @p K cells per thread (ThreadCells), all K loads before the stores.
 */
template<int K, typename V, typename B, typename I, typename Exec>
void packCells(
    const V& field,
    const B& buffer,
    const I& idx,
    std::size_t begin,
    std::size_t end,
    std::size_t stride,
    std::size_t offset,
    const Exec& exec
)
{
    using T = typename V::non_const_value_type;
    forEachThreadCells<K>(
        packLabel(),
        exec,
        begin,
        end,
        KOKKOS_LAMBDA(const std::int64_t t, const detail::ThreadCells& cells) {
            T v[K] {}; // set before use; value-initialised so the compiler can see it
            for (int j = 0; j < K; ++j)
            {
                const std::int64_t i = cells.at(t, j);
                if (i >= 0)
                {
                    v[j] = field(idx(i));
                }
            }
            for (int j = 0; j < K; ++j)
            {
                const std::int64_t i = cells.at(t, j);
                if (i >= 0)
                {
                    buffer(static_cast<std::size_t>(i) * stride + offset) = v[j];
                }
            }
        }
    );
}

/** @brief The unpack of packCells(): @p K cells per thread, all loads before the stores. */
template<int K, typename V, typename B, typename I, typename Exec>
void unpackCells(
    const V& field,
    const B& buffer,
    const I& idx,
    std::size_t begin,
    std::size_t end,
    std::size_t stride,
    std::size_t offset,
    ReverseOp op,
    const Exec& exec
)
{
    using T = typename V::non_const_value_type;
    forEachThreadCells<K>(
        unpackLabel(),
        exec,
        begin,
        end,
        KOKKOS_LAMBDA(const std::int64_t t, const detail::ThreadCells& cells) {
            T v[K] {}; // set before use; value-initialised so the compiler can see it
            std::int64_t cell[K];
            for (int j = 0; j < K; ++j)
            {
                const std::int64_t i = cells.at(t, j);
                cell[j] = i < 0 ? -1 : static_cast<std::int64_t>(idx(i));
                if (i >= 0)
                {
                    v[j] = buffer(static_cast<std::size_t>(i) * stride + offset);
                }
            }
            for (int j = 0; j < K; ++j)
            {
                if (cell[j] >= 0)
                {
                    combine(field(cell[j]), v[j], op);
                }
            }
        }
    );
}

/**
 * @brief Packs field cells idx(begin..end) into buffer(i * stride + offset + c), enqueued on
 * @p exec (the default instance of the field's execution space unless given).
 */
template<typename V, typename B, typename I, typename Exec = typename V::execution_space>
void pack(
    const V& field,
    const B& buffer,
    const I& idx,
    std::size_t begin,
    std::size_t end,
    std::size_t stride,
    std::size_t offset,
    const Exec& exec = Exec()
)
{
    const std::size_t comps = componentsOf(field);
    if constexpr (packsCellsPerThread<V, Exec>)
    {
        packCells<cellsPerThread>(field, buffer, idx, begin, end, stride, offset, exec);
        return;
    }
    else if constexpr (viewRank<V> == 2 && threadPerComponent<Exec>)
    {
        forEachCellComponent(
            packLabel(),
            exec,
            begin,
            end,
            comps,
            KOKKOS_LAMBDA(const std::int64_t i, const std::size_t c) {
                buffer(static_cast<std::size_t>(i) * stride + offset + c) = field(idx(i), c);
            }
        );
        return;
    }
    Kokkos::parallel_for(
        packLabel(),
        Kokkos::RangePolicy<Exec>(
            exec, static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)
        ),
        KOKKOS_LAMBDA(const std::int64_t i) {
            const auto cell = idx(i);
            const std::size_t at = static_cast<std::size_t>(i) * stride + offset;
            // a rank-1 field has one component: a constant, so the loop folds away
            const std::size_t n = viewRank<V> == 1 ? std::size_t { 1 } : comps;
            for (std::size_t c = 0; c < n; ++c)
            {
                buffer(at + c) = cellAt(field, cell, c);
            }
        }
    );
}

/** @brief Combines buffer values into field cells idx(begin..end) with @p op, on @p exec. */
template<typename V, typename B, typename I, typename Exec = typename V::execution_space>
void unpack(
    const V& field,
    const B& buffer,
    const I& idx,
    std::size_t begin,
    std::size_t end,
    std::size_t stride,
    std::size_t offset,
    ReverseOp op,
    const Exec& exec = Exec()
)
{
    const std::size_t comps = componentsOf(field);
    if constexpr (packsCellsPerThread<V, Exec>)
    {
        unpackCells<cellsPerThread>(field, buffer, idx, begin, end, stride, offset, op, exec);
        return;
    }
    else if constexpr (viewRank<V> == 2 && threadPerComponent<Exec>)
    {
        forEachCellComponent(
            unpackLabel(),
            exec,
            begin,
            end,
            comps,
            KOKKOS_LAMBDA(const std::int64_t i, const std::size_t c) {
                combine(
                    field(idx(i), c), buffer(static_cast<std::size_t>(i) * stride + offset + c), op
                );
            }
        );
        return;
    }
    Kokkos::parallel_for(
        unpackLabel(),
        Kokkos::RangePolicy<Exec>(
            exec, static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)
        ),
        KOKKOS_LAMBDA(const std::int64_t i) {
            const auto cell = idx(i);
            const std::size_t at = static_cast<std::size_t>(i) * stride + offset;
            for (std::size_t c = 0; c < comps; ++c)
            {
                combine(cellAt(field, cell, c), buffer(at + c), op);
            }
        }
    );
}

/**
 * @brief Copies the runs [runBegin, runEnd) of @p first and @p at (IndexRuns' layout) between a
 * field's values @p field and a buffer @p buffer, into the buffer when @p toBuffer, else into the
 * field, @p cellBytes bytes per cell: one copy per run (src/halo/packKernels.cpp). A run of the
 * field's cells is one stretch of memory (ValueOrder::Rows) and the buffer holds this field alone.
 */
void copyRuns(
    bool toBuffer,
    std::byte* field,
    std::byte* buffer,
    const LocalIndex* first,
    const std::size_t* at,
    std::size_t runBegin,
    std::size_t runEnd,
    std::size_t cellBytes
) noexcept;

/**
 * @brief Runs f(pos, cell, len) on the host space @p exec for every run r in [runBegin, runEnd)
 * of the arrays @p first and @p at (IndexRuns' layout): its first list position pos = at(r),
 * first cell first(r) and length len = at(r + 1) - pos; one thread per run.
 */
template<typename Exec, typename R, typename P, typename F>
void forEachRun(
    const std::string& label,
    const Exec& exec,
    const R& first,
    const P& at,
    std::size_t runBegin,
    std::size_t runEnd,
    const F& f
)
{
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<Exec>(
            exec, static_cast<std::int64_t>(runBegin), static_cast<std::int64_t>(runEnd)
        ),
        [=](const std::int64_t run)
        {
            const auto r = static_cast<std::size_t>(run);
            const std::size_t pos = at(r);
            f(pos, static_cast<std::size_t>(first(r)), at(r + 1) - pos);
        }
    );
}

/**
 * @brief The most columns of a ValueOrder::Columns field that packRuns() and unpackRuns() copy
 * together: a cell's values of a block are written (or read) together in the buffer, half the
 * instructions of a column at a time (doc/notes/performance.md, "Column-major fields").
 */
inline constexpr std::size_t columnBlock { 4 };

/**
 * @brief Calls f(width, c) for blocks of columns [c, c + W) covering [0, @p comps), W =
 * decltype(width)::value: blocks of columnBlock, then one of the 1 to columnBlock - 1 left.
 */
template<typename F>
void forEachColumnBlock(std::size_t comps, const F& f)
{
    std::size_t c { 0 };
    for (; c + columnBlock <= comps; c += columnBlock)
    {
        f(std::integral_constant<std::size_t, columnBlock> {}, c);
    }
    static_assert(columnBlock == 4, "the blocks left below are 1 to 3 columns");
    switch (comps - c)
    {
    case 3:
        f(std::integral_constant<std::size_t, 3> {}, c);
        break;
    case 2:
        f(std::integral_constant<std::size_t, 2> {}, c);
        break;
    case 1:
        f(std::integral_constant<std::size_t, 1> {}, c);
        break;
    default:
        break;
    }
}

/**
 * @brief Whether packRuns()/unpackRuns() copy each run (copyRuns()): a run of the field's cells
 * is one stretch of memory (ValueOrder::Rows) and the buffer holds this field alone (@p stride
 * is its component count).
 */
template<typename V>
bool copiesRuns(const V& field, std::size_t stride)
{
    return stride == componentsOf(field) && detail::valueOrderOf(field) == detail::ValueOrder::Rows;
}

/**
 * @brief Packs the runs [runBegin, runEnd) of @p first and @p at (IndexRuns' layout) of
 * @p field into buffer(i * stride + offset + c), i the list position, on a synchronous host
 * space (the engine packs by runs only there, its pack plan decides: on a GPU the gather kernel
 * was faster on every measured pattern): a copy per run where copiesRuns() says so, else one
 * loop per run.
 */
template<
    typename V,
    typename B,
    typename R,
    typename P,
    typename Exec = typename V::execution_space>
void packRuns(
    const V& field,
    const B& buffer,
    const R& first,
    const P& at,
    std::size_t runBegin,
    std::size_t runEnd,
    std::size_t stride,
    std::size_t offset,
    const Exec& exec = Exec()
)
{
    static_assert(mpi::synchronousHost<Exec>, "lists are packed by runs on the host only");
    using T = typename V::non_const_value_type;
    if (copiesRuns(field, stride))
    {
        copyRuns(
            true,
            reinterpret_cast<std::byte*>(field.data()),
            reinterpret_cast<std::byte*>(buffer.data()),
            first.data(),
            at.data(),
            runBegin,
            runEnd,
            sizeof(T) * componentsOf(field)
        );
        return;
    }
    const std::size_t comps = componentsOf(field);
    if constexpr (viewRank<V> == 2)
    {
        if (detail::valueOrderOf(field) == detail::ValueOrder::Columns)
        {
            // a stretch of each column of a block to every stride-th row of the buffer
            const auto* const values = field.data();
            auto* const into = buffer.data() + offset;
            const std::size_t column = field.stride(1);
            forEachRun(
                packLabel(),
                exec,
                first,
                at,
                runBegin,
                runEnd,
                [=](const std::size_t pos, const std::size_t cell, const std::size_t len)
                {
                    forEachColumnBlock(
                        comps,
                        [&](auto width, const std::size_t c)
                        {
                            const auto* from = values + cell + c * column;
                            auto* to = into + pos * stride + c;
                            constexpr std::size_t w = decltype(width)::value;
                            for (std::size_t j = 0; j < len; ++j)
                            {
                                for (std::size_t k = 0; k < w; ++k)
                                {
                                    to[j * stride + k] = from[k * column + j];
                                }
                            }
                        }
                    );
                }
            );
            return;
        }
    }
    forEachRun(
        packLabel(),
        exec,
        first,
        at,
        runBegin,
        runEnd,
        [=](const std::size_t pos, const std::size_t cell, const std::size_t len)
        {
            for (std::size_t j = 0; j < len; ++j)
            {
                for (std::size_t c = 0; c < comps; ++c)
                {
                    buffer((pos + j) * stride + offset + c) =
                        cellAt(field, static_cast<std::int64_t>(cell + j), c);
                }
            }
        }
    );
}

/**
 * @brief Combines buffer(i * stride + offset + c) into the cells of the runs [runBegin, runEnd)
 * of @p field with @p op, as packRuns() reads them (a copy per run for ReverseOp::Replace
 * where packRuns() would copy).
 */
template<
    typename V,
    typename B,
    typename R,
    typename P,
    typename Exec = typename V::execution_space>
void unpackRuns(
    const V& field,
    const B& buffer,
    const R& first,
    const P& at,
    std::size_t runBegin,
    std::size_t runEnd,
    std::size_t stride,
    std::size_t offset,
    ReverseOp op,
    const Exec& exec = Exec()
)
{
    static_assert(mpi::synchronousHost<Exec>, "lists are unpacked by runs on the host only");
    using T = typename V::non_const_value_type;
    if (op == ReverseOp::Replace && copiesRuns(field, stride))
    {
        copyRuns(
            false,
            reinterpret_cast<std::byte*>(field.data()),
            reinterpret_cast<std::byte*>(buffer.data()),
            first.data(),
            at.data(),
            runBegin,
            runEnd,
            sizeof(T) * componentsOf(field)
        );
        return;
    }
    const std::size_t comps = componentsOf(field);
    if constexpr (viewRank<V> == 2)
    {
        if (detail::valueOrderOf(field) == detail::ValueOrder::Columns)
        {
            // every stride-th row of the buffer to a stretch of each column of a block
            auto* const values = field.data();
            const auto* const from = buffer.data() + offset;
            const std::size_t column = field.stride(1);
            forEachRun(
                unpackLabel(),
                exec,
                first,
                at,
                runBegin,
                runEnd,
                [=](const std::size_t pos, const std::size_t cell, const std::size_t len)
                {
                    forEachColumnBlock(
                        comps,
                        [&](auto width, const std::size_t c)
                        {
                            auto* to = values + cell + c * column;
                            const auto* in = from + pos * stride + c;
                            constexpr std::size_t w = decltype(width)::value;
                            if (op == ReverseOp::Replace) // the usual case: no test per value
                            {
                                for (std::size_t j = 0; j < len; ++j)
                                {
                                    for (std::size_t k = 0; k < w; ++k)
                                    {
                                        to[k * column + j] = in[j * stride + k];
                                    }
                                }
                                return;
                            }
                            for (std::size_t j = 0; j < len; ++j)
                            {
                                for (std::size_t k = 0; k < w; ++k)
                                {
                                    combine(to[k * column + j], in[j * stride + k], op);
                                }
                            }
                        }
                    );
                }
            );
            return;
        }
    }
    forEachRun(
        unpackLabel(),
        exec,
        first,
        at,
        runBegin,
        runEnd,
        [=](const std::size_t pos, const std::size_t cell, const std::size_t len)
        {
            for (std::size_t j = 0; j < len; ++j)
            {
                for (std::size_t c = 0; c < comps; ++c)
                {
                    combine(
                        cellAt(field, static_cast<std::int64_t>(cell + j), c),
                        buffer((pos + j) * stride + offset + c),
                        op
                    );
                }
            }
        }
    );
}

} // namespace fieldsync::halo
