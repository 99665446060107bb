// SPDX-License-Identifier: MIT
#include "fieldsync/core/logger.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace fieldsync
{

spdlog::logger& logger()
{
    static const std::shared_ptr<spdlog::logger> instance = []
    {
        auto existing = spdlog::get("fieldsync");
        if (existing)
        {
            return existing;
        }
        auto created = spdlog::stderr_color_mt("fieldsync");
        const std::string level = envString("FIELDSYNC_LOG_LEVEL", "warn");
        created->set_level(spdlog::level::from_str(level));
        created->set_pattern("[%n] [%l] [rank " + std::to_string(worldRankOrMinusOne()) + "] %v");
        return created;
    }();
    return *instance;
}

} // namespace fieldsync
