// SPDX-License-Identifier: MIT
/**
 * @file layoutPredicates.hpp
 * @brief Deprecated: the two layout predicates of the pack kernels that valueOrderOf()
 * replaced when the exchange came to decide its path in one place from a field's strides
 * (issue #37; internal, halo::detail::valueOrderOf, since #31). Kept for one minor release so
 * that code naming them compiles.
 */
#pragma once

#include "fieldsync/halo/packKernels.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace fieldsync::halo
{

/** @brief Deprecated: a LayoutLeft rank-2 view type (the exchange decides by strides). */
template<typename V>
[[deprecated("internal: the exchange reads a field's value order itself "
             "(fieldsync::halo::detail::valueOrderOf)")]] inline constexpr bool cellsFastest =
    viewRank<V> == 2 && std::is_same_v<typename V::array_layout, Kokkos::LayoutLeft>;

/** @brief Deprecated: whether a run of @p field's cells is one stretch of memory. */
template<typename V>
[[deprecated("internal: the exchange reads a field's value order itself "
             "(fieldsync::halo::detail::valueOrderOf)")]] bool
rowsContiguous(const V& field)
{
    return detail::valueOrderOf(field) == detail::ValueOrder::Rows;
}

} // namespace fieldsync::halo
