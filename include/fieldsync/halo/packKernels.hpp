// SPDX-License-Identifier: MIT
// The pack and unpack kernels of the halo exchange (Kokkos kernels in the field's execution space).
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/copyBytes.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/mpi/memorySpace.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

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
 * dependent pair (index, then value) per thread. Measured by gpu_bench (doc/gpu.md).
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

/**
 * @brief Packs rank-1 field cells idx(begin..end) into buffer(i * stride + offset) on @p exec,
 * @p K cells per thread: thread t takes positions begin + t + j * m (m = ceil(n / K), j < K),
 * so each of its K loads is coalesced across the warp, and it loads all K before it stores.
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
    const auto b0 = static_cast<std::int64_t>(begin);
    const auto e0 = static_cast<std::int64_t>(end);
    const std::int64_t m = (e0 - b0 + K - 1) / K;
    Kokkos::parallel_for(
        packLabel(),
        Kokkos::RangePolicy<Exec>(exec, 0, m),
        KOKKOS_LAMBDA(const std::int64_t t) {
            T v[K];
            for (int j = 0; j < K; ++j)
            {
                const std::int64_t i = b0 + t + j * m;
                if (i < e0)
                {
                    v[j] = field(idx(i));
                }
            }
            for (int j = 0; j < K; ++j)
            {
                const std::int64_t i = b0 + t + j * m;
                if (i < e0)
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
    const auto b0 = static_cast<std::int64_t>(begin);
    const auto e0 = static_cast<std::int64_t>(end);
    const std::int64_t m = (e0 - b0 + K - 1) / K;
    Kokkos::parallel_for(
        unpackLabel(),
        Kokkos::RangePolicy<Exec>(exec, 0, m),
        KOKKOS_LAMBDA(const std::int64_t t) {
            T v[K];
            std::int64_t cell[K];
            for (int j = 0; j < K; ++j)
            {
                const std::int64_t i = b0 + t + j * m;
                cell[j] = -1;
                if (i < e0)
                {
                    cell[j] = static_cast<std::int64_t>(idx(i));
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

/**
 * @brief Packs neighbour cells idx(begin..end): a plain copy when they are one run starting at
 * @p runStart in a rank-1 field and the buffer holds only this field (std::memcpy when the
 * execution space @p exec is a synchronous host space, else Kokkos::deep_copy on @p exec),
 * else the indexed kernel.
 */
