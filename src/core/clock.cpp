// SPDX-License-Identifier: MIT
#include "fieldsync/core/clock.hpp"

#include <chrono>
#include <fstream>
#include <string>

namespace fieldsync
{

using detail::TelemetryClock;

std::int64_t steadyTicks() noexcept
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch()
    )
        .count();
}

const TelemetryClock& telemetryClock()
{
    static const TelemetryClock clock = []
    {
        TelemetryClock chosen;
#if defined(__x86_64__)
        std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
        std::string name;
        chosen.tsc = static_cast<bool>(source >> name) && name == "tsc";
#endif
        chosen.anchorNanoseconds = telemetryTicks(false);
        chosen.anchorTicks = telemetryTicks(chosen.tsc);
        return chosen;
    }();
    return clock;
}

double telemetrySecondsPerTick()
{
    static const double secondsPerTick = []
    {
        const TelemetryClock& clock = telemetryClock();
        if (!clock.tsc)
        {
            return 1e-9;
        }
        constexpr std::int64_t minimumNanoseconds { 1'000'000 };
        std::int64_t nanoseconds { telemetryTicks(false) };
        while (nanoseconds - clock.anchorNanoseconds < minimumNanoseconds)
        {
            nanoseconds = telemetryTicks(false);
        }
        const std::int64_t ticks { telemetryTicks(true) - clock.anchorTicks };
        return ticks > 0 ? static_cast<double>(nanoseconds - clock.anchorNanoseconds) * 1e-9 /
                               static_cast<double>(ticks)
                         : 1e-9;
    }();
    return secondsPerTick;
}

} // namespace fieldsync
