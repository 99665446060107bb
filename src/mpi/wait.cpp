// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/wait.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"
#include "progress.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace fieldsync::mpi
{

WaitPolicy WaitPolicy::fromEnvironment()
{
    // both variables in one pass over the environment (a set-up reads them each time)
    constexpr std::array<const char*, 2> names { "FIELDSYNC_WAIT_TIMEOUT",
                                                 "FIELDSYNC_WAIT_TIMEOUT_ACTION" };
    std::array<const char*, 2> values {};
    envValues(names, values);
    WaitPolicy policy;
    policy.timeoutSeconds = envDouble(names[0], values[0], 60.0);
    // inf would never report, nan never compares: both would turn a hang back into a silent one
    FIELDSYNC_CHECK(
        std::isfinite(policy.timeoutSeconds) && policy.timeoutSeconds > 0.0,
        "environment variable FIELDSYNC_WAIT_TIMEOUT='" + std::string(values[0]) +
            "' is not a finite number of seconds greater than 0"
    );
    const char* action { values[1] };
    if (action == nullptr || action[0] == '\0' || std::strcmp(action, "warn") == 0)
    {
        return policy;
    }
    FIELDSYNC_CHECK(
        std::strcmp(action, "error") == 0,
        "FIELDSYNC_WAIT_TIMEOUT_ACTION='" + std::string(action) + "' is neither 'warn' nor 'error'"
    );
    policy.action = TimeoutAction::Error;
    return policy;
}

namespace detail
{
namespace
{
/** The launcher's count of this job's ranks on this node, or 0 when it does not say. */
long localRankCount()
{
    for (const char* name : { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS" })
    {
        const std::string value = envString(name, "");
        char* end { nullptr };
        const long count = std::strtol(value.c_str(), &end, 10);
        if (!value.empty() && *end == '\0' && count > 0)
        {
            return count;
        }
    }
    return 0;
}
} // namespace

bool waitYields()
{
    static const bool yields = []
    {
        if (!envString("FIELDSYNC_WAIT_YIELD", "").empty())
        {
            return envBool("FIELDSYNC_WAIT_YIELD", false); // an Error naming a bad value
        }
        // the node's cores, not this process's: a rank bound to one core has the core to itself
        const long cores = static_cast<long>(std::thread::hardware_concurrency());
        return cores > 0 && localRankCount() > cores;
    }();
    return yields;
}
} // namespace detail

namespace
{
// tests of the fast phase, back to back (no clock read between them)
constexpr int fastTests { 64 };

// FIELDSYNC_WAIT_SPIN_US, read once: how long a wait tests without pause before it yields
std::chrono::microseconds spinDuration()
{
    static const std::chrono::microseconds spin {
        static_cast<long>(std::max(0.0, envDouble("FIELDSYNC_WAIT_SPIN_US", 100.0)))
    };
    return spin;
}

constexpr const char* likelyCauses {
    "Likely causes: a peer rank used another key (or another operation, root or communicator), "
    "threw an error, or never made the call."
};
constexpr const char* warnOnly {
    "Still waiting; FIELDSYNC_WAIT_TIMEOUT_ACTION=error makes this an error (FIELDSYNC_CHECK=1 "
    "checks that the ranks agree before each collective)."
};

/** The head of a time-out report: what waits, where it was called, for how long. */
std::string timeoutReport(
    std::string_view kind,
    std::string_view name,
    const std::source_location& where,
    const char* waitedText,
    const WaitPolicy& policy
)
{
    char limit[32];
    std::snprintf(limit, sizeof(limit), "%g", policy.timeoutSeconds);
    return std::string(kind) + " '" + std::string(name) + "' (call site " + toString(where) +
           ") has waited " + waitedText + " s (FIELDSYNC_WAIT_TIMEOUT " + limit + " s) for ";
}
} // namespace

void waitWithTimeout(
    const std::function<bool()>& test,
    const std::function<std::string()>& describe,
    const WaitPolicy& policy,
    std::string_view kind,
    std::string_view name,
    const std::source_location& where,
    const std::function<void()>& listen
)
{
    using Clock = std::chrono::steady_clock;
    // The fast phase: the common case (the data is here) completes at the first test; a message
    // in the last steps of its protocol (a rendezvous: the peer's copy, then its
    // acknowledgement) at one of the next few. Back to back, with no clock read, callback or
    // yield: a few microseconds at most.
    for (int poll { 0 }; poll < fastTests; ++poll)
    {
        if (test())
        {
            return;
        }
    }
    const auto start = Clock::now();
    const auto spinFor = spinDuration();
    const bool yields = detail::waitYields();
    // Sleeping stalls MPI's progress on the messages in flight (a large message moves in
    // pieces, each started by a test): a wait that slept from 1 ms on made a 16 MiB exchange
    // six times slower than MPI_Waitall. So a wait yields (other processes still get the
    // core) for a second, and only a wait that long, for a late peer, sleeps between tests.
    const auto yieldFor = std::chrono::seconds { 1 };
    // The listener (an MPI_Iprobe for peers' notices) runs once a millisecond of waiting, not
    // per test: a notice only matters to a wait that does not complete (a failed peer).
    constexpr auto listenEvery = std::chrono::milliseconds { 1 };
    Clock::duration listenAt { listenEvery };
    auto sleep = std::chrono::microseconds { 10 };
    double reportAt { policy.timeoutSeconds };
    bool spinning { true };
    for (unsigned polls { 1 }; !test(); ++polls)
    {
        // while spinning, read the clock only every 8th test: a read costs as much as a test
        if (spinning && yields)
        {
            std::this_thread::yield(); // an oversubscribed node: the peer may need this core
        }
        if (spinning && polls % 8 != 0)
        {
            continue;
        }
        const auto waited = Clock::now() - start;
        if (waited < spinFor)
        {
            continue;
        }
        spinning = false;
        if (listen && waited >= listenAt)
        {
            listen();
            listenAt = waited + listenEvery;
        }
        const double seconds = std::chrono::duration<double>(waited).count();
        if (seconds >= reportAt)
        {
            char waitedText[32];
            std::snprintf(waitedText, sizeof(waitedText), "%.3g", seconds);
            const std::string message = timeoutReport(kind, name, where, waitedText, policy) +
                                        describe() + ". " + likelyCauses;
            if (policy.action == TimeoutAction::Error)
            {
                throw Error(message, where);
            }
            logger().warn("{} {}", message, warnOnly);
            reportAt *= 2.0;
        }
        if (waited < yieldFor)
        {
            std::this_thread::yield();
        }
        else
        {
            std::this_thread::sleep_for(sleep);
            sleep = std::min(sleep * 2, std::chrono::microseconds { 1000 });
        }
    }
}

} // namespace fieldsync::mpi
