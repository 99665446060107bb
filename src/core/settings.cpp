// SPDX-License-Identifier: MIT
#include "fieldsync/core/settings.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

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
    const std::string value = envString(name, "");
    if (value.empty())
    {
        return fallback;
    }
    char* end { nullptr };
    const double parsed = std::strtod(value.c_str(), &end);
    FIELDSYNC_CHECK(
        end != nullptr && *end == '\0',
        std::string("environment variable ") + name + "='" + value + "' is not a number"
    );
    return parsed;
}

bool checkMode()
{
    static const bool value = envBool("FIELDSYNC_CHECK", FIELDSYNC_CHECK_MODE_DEFAULT != 0);
    return value;
}

} // namespace fieldsync
