// SPDX-License-Identifier: MIT
#include "fieldsync/core/faults.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"

#include <chrono>
#include <string>
#include <thread>

#include <mpi.h>

namespace fieldsync
{

using detail::FaultSettings;

namespace
{
FaultSettings parse(const std::string& text)
{
    FaultSettings settings;
    if (text.empty())
    {
        return settings;
    }
    std::size_t at { 0 };
    bool seeded { false };
    while (at <= text.size())
    {
        const std::size_t end = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, end - at);
        const std::size_t colon = item.find(':');
        FIELDSYNC_CHECK(
            colon != std::string::npos,
            "FIELDSYNC_FAULTS='" + text + "': '" + item + "' is not name:value"
        );
        const std::string name = item.substr(0, colon);
        const std::string value = item.substr(colon + 1);
        try
        {
            if (name == "seed")
            {
                settings.seed = std::stoull(value);
                seeded = true;
            }
            else
            {
                const double p = std::stod(value);
                FIELDSYNC_CHECK(p >= 0.0 && p <= 1.0, "a probability is in [0, 1]");
                double* target = name == "delay"     ? &settings.delay
                                 : name == "early"   ? &settings.early
                                 : name == "staging" ? &settings.staging
                                 : name == "order"   ? &settings.order
                                 : name == "corrupt" ? &settings.corrupt
                                                     : nullptr;
                FIELDSYNC_CHECK(target != nullptr, "unknown fault '" + name + "'");
                *target = p;
            }
        }
        catch (const std::exception& e)
        {
            throw Error("FIELDSYNC_FAULTS='" + text + "': '" + item + "': " + e.what());
        }
        at = end + 1;
    }
    FIELDSYNC_CHECK(seeded, "FIELDSYNC_FAULTS='" + text + "' names no seed (seed:N)");
    settings.on = true;
    return settings;
}

/** @brief splitmix64 state of this process: the seed mixed with the rank in world. */
std::uint64_t& state() noexcept
{
    thread_local std::uint64_t value = []
    {
        int rank { 0 };
        int initialised { 0 };
        MPI_Initialized(&initialised);
        if (initialised != 0)
        {
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        }
        return faultSettings().seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(rank);
    }();
    return value;
}

std::uint64_t next() noexcept
{
    std::uint64_t x = (state() += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
} // namespace

const FaultSettings& faultSettings()
{
    static const FaultSettings settings = parse(envString("FIELDSYNC_FAULTS", ""));
    return settings;
}

bool detail::faultsOn()
{
    return faultSettings().on;
}

bool detail::faultDraw(double probability) noexcept
{
    return static_cast<double>(next() >> 11) * 0x1.0p-53 < probability;
}

void faultDelay() noexcept
{
    std::this_thread::sleep_for(std::chrono::microseconds { 1 + next() % 200 });
}

} // namespace fieldsync
