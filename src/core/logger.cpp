// SPDX-License-Identifier: MIT
#include "fieldsync/core/logger.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <array>
#include <atomic>
#include <string_view>

namespace fieldsync
{

namespace
{
void setRankPattern(spdlog::logger& log, int rank)
{
    log.set_pattern("[%n] [%l] [rank " + std::to_string(rank) + "] %v");
}
} // namespace

spdlog::logger& logger()
{
    static std::atomic<bool> rankKnown { false };
    static const std::shared_ptr<spdlog::logger> instance = []
    {
        auto existing = spdlog::get("fieldsync");
        if (existing)
        {
            return existing;
        }
        auto created = spdlog::stderr_color_mt("fieldsync");
        const std::string level = envString("FIELDSYNC_LOG_LEVEL", "warn");
        constexpr std::array<std::string_view, 7> known { "trace", "debug",    "info", "warn",
                                                          "error", "critical", "off" };
        bool valid { false };
        for (const auto name : known)
        {
            valid = valid || level == name;
        }
        created->set_level(valid ? spdlog::level::from_str(level) : spdlog::level::warn);
        setRankPattern(*created, worldRankOrMinusOne());
        if (!valid)
        {
            created->warn(
                "FIELDSYNC_LOG_LEVEL='{}' is not one of trace, debug, info, warn, error, "
                "critical, off; using warn",
                level
            );
        }
        return created;
    }();
    // A logger made before MPI_Init names rank -1: name the real rank once it is known.
    if (!rankKnown.load(std::memory_order_relaxed))
    {
        const int rank = worldRankOrMinusOne();
        if (rank >= 0)
        {
            setRankPattern(*instance, rank);
            rankKnown.store(true, std::memory_order_relaxed);
        }
    }
    return *instance;
}

} // namespace fieldsync
