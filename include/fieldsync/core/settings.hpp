// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace fieldsync
{

/** @brief The value of environment variable @p name, or @p fallback when it is unset or empty. */
[[nodiscard]] std::string envString(const char* name, const std::string& fallback);

/**
 * @brief A boolean environment variable: 1/true/yes/on and 0/false/no/off (any case).
 * @throws Error naming the variable and its value when it is set to anything else.
 */
[[nodiscard]] bool envBool(const char* name, bool fallback);

/**
 * @brief A floating-point environment variable.
 * @throws Error naming the variable and its value when it is not a number.
 */
[[nodiscard]] double envDouble(const char* name, double fallback);

/**
 * @brief Whether the O(n) checks run (index ranges, peer agreement on keys and sizes):
 * FIELDSYNC_CHECK=1|0 when set, otherwise the CMake option FIELDSYNC_CHECK_MODE. Read once.
 */
[[nodiscard]] bool checkMode();

} // namespace fieldsync
