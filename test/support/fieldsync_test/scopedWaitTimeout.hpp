// SPDX-License-Identifier: MIT
// Test support: a short wait time-out for one scope, through the environment variables that
// WaitPolicy::fromEnvironment() reads at each wait.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace fieldsync::test
{

/** @brief Sets FIELDSYNC_WAIT_TIMEOUT and FIELDSYNC_WAIT_TIMEOUT_ACTION for its lifetime and then
 * restores what they were. */
class ScopedWaitTimeout
{
public:
    /** @brief Waits longer than @p seconds end as @p action ("warn" or "error") says. */
    ScopedWaitTimeout(const std::string& seconds, const std::string& action)
        : seconds_(read("FIELDSYNC_WAIT_TIMEOUT")), action_(read("FIELDSYNC_WAIT_TIMEOUT_ACTION"))
    {
        ::setenv("FIELDSYNC_WAIT_TIMEOUT", seconds.c_str(), 1);
        ::setenv("FIELDSYNC_WAIT_TIMEOUT_ACTION", action.c_str(), 1);
    }

    ScopedWaitTimeout(const ScopedWaitTimeout&) = delete;
    ScopedWaitTimeout& operator=(const ScopedWaitTimeout&) = delete;

    /** @brief Restores both variables. */
    ~ScopedWaitTimeout()
    {
        restore("FIELDSYNC_WAIT_TIMEOUT", seconds_);
        restore("FIELDSYNC_WAIT_TIMEOUT_ACTION", action_);
    }

private:
    static std::optional<std::string> read(const char* name)
    {
        const char* value { std::getenv(name) };
        return value ? std::optional<std::string>(value) : std::nullopt;
    }

    static void restore(const char* name, const std::optional<std::string>& value)
    {
        if (value)
        {
            ::setenv(name, value->c_str(), 1);
        }
        else
        {
            ::unsetenv(name);
        }
    }

    std::optional<std::string> seconds_; /**< FIELDSYNC_WAIT_TIMEOUT before, if set */
    std::optional<std::string> action_;  /**< FIELDSYNC_WAIT_TIMEOUT_ACTION before, if set */
};

} // namespace fieldsync::test
