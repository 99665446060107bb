// SPDX-License-Identifier: MIT
// Internal: how a field's values lie in memory, the one thing the exchange reads of a field's
// layout (used by the pack kernels, packKernels.hpp, and the engine's pack plan).
#pragma once

#include <cstddef>

namespace fieldsync::halo
{

namespace detail
{
/**
 * @brief How a field's values lie in memory: the one thing the exchange reads of a field's layout
 * to choose its path (in place, a copy per run, the loop order of a loop per run), decided from
 * extents and strides alone by valueOrder(), so that LayoutRight, LayoutLeft and LayoutStride
 * views with the same strides take the same path (doc/halo.md, "Field layouts").
 */
enum class ValueOrder
{
    Rows,    /**< cell i's components are values i * components + c: a run of cells is one
                  stretch of memory (rank 1 of stride 1, LayoutRight, and any layout with one
                  component of cell stride 1, a LayoutLeft column included) */
    Columns, /**< several components, each one's cells next to each other (cell stride 1:
                  LayoutLeft): a run of cells is one stretch per component */
    Other    /**< neither (padded rows, strided subviews) */
};

/**
 * @brief The ValueOrder of a field of @p components components per cell whose cell i, component
 * c is value i * @p cellStride + c * @p componentStride of its data.
 */
constexpr ValueOrder
valueOrder(std::size_t components, std::size_t cellStride, std::size_t componentStride) noexcept
{
    if (cellStride == components && (components == 1 || componentStride == 1))
    {
        return ValueOrder::Rows;
    }
    return cellStride == 1 ? ValueOrder::Columns : ValueOrder::Other;
}

/** @brief The ValueOrder of a rank-1 or rank-2 view (valueOrder() of its extents and strides). */
template<typename V>
ValueOrder valueOrderOf(const V& field)
{
    if constexpr (V::rank == 1)
    {
        return valueOrder(1, field.stride(0), 1);
    }
    else
    {
        return valueOrder(field.extent(1), field.stride(0), field.stride(1));
    }
}
} // namespace detail

} // namespace fieldsync::halo
