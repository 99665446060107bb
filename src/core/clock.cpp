// SPDX-License-Identifier: MIT
#include "fieldsync/core/clock.hpp"

#include <chrono>
#include <fstream>
#include <string>

namespace fieldsync
{

namespace
{
#if defined(__x86_64__)
// the time-stamp counter (GNU inline assembly: no intrinsics header, which nvcc may reject)
inline std::uint64_t readTsc() noexcept
{
    std::uint32_t low { 0 };
    std::uint32_t high { 0 };
    asm volatile("rdtsc" : "=a"(low), "=d"(high));
    return (static_cast<std::uint64_t>(high) << 32U) | low;
}
#endif
} // namespace

std::int64_t telemetryTicks(bool tsc) noexcept
{
#if defined(__x86_64__)
    if (tsc)
    {
        return static_cast<std::int64_t>(readTsc());
    }
#else
    (void)tsc;
#endif
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
        if (source >> name && name == "tsc")
        {
            using Steady = std::chrono::steady_clock;
            const auto t0 = Steady::now();
            const auto c0 = readTsc();
            auto t1 = t0;
            while (t1 - t0 < std::chrono::milliseconds { 2 })
            {
                t1 = Steady::now();
            }
            const auto c1 = readTsc();
            const double seconds = std::chrono::duration<double>(t1 - t0).count();
            if (c1 > c0 && seconds > 0.0)
            {
                chosen.tsc = true;
                chosen.secondsPerTick = seconds / static_cast<double>(c1 - c0);
            }
        }
#endif
        return chosen;
    }();
    return clock;
}

} // namespace fieldsync