template<typename V, typename B, typename I, typename Exec = typename V::execution_space>
void packNeighbour(
    const V& field,
    const B& buffer,
    const I& idx,
    std::size_t begin,
    std::size_t end,
    std::size_t stride,
    std::size_t offset,
    LocalIndex runStart,
    const Exec& exec = Exec()
)
{
    if constexpr (viewRank<V> == 1)
    {
        if (runStart >= 0 && stride == 1 && field.stride(0) == 1)
        {
            using T = typename V::non_const_value_type;
            const auto first = static_cast<std::size_t>(runStart);
            if constexpr (mpi::synchronousHost<Exec> && mpi::hostAccessible<typename V::memory_space>)
            {
                // deep_copy's fixed cost is larger than a copy of a few KiB
                std::memcpy(buffer.data() + begin, field.data() + first, (end - begin) * sizeof(T));
            }
            else
            {
                Kokkos::deep_copy(
                    exec,
                    Kokkos::subview(buffer, std::pair<std::size_t, std::size_t> { begin, end }),
                    Kokkos::subview(
                        field, std::pair<std::size_t, std::size_t> { first, first + (end - begin) }
                    )
                );
            }
            return;
        }
    }
    pack(field, buffer, idx, begin, end, stride, offset, exec);
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
 * @brief How the runs kernels (packRuns(), unpackRuns()) run: Auto picks a copy per run
 * (copyRuns()) on synchronous host spaces where the field's rows and the buffer are contiguous,
 * else Teams on a GPU and Loop elsewhere; Loop and Teams force that kernel (tests run both on the
 * host).
 */
enum class RunKernel
{
    Auto,  /**< a copy per run where possible, else Teams on a GPU and Loop on the host */
    Loop,  /**< one thread per run, a loop over its cells and components */
    Teams, /**< a team per run, its threads over the run's (cell, component) pairs */
};

/** @brief Whether a rank-2 view of @p V keeps a component's cells next to each other. */
template<typename V>
inline constexpr bool cellsFastest =
    viewRank<V> == 2 && std::is_same_v<typename V::array_layout, Kokkos::LayoutLeft>;

/**
 * @brief Whether the components of cell i of @p field are values i * components + c of its data
 * (a rank-1 view of stride 1, or a rank-2 view with contiguous rows): a run of cells is then
 * one stretch of memory.
 */
template<typename V>
bool rowsContiguous(const V& field)
{
    if constexpr (viewRank<V> == 1)
    {
        return field.stride(0) == 1;
    }
    else
    {
        return field.stride(1) == 1 && field.stride(0) == field.extent(1);
    }
}

/**
 * @brief Runs f(i, cell, c) on @p exec for every run r in [runBegin, runEnd) of the arrays
 * @p first and @p at (IndexRuns' layout), every list position i = at(r) + j with cell
 * first(r) + j for j < at(r + 1) - at(r), and every component c < @p comps: one kernel launch
 * for all runs. Teams (a GPU): a team per run, consecutive threads on consecutive values of the
 * field (cells first for @p byCells, components first otherwise). Loop: one thread per run.
 */
template<typename Exec, typename R, typename P, typename F>
void forEachRunElement(
    const std::string& label,
    const Exec& exec,
    const R& first,
    const P& at,
    std::size_t runBegin,
    std::size_t runEnd,
    std::size_t comps,
    bool byCells,
    RunKernel kind,
    const F& f
)
{
    if (runEnd <= runBegin)
    {
        return;
    }
    const auto r0 = static_cast<std::int64_t>(runBegin);
    if (kind == RunKernel::Teams || (kind == RunKernel::Auto && threadPerComponent<Exec>))
    {
        using Policy = Kokkos::TeamPolicy<Exec>;
        Kokkos::parallel_for(
            label,
            Policy(exec, static_cast<int>(runEnd - runBegin), Kokkos::AUTO),
            KOKKOS_LAMBDA(const typename Policy::member_type& team) {
                const auto r = static_cast<std::size_t>(r0 + team.league_rank());
                const std::size_t pos = at(r);
                const std::size_t len = at(r + 1) - pos;
                const auto cell = static_cast<std::int64_t>(first(r));
                Kokkos::parallel_for(
                    Kokkos::TeamThreadRange(team, len * comps),
                    [&](const std::size_t k)
                    {
                        const std::size_t j = byCells ? k % len : k / comps;
                        const std::size_t c = byCells ? k / len : k % comps;
                        f(pos + j, cell + static_cast<std::int64_t>(j), c);
                    }
                );
            }
        );
        return;
    }
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<Exec>(exec, r0, static_cast<std::int64_t>(runEnd)),
        KOKKOS_LAMBDA(const std::int64_t run) {
            const auto r = static_cast<std::size_t>(run);
            const std::size_t pos = at(r);
            const std::size_t len = at(r + 1) - pos;
            const auto cell = static_cast<std::int64_t>(first(r));
            // the inner loop walks the field's memory in order
            const std::size_t outer = byCells ? comps : len;
            const std::size_t inner = byCells ? len : comps;
            for (std::size_t a = 0; a < outer; ++a)
            {
                for (std::size_t b = 0; b < inner; ++b)
                {
                    const std::size_t j = byCells ? b : a;
                    f(pos + j, cell + static_cast<std::int64_t>(j), byCells ? a : b);
                }
            }
        }
    );
}

/**
 * @brief Whether packRuns()/unpackRuns() copy each run on the host (copyRuns()): @p kind is Auto,
 * @p Exec is a synchronous host space, the field's rows are contiguous and the buffer holds this
 * field alone (@p stride is its component count).
 */
template<typename Exec, typename V>
bool copiesRunsOnHost(const V& field, std::size_t stride, RunKernel kind)
{
    if constexpr (mpi::synchronousHost<Exec> && mpi::hostAccessible<typename V::memory_space>)
    {
        return kind == RunKernel::Auto && stride == componentsOf(field) && rowsContiguous(field);
    }
    else
    {
        return false;
    }
}

