// SPDX-License-Identifier: MIT
// The one wait of the library: every blocking wait goes through waitWithTimeout.
#pragma once

#include <functional>
#include <source_location>
#include <string>
#include <string_view>

namespace fieldsync::mpi
{

/** @brief What a wait does when it runs past its time-out. */
enum class TimeoutAction
{
    Warn, /**< log a warning (repeated with back-off) and keep waiting: the default */
    Error /**< throw a fieldsync::Error with the same text */
};

/**
 * @brief How long any blocking wait of the library may take before it reports, and what it
 * does then (halo exchanges, buffers, Request::wait, blocking collectives by fieldsync's
 * algorithms, the sparse exchange).
 *
 * The default comes from the environment: FIELDSYNC_WAIT_TIMEOUT (seconds, default 60) and
 * FIELDSYNC_WAIT_TIMEOUT_ACTION (`warn`, the default, or `error`). A Communicator or buffer may
 * override it with its own policy.
 */
struct WaitPolicy
{
    double timeoutSeconds { 60.0 };               /**< seconds before the first report */
    TimeoutAction action { TimeoutAction::Warn }; /**< warn and go on, or throw */

    /** @brief The policy the environment variables ask for (read on each call). */
    [[nodiscard]] static WaitPolicy fromEnvironment();
};

/**
 * @brief Waits until @p test returns true without hot-spinning: a short spin of MPI tests
 * (FIELDSYNC_WAIT_SPIN_US, default 100 us, read once per process; each test followed by
 * std::this_thread::yield where the node runs more ranks than it has cores, or as
 * FIELDSYNC_WAIT_YIELD says, read once per process: an Error names a bad value), then tests with
 * std::this_thread::yield up to 1 s (a sleep would stall MPI's progress on messages in flight),
 * then tests with sleeps that back off to 1 ms.
 *
 * After policy.timeoutSeconds it builds the report "<kind> '<name>' (call site <where>) has
 * waited N s for: <describe()>" and either logs it as a warning, repeated at 2x, 4x, ... the
 * time-out, or throws it as a fieldsync::Error (naming @p where), as @p policy says. The
 * operation stays in flight after the error and may be waited for again. Nothing is allocated
 * unless a report is made.
 *
 * @p listen, when given, is called between tests once the spin phase is over (never while
 * spinning, so a wait that completes at once pays nothing for it): it looks for news that the
 * operation cannot complete (a peer's notice that it left the exchange with an Error) and
 * throws to end the wait.
 */
void waitWithTimeout(
    const std::function<bool()>& test,
    const std::function<std::string()>& describe,
    const WaitPolicy& policy,
    std::string_view kind,
    std::string_view name,
    const std::source_location& where,
    const std::function<void()>& listen = {}
);

} // namespace fieldsync::mpi
