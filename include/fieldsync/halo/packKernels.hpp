// SPDX-License-Identifier: MIT
// The pack and unpack kernels of the halo exchange (Kokkos kernels in the field's execution space).
#pragma once

#include "fieldsync/core/localIndex.hpp"
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
    if constexpr (viewRank<V> == 2 && threadPerComponent<Exec>)
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
    if constexpr (viewRank<V> == 2 && threadPerComponent<Exec>)
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