/**
 * @brief copyRuns() on raw pointers, into the buffer when @p ToBuffer: @p cells the field's
 * values, @p values the buffer's, @p PerCell values per cell (or @p perCell where @p PerCell is 0;
 * a constant lets one component compute addresses and lengths without multiplications).
 */
template<bool ToBuffer, std::size_t PerCell, typename F, typename T, typename I, typename P>
void copyRunsOf(
    F* __restrict cells,
    T* __restrict values,
    const I* __restrict first,
    const P* __restrict at,
    std::size_t runBegin,
    std::size_t runEnd,
    std::size_t perCell
)
{
    const std::size_t comps = PerCell != 0 ? PerCell : perCell;
    // the runs lie scattered over the field: fetch the field's line of the run `ahead` runs on
    // while this one is copied, so that the misses of several runs overlap
    constexpr std::size_t ahead { 8 };
    for (std::size_t r = runBegin; r < runEnd; ++r)
    {
        const std::size_t next = r + ahead < runEnd ? r + ahead : r;
        prefetchLine(cells + static_cast<std::size_t>(first[next]) * comps);
        F* const run = cells + static_cast<std::size_t>(first[r]) * comps;
        T* const packed = values + static_cast<std::size_t>(at[r]) * comps;
        const std::size_t n = static_cast<std::size_t>(at[r + 1] - at[r]) * comps;
        if constexpr (ToBuffer)
        {
            copyRun(packed, run, n);
        }
        else
        {
            copyRun(run, packed, n);
        }
    }
}

/**
 * @brief Copies the runs [runBegin, runEnd) between @p field and @p buffer on the host (into the
 * buffer when @p ToBuffer, else into the field), where copiesRunsOnHost() says so. The views'
 * pointers are taken once: the copies' stores could otherwise alias the views, which the loop
 * would then read again after every run.
 */
template<bool ToBuffer, typename V, typename B, typename R, typename P>
void copyRuns(
    const V& field,
    const B& buffer,
    const R& first,
    const P& at,
    std::size_t runBegin,
    std::size_t runEnd
)
{
    const std::size_t comps = componentsOf(field);
    if (comps == 1)
    {
        copyRunsOf<ToBuffer, 1>(
            field.data(), buffer.data(), first.data(), at.data(), runBegin, runEnd, 1
        );
        return;
    }
    copyRunsOf<ToBuffer, 0>(
        field.data(), buffer.data(), first.data(), at.data(), runBegin, runEnd, comps
    );
}

/**
 * @brief Packs the runs [runBegin, runEnd) of @p first and @p at (IndexRuns' layout) of
 * @p field into buffer(i * stride + offset + c), i the list position: a copy per run (copyRuns())
 * on a synchronous host space where the field's rows are contiguous and the buffer holds only this
 * field (@p stride is its component count), else one kernel over (run, element) on @p exec.
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
    const Exec& exec = Exec(),
    RunKernel kind = RunKernel::Auto
)
{
    if (copiesRunsOnHost<Exec>(field, stride, kind))
    {
        copyRuns<true>(field, buffer, first, at, runBegin, runEnd);
        return;
    }
    forEachRunElement(
        packLabel(),
        exec,
        first,
        at,
        runBegin,
        runEnd,
        componentsOf(field),
        cellsFastest<V>,
        kind,
        KOKKOS_LAMBDA(const std::size_t i, const std::int64_t cell, const std::size_t c) {
            buffer(i * stride + offset + c) = cellAt(field, cell, c);
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
    const Exec& exec = Exec(),
    RunKernel kind = RunKernel::Auto
)
{
    if (op == ReverseOp::Replace && copiesRunsOnHost<Exec>(field, stride, kind))
    {
        copyRuns<false>(field, buffer, first, at, runBegin, runEnd);
        return;
    }
    forEachRunElement(
        unpackLabel(),
        exec,
        first,
        at,
        runBegin,
        runEnd,
        componentsOf(field),
        cellsFastest<V>,
        kind,
        KOKKOS_LAMBDA(const std::size_t i, const std::int64_t cell, const std::size_t c) {
            combine(cellAt(field, cell, c), buffer(i * stride + offset + c), op);
        }
    );
}

} // namespace fieldsync::halo
