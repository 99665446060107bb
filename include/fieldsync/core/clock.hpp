// SPDX-License-Identifier: MIT
// The telemetry clock: cheap time stamps for per-exchange statistics.
#pragma once

#include <cstdint>

namespace fieldsync
{

namespace detail
{
/** @brief The telemetry clock of this process: whether it is the TSC, and where it started. */
struct TelemetryClock
{
    bool tsc { false };                   /**< ticks are time-stamp counter cycles */
    std::int64_t anchorTicks { 0 };       /**< a tick count read when the clock was chosen */
    std::int64_t anchorNanoseconds { 0 }; /**< steady_clock at the same moment */
};
} // namespace detail

/**
 * @brief The telemetry clock, chosen once per process without a calibration loop: the x86-64
 * time-stamp counter when the kernel's clock source is "tsc" (invariant and synchronised across
 * cores, as the kernel checked), steady_clock nanoseconds elsewhere. Records an anchor (a tick
 * count and steady_clock read together) for telemetrySecondsPerTick().
 */
const detail::TelemetryClock& telemetryClock();

/**
 * @brief Seconds per telemetry tick, computed once per process on the first call (1e-9 for
 * steady_clock; for the time-stamp counter, the ticks against steady_clock since the anchor of
 * telemetryClock()). Only reading statistics calls it, never an exchange; when called less than
 * a millisecond after the anchor it first waits until one has passed.
 */
double telemetrySecondsPerTick();

/** @brief steady_clock nanoseconds (telemetryTicks without the time-stamp counter). */
std::int64_t steadyTicks() noexcept;

/**
 * @brief A telemetry time stamp: rdtsc when @p tsc, else steady_clock nanoseconds. Inline: an
 * exchange takes several (GNU inline assembly, not an intrinsics header, which nvcc may reject).
 */
inline std::int64_t telemetryTicks(bool tsc) noexcept
{
#if defined(__x86_64__)
    if (tsc)
    {
        std::uint32_t low { 0 };
        std::uint32_t high { 0 };
        asm volatile("rdtsc" : "=a"(low), "=d"(high));
        return static_cast<std::int64_t>((static_cast<std::uint64_t>(high) << 32U) | low);
    }
#else
    static_cast<void>(tsc);
#endif
    return steadyTicks();
}

} // namespace fieldsync
