// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/request.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "fieldsync/mpi/wait.hpp"
#include "progress.hpp"
#include "requestState.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>

namespace fieldsync::mpi
{

namespace
{
/** @brief "<operation> started at <call site>", for time-out reports. */
std::string describeRequest(const detail::RequestState& state)
{
    return std::string(state.name) + " started at " + toString(state.where);
}
} // namespace

Request::Request() noexcept = default;

Request::Request(
    std::unique_ptr<detail::RequestState> state, std::shared_ptr<const detail::BufferAccess> results
) noexcept
    : state_(std::move(state)), results_(std::move(results))
{
    if (state_)
    {
        state_->live.emplace("fieldsync::mpi::Request", state_->name, state_->where);
    }
}

Request::Request(Request&& other) noexcept = default;

Request& Request::operator=(Request&& other) noexcept
{
    if (this != &other)
    {
        abandon();
        state_ = std::move(other.state_);
        results_ = std::move(other.results_);
    }
    return *this;
}

Request::~Request()
{
    abandon();
}

void Request::abandon() noexcept
{
    if (!state_)
    {
        return;
    }
    int finalised { 0 };
    MPI_Finalized(&finalised);
    if (finalised || runtimeEnded())
    {
        // at exit the logger may already be gone (a Request in a static): plain stderr
        std::fprintf(
            stderr,
            "fieldsync: fieldsync::mpi::Request of %s started at %s outlived MPI; its buffers "
            "are left allocated\n",
            state_->name,
            toString(state_->where).c_str()
        );
        static_cast<void>(state_.release()); // MPI may still own the memory: leak, never free
        return;
    }
    // a destructor must not throw: the mistake is logged (at error level, with the call site)
    // and the request completed; in check mode it is also kept as an Error, raised by the next
    // collective call (or logged by MPIInit's destructor)
    logger().error(
        "fieldsync::mpi::Request of {} started at {} was destroyed before it completed; waiting "
        "for it now{}",
        state_->name,
        toString(state_->where),
        checkMode() ? " (check mode: an error of the program, raised by the next collective; "
                      "wait() or test() every request before it goes)"
                    : ""
    );
    if (checkMode())
    {
        deferError(std::string("fieldsync::mpi::Request of ")
                       .append(state_->name)
                       .append(" started at ")
                       .append(toString(state_->where))
                       .append(" was destroyed before it completed (wait() or test() every request)"
                       ));
    }
    try
    {
        wait();
    }
    catch (const std::exception& error)
    {
        logger().error("fieldsync::mpi::Request: completing it failed: {}", error.what());
        // a time-out error leaves the operation in flight: MPI may still own the memory
        static_cast<void>(state_.release());
    }
}

void Request::wait()
{
    if (detail::progressFor100ms([this] { return test(); }))
    {
        return;
    }
    // test() keeps the state until MPI says the operation is done, so a time-out error leaves
    // the operation in flight, to be waited for again
    const detail::RequestState& state { *state_ };
    const std::source_location where { state.where }; // state is freed once the test succeeds
    waitWithTimeout(
        [this] { return test(); },
        [&state] { return std::string("every rank to join ").append(describeRequest(state)); },
        WaitPolicy::fromEnvironment(),
        "fieldsync::mpi::Request",
        state.name,
        where
    );
}

bool Request::test()
{
    if (!state_)
    {
        return true;
    }
    int finalised { 0 };
    if (!detail::mpiKnownRunning()) // MPI_Finalized costs a lock; after the first call, a load
    {
        MPI_Finalized(&finalised);
    }
    FIELDSYNC_CHECK_AT(
        !finalised,
        std::string(state_->name) + ": the Request was tested or waited for after MPI was "
                                    "finalised; complete requests before the MPIInit ends",
        state_->where
    );
    int flag { 0 };
    int rc { MPI_SUCCESS };
    if (state_->scheduled)
    {
        flag = state_->schedule.test() ? 1 : 0;
    }
    else
    {
        rc = MPI_Test(&state_->request, &flag, MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS)
    {
        auto state = std::move(state_);
        fieldsync::detail::checkMpi(rc, "MPI_Test", state->where);
    }
    if (flag == 0)
    {
        return false;
    }
    auto state = std::move(state_);
    state->finish();
    return true;
}

bool Request::active() const noexcept
{
    return state_ != nullptr;
}

const void* Request::instance(const std::type_info& type, const std::source_location& where) const
{
    const void* found { results_ ? results_->instance(type) : nullptr };
    FIELDSYNC_CHECK_AT(
        found != nullptr,
        std::string("Request::readyOn: the call was given no execution space instance of type ")
            .append(type.name())
            .append(" (a device form names one with withExecutionSpace; a host form or a barrier "
                    "has none)"),
        where
    );
    return found;
}

std::source_location Request::where() const noexcept
{
    return state_ ? state_->where : std::source_location {};
}

void Request::waitAll(std::span<Request> requests)
{
    // each poll tests every active request in place: completed ones are finished (staged
    // results copied back) at once, the others stay active, so nothing is allocated and a
    // time-out error leaves the incomplete ones to be waited for again
    std::exception_ptr failure;
    const auto testAll = [&requests, &failure]
    {
        bool all { true };
        for (Request& request : requests)
        {
            try
            {
                all = request.test() && all;
            }
            catch (...)
            {
                failure = failure ? failure : std::current_exception();
            }
        }
        return all;
    };
    if (!detail::progressFor100ms(testAll))
    {
        waitForRequests(requests, testAll, "waitAll");
    }
    if (failure)
    {
        std::rethrow_exception(failure);
    }
}

std::size_t Request::waitAny(std::span<Request> requests)
{
    std::size_t index { requests.size() };
    const auto testAny = [&requests, &index]
    {
        bool anyActive { false };
        for (std::size_t i { 0 }; i < requests.size(); ++i)
        {
            if (requests[i].active())
            {
                anyActive = true;
                if (requests[i].test())
                {
                    index = i;
                    return true;
                }
            }
        }
        return !anyActive;
    };
    if (!detail::progressFor100ms(testAny))
    {
        waitForRequests(requests, testAny, "waitAny");
    }
    return index;
}

void Request::waitForRequests(
    std::span<Request> requests, const std::function<bool()>& test, const char* operation
)
{
    // the report names the first request still active: its operation and its call site (both
    // copied: that request may complete while others are still waited for)
    const auto first = std::find_if(
        requests.begin(), requests.end(), [](const Request& request) { return request.active(); }
    );
    const char* name { first->state_->name };
    const std::source_location where { first->state_->where };
    waitWithTimeout(
        test,
        [requests, operation]
        {
            std::string text { std::string(operation) + " of these incomplete requests:" };
            for (const Request& request : requests)
            {
                if (request.active())
                {
                    text.append(" ").append(describeRequest(*request.state_)).append(";");
                }
            }
            return text;
        },
        WaitPolicy::fromEnvironment(),
        "fieldsync::mpi::Request",
        name,
        where
    );
}

} // namespace fieldsync::mpi
