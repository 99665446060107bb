// SPDX-License-Identifier: MIT
// Internal: the pack and unpack by runs of the halo exchange (IndexRuns' layout), on a
// synchronous host space only: a copy per run (compiled, src/halo/packKernels.cpp), or one loop
// per run, in blocks of columns for a column-major field. Templates, as ViewFields
// (fields.hpp) instantiates them per field type. Included by packKernels.hpp, whose helpers
// (componentsOf, cellAt, combine, the kernel labels) they use; the names stay in
// fieldsync::halo.
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/detail/valueOrder.hpp"
#include "fieldsync/halo/packKernels.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/mpi/memorySpace.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace fieldsync::halo
{

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
