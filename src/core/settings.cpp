// SPDX-License-Identifier: MIT
#include "fieldsync/core/settings.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <unistd.h> // environ

namespace fieldsync
{

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

bool checkMode()
{
    static const bool value = envBool("FIELDSYNC_CHECK", FIELDSYNC_CHECK_MODE_DEFAULT != 0);
    return value;
}

} // namespace fieldsync
