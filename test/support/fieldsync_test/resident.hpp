// SPDX-License-Identifier: MIT
// The resident memory of this process, for the tests that hold memory flat (soak, set-up churn).
#pragma once

#include <fstream>
#include <string>

namespace fieldsync::test
{

/** @brief VmRSS of this process in KiB (/proc/self/status); -1 where it cannot be read. */
inline long residentKiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
    {
        if (line.rfind("VmRSS:", 0) == 0)
        {
            return std::stol(line.substr(6));
        }
    }
    return -1;
}

} // namespace fieldsync::test
