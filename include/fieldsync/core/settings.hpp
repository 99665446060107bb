// SPDX-License-Identifier: MIT
#pragma once

#include <span>
#include <string>
#include <vector>

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
 * @brief A floating-point environment variable whose value @p value was already found (by
 * envValues; null or empty: @p fallback).
 * @throws Error naming the variable @p name and its value when it is not a number.
 */
[[nodiscard]] double envDouble(const char* name, const char* value, double fallback);

/**
 * @brief The values of the environment variables @p names in one pass over the environment
 * (std::getenv scans it once per name, and an MPI launcher fills it with a hundred variables):
 * @p values[k] is the value of @p names[k] (the first entry of that name, as std::getenv finds
 * it), or null when it is unset. The pointers are the environment's own: valid until it changes.
 * @p values must be as long as @p names.
 */
void envValues(std::span<const char* const> names, std::span<const char*> values) noexcept;

namespace detail
{
/** @brief One environment variable fieldsync reads (README.md's "Settings" table explains each). */
struct Setting
{
    const char* name;     /**< the variable, FIELDSYNC_... */
    const char* fallback; /**< what applies when it is unset, as the README states it */
};
} // namespace detail

/**
 * @brief The one table of the environment variables the library reads (it reads no other), in
 * README.md's order; README.md's "Settings" table lists the same names (a test compares them).
 */
[[nodiscard]] std::span<const detail::Setting> settingsTable() noexcept;

/**
 * @brief Logs at debug level every variable of settingsTable() that is set, with its value;
 * variables named FIELDSYNC_... (but not FIELDSYNC_TEST_..., the test suite's) that fieldsync
 * does not read (a misspelt name would otherwise
 * change nothing without a word) are one warning, logged where @p rank is 0. The first MPIInit
 * of a process calls it.
 * @return the FIELDSYNC_... variables set in the environment that the table lacks, in the order
 * of the environment.
 */
std::vector<std::string> logSettings(int rank);

/**
 * @brief Whether the O(n) checks run (index ranges, peer agreement on keys and sizes):
 * FIELDSYNC_CHECK=1|0 when set, otherwise the CMake option FIELDSYNC_CHECK_MODE. Read once.
 */
[[nodiscard]] bool checkMode();

} // namespace fieldsync
