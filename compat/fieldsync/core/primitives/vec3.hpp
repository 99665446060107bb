// SPDX-License-Identifier: MIT
// NeoN's header NeoN/core/primitives/vec3.hpp at the path a rename of NeoN to fieldsync gives:
// scalar and Vec3, which NeoN's operators.hpp brings along for its allReduce of a Vec3. See
// fieldsync/compat.hpp and doc/porting.md.
#pragma once

#include "fieldsync/mpi/dataType.hpp"

#include <cstddef>

namespace fieldsync
{

/** @brief NeoN's scalar: double, as NeoN's default build (NeoN_DEFINE_DP_SCALAR ON). */
using scalar = double;

/**
 * @brief NeoN's Vec3: three scalars, element access with [] and (), zero by default. Registered
 * as an MPI aggregate of 3 scalars, so allReduce(vec3, op, comm) reduces each component, as
 * NeoN's allReduce of a Vec3 does. NeoN's arithmetic on Vec3 is not part of the MPI module and
 * is not provided.
 */
class Vec3
{
public:
    /** @brief (0, 0, 0). */
    constexpr Vec3() = default;

    /** @brief (@p x, @p y, @p z). */
    constexpr Vec3(scalar x, scalar y, scalar z) : cmpts_ { x, y, z } {}

    /** @brief (@p value, @p value, @p value). */
    constexpr explicit Vec3(scalar value) : cmpts_ { value, value, value } {}

    /** @brief The first of the three consecutive components. */
    [[nodiscard]] scalar* data() noexcept { return cmpts_; }

    /** @brief The first of the three consecutive components. */
    [[nodiscard]] const scalar* data() const noexcept { return cmpts_; }

    /** @brief 3. */
    [[nodiscard]] constexpr std::size_t size() const noexcept { return 3; }

    /** @brief Component @p i (0, 1 or 2). */
    constexpr scalar& operator[](std::size_t i) noexcept { return cmpts_[i]; }

    /** @brief Component @p i (0, 1 or 2). */
    constexpr scalar operator[](std::size_t i) const noexcept { return cmpts_[i]; }

    /** @brief Component @p i (0, 1 or 2). */
    constexpr scalar& operator()(std::size_t i) noexcept { return cmpts_[i]; }

    /** @brief Component @p i (0, 1 or 2). */
    constexpr scalar operator()(std::size_t i) const noexcept { return cmpts_[i]; }

    /** @brief Whether all three components are equal. */
    constexpr bool operator==(const Vec3&) const = default;

private:
    scalar cmpts_[3] { 0.0, 0.0, 0.0 }; /**< x, y, z */
};

} // namespace fieldsync

FIELDSYNC_REGISTER_AGGREGATE(fieldsync::Vec3, fieldsync::scalar, 3)
