// SPDX-License-Identifier: MIT
#pragma once

#include <source_location>

namespace fieldsync::detail
{

/**
 * @brief A parameter's value together with the caller's std::source_location, for an entry
 * point whose last parameters are a parameter pack (Migration::migrate,
 * Rebalancer::rebalance): a defaulted std::source_location cannot follow the pack, so the last
 * parameter before it is taken as a CallerValue. The implicit constructor's default argument
 * is evaluated where the caller converts its value, so where() is the caller's line; a caller
 * that forwards its own location passes `{value, where}`.
 */
template<typename T>
class CallerValue
{
public:
    /** @brief @p value, called from @p where (by default: the line that converts it). */
    CallerValue( // NOLINT(google-explicit-constructor): implicit on purpose
        T value,
        std::source_location where = std::source_location::current()
    ) noexcept
        : value_(value), where_(where)
    {
    }

    /** @brief The value. */
    [[nodiscard]] const T& value() const noexcept { return value_; }

    /** @brief The caller's location. */
    [[nodiscard]] const std::source_location& where() const noexcept { return where_; }

private:
    T value_;                    /**< the parameter's value */
    std::source_location where_; /**< where the caller passed it */
};

} // namespace fieldsync::detail
