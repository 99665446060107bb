// SPDX-License-Identifier: MIT
// The pack and unpack kernels of the halo exchange: the gather in the field's execution space
// (any memory space), and the pack by runs on the host (detail/runKernels.hpp, included at the
// end; the host copy per run is compiled, src/halo/packKernels.cpp).
#pragma once

#include "fieldsync/halo/reverseOp.hpp"

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

} // namespace fieldsync::halo

// the pack and unpack by runs (host only), apart so that each header stays under 600 lines
#include "fieldsync/halo/detail/runKernels.hpp"
