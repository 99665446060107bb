// SPDX-License-Identifier: MIT
// Test support: run a call and keep the text of the fieldsync::Error it throws, if any.
#pragma once

#include "fieldsync/core/error.hpp"

#include <functional>
#include <optional>
#include <string>

namespace fieldsync::test
{

/** @brief Runs @p call; what() of the fieldsync::Error it throws, or nothing when it returns. */
inline std::optional<std::string> errorText(const std::function<void()>& call)
{
    try
    {
        call();
    }
    catch (const fieldsync::Error& error)
    {
        return std::string(error.what());
    }
    return std::nullopt;
}

} // namespace fieldsync::test
