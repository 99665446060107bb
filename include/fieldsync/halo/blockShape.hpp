// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>

namespace fieldsync::halo
{

/** @brief The order of the cells of the padded local array (a rank-3 Kokkos::View's layout). */
enum class BlockOrder
{
    LayoutRight, /**< last dimension fastest (C order) */
    LayoutLeft   /**< first dimension fastest (Fortran order) */
};

/** @brief The name of @p order ("LayoutRight"), for messages. */
[[nodiscard]] constexpr const char* toString(BlockOrder order) noexcept
{
    return order == BlockOrder::LayoutRight ? "LayoutRight" : "LayoutLeft";
}

namespace detail
{

/**
 * @brief The padded array a StructuredBlock's maps index: its cell order and its three
 * extents. The maps carry it (RankSimplexCommMap::blockShape()), so that the Communicator can
 * refuse a rank-3 view of another layout or other extents, whose cells the maps' linear indices
 * would name wrongly (a LayoutLeft view, Kokkos's default on CUDA, against LayoutRight maps).
 */
struct BlockShape
{
    BlockOrder order { BlockOrder::LayoutRight };    /**< the linear index's cell order */
    std::array<std::int64_t, 3> extents { 0, 0, 0 }; /**< paddedExtent(0..2) */
};

} // namespace detail

} // namespace fieldsync::halo
