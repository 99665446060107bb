// SPDX-License-Identifier: MIT
// The telemetry clock: cheap time stamps for per-exchange statistics.
#pragma once

#include <cstdint>

namespace fieldsync
{

/** @brief The telemetry clock of this process: whether it is the TSC, and seconds per tick. */
struct TelemetryClock
{
    bool tsc { false };             /**< ticks are time-stamp counter cycles */
    double secondsPerTick { 1e-9 }; /**< steady_clock nanoseconds otherwise */
};

/**
 * @brief The telemetry clock, chosen and calibrated once per process: the x86-64 time-stamp
 * counter when the kernel's clock source is "tsc" (invariant and synchronised across cores, as
 * the kernel checked), calibrated against steady_clock over 2 ms; steady_clock elsewhere.
 */
const TelemetryClock& telemetryClock();

/** @brief A telemetry time stamp: rdtsc when @p tsc, else steady_clock nanoseconds. */
std::int64_t telemetryTicks(bool tsc) noexcept;

} // namespace fieldsync
