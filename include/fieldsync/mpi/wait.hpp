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
 * @brief Waits until @p test returns true without hot-spinning, in phases: a fast phase of 64
 * tests back to back (no clock read, callback or yield: a wait whose data is here ends at its
 * first test, so a small exchange makes one MPI test), a spin of tests up to
 * FIELDSYNC_WAIT_SPIN_US (default 100 us, read once per process; each test followed by
 * std::this_thread::yield where the node runs more ranks than it has cores, or as
 * FIELDSYNC_WAIT_YIELD says, read once per process: an Error names a bad value), then tests with
 * std::this_thread::yield up to 1 s (a sleep would stall MPI's progress on messages in flight),
 * then tests with sleeps that back off to 1 ms.
 *
 * It never blocks inside MPI (MPI_Waitall): MPI has no wait with a time-out, and a blocking call
 * would turn a peer that never comes into a silent hang; so past the fast phase it keeps
 * testing, and the time-out below holds.
 *
 * After policy.timeoutSeconds it builds the report "<kind> '<name>' (call site <where>) has
 * waited N s for: <describe()>" and either logs it as a warning, repeated at 2x, 4x, ... the
 * time-out, or throws it as a fieldsync::Error (naming @p where), as @p policy says. The
 * operation stays in flight after the error and may be waited for again. Nothing is allocated
 * unless a report is made.
 *
 * @p listen, when given, is called between tests once the wait has lasted 1 ms, then at most
 * once per further millisecond (never in the fast or spin phase, so a wait that completes soon
 * pays nothing for it): it looks for news that the operation cannot complete (a peer's notice
 * that it left the exchange with an Error) and throws to end the wait.
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
