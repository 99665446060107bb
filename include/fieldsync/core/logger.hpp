// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include <spdlog/spdlog.h>

namespace fieldsync
{

/**
 * @brief The `fieldsync` spdlog logger (stderr, colour), created on first use.
 *
 * Its level comes from FIELDSYNC_LOG_LEVEL (trace, debug, info, warn, error, critical, off;
 * default warn). Each line carries the world rank. Applications may replace its sinks or
 * level through spdlog as with any named logger.
 */
[[nodiscard]] spdlog::logger& logger();

} // namespace fieldsync
