// SPDX-License-Identifier: MIT
#include "fieldsync/core/settings.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"

#include <algorithm>
#include <cctype>
#include <array>
#include <cstdlib>
#include <string_view>

#include <unistd.h> // environ

namespace fieldsync
{

using detail::Setting;

std::string envString(const char* name, const std::string& fallback)
{
    const char* value = std::getenv(name);
    if (value == nullptr || value[0] == '\0')
    {
        return fallback;
    }
    return value;
}

bool envBool(const char* name, bool fallback)
{
    std::string value = envString(name, "");
    if (value.empty())
    {
        return fallback;
    }
    std::transform(
        value.begin(),
        value.end(),
        value.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); }
    );
    if (value == "1" || value == "true" || value == "yes" || value == "on")
    {
        return true;
    }
    if (value == "0" || value == "false" || value == "no" || value == "off")
    {
        return false;
    }
    throw Error(
        std::string("environment variable ") + name + "='" + value +
        "' is not a boolean (use 1/0, true/false, yes/no, on/off)"
    );
}

double envDouble(const char* name, double fallback)
{
    return envDouble(name, std::getenv(name), fallback);
}

double envDouble(const char* name, const char* value, double fallback)
{
    if (value == nullptr || value[0] == '\0')
    {
        return fallback;
    }
    char* end { nullptr };
    const double parsed = std::strtod(value, &end);
    FIELDSYNC_CHECK(
        end != nullptr && *end == '\0',
        std::string("environment variable ") + name + "='" + value + "' is not a number"
    );
    return parsed;
}

void envValues(std::span<const char* const> names, std::span<const char*> values) noexcept
{
    std::fill(values.begin(), values.end(), nullptr);
    if (names.empty())
    {
        return;
    }
    // names that share their first character (all of fieldsync's do) cost one compare per
    // entry of the environment in the usual case
    const char first { names[0][0] };
    bool shared { true };
    for (const char* name : names)
    {
        shared = shared && name[0] == first;
    }
    for (char** entry { environ }; entry != nullptr && *entry != nullptr; ++entry)
    {
        const char* text { *entry };
        if (shared && text[0] != first)
        {
            continue;
        }
        for (std::size_t k { 0 }; k < names.size(); ++k)
        {
            const char* name { names[k] };
            std::size_t n { 0 };
            while (name[n] != '\0' && text[n] == name[n])
            {
                ++n;
            }
            if (name[n] == '\0' && text[n] == '=' && values[k] == nullptr)
            {
                values[k] = text + n + 1;
            }
        }
    }
}

namespace
{

/** @brief The variables, in README.md's order. */
constexpr std::array<Setting, 12> table { {
    { "FIELDSYNC_LOG_LEVEL", "warn" },
    { "FIELDSYNC_GPU_AWARE_MPI", "detected" },
    { "FIELDSYNC_FORCE_STAGING", "0" },
    { "FIELDSYNC_STAGING_MEMORY", "pinned" },
    { "FIELDSYNC_WAIT_TIMEOUT", "60" },
    { "FIELDSYNC_WAIT_TIMEOUT_ACTION", "warn" },
    { "FIELDSYNC_WAIT_SPIN_US", "100" },
    { "FIELDSYNC_WAIT_YIELD", "detected" },
    { "FIELDSYNC_CHECK", "CMake FIELDSYNC_CHECK_MODE" },
    { "FIELDSYNC_ON_ERROR", "throw" },
    { "FIELDSYNC_HALO_BACKEND", "p2p" },
    { "FIELDSYNC_FAULTS", "off" },
} };

} // namespace

std::span<const Setting> settingsTable() noexcept
{
    return table;
}

std::vector<std::string> logSettings(int rank)
{
    constexpr std::string_view prefix { "FIELDSYNC_" };
    constexpr std::string_view testPrefix { "FIELDSYNC_TEST_" }; // the test suite's own
    std::vector<std::string> unknown;
    for (char** entry { environ }; entry != nullptr && *entry != nullptr; ++entry)
    {
        const std::string_view text { *entry };
        const std::string_view name { text.substr(0, text.find('=')) };
        if (!name.starts_with(prefix) || name.starts_with(testPrefix))
        {
            continue;
        }
        const bool known = std::any_of(
            table.begin(),
            table.end(),
            [name](const Setting& setting) { return name == setting.name; }
        );
        if (known)
        {
            logger().debug("setting {}", text);
        }
        else
        {
            unknown.emplace_back(name);
        }
    }
    if (!unknown.empty() && rank == 0)
    {
        std::string names;
        for (const std::string& name : unknown)
        {
            names += (names.empty() ? "" : ", ") + name;
        }
        logger().warn(
            "set in the environment but not read by fieldsync: {} (misspelt? README.md, "
            "\"Settings\", lists the {} variables it reads)",
            names,
            table.size()
        );
    }
    return unknown;
}

bool checkMode()
{
    static const bool value = envBool("FIELDSYNC_CHECK", FIELDSYNC_CHECK_MODE_DEFAULT != 0);
    return value;
}

} // namespace fieldsync
