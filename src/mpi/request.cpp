// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/request.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "requestState.hpp"

#include <exception>
#include <utility>
#include <vector>

namespace fieldsync::mpi
{

Request::Request() noexcept = default;

Request::Request(std::unique_ptr<detail::RequestState> state) noexcept : state_(std::move(state)) {}

Request::Request(Request&& other) noexcept = default;

Request& Request::operator=(Request&& other) noexcept
{
    if (this != &other)
    {
        abandon();
        state_ = std::move(other.state_);
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
    if (finalised)
    {
        logger().error(
            "fieldsync::mpi::Request of {} started at {} outlived MPI; its buffers are left "
            "allocated",
            state_->name,
            toString(state_->where)
        );
        static_cast<void>(state_.release()); // MPI may still own the memory: leak, never free
        return;
    }
    logger().error(
        "fieldsync::mpi::Request of {} started at {} was destroyed before it completed; waiting "
        "for it now",
        state_->name,
        toString(state_->where)
    );
    try
    {
        wait();
    }
    catch (const std::exception& error)
    {
        logger().error("fieldsync::mpi::Request: completing it failed: {}", error.what());
    }
}

void Request::wait()
{
    if (!state_)
    {
        return;
    }
    auto state = std::move(state_);
    const int rc = MPI_Wait(&state->request, MPI_STATUS_IGNORE);
    fieldsync::detail::checkMpi(rc, "MPI_Wait", state->where);
    state->finish();
}

bool Request::test()
{
    if (!state_)
    {
        return true;
    }
    int flag { 0 };
    const int rc = MPI_Test(&state_->request, &flag, MPI_STATUS_IGNORE);
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

std::source_location Request::where() const noexcept
{
    return state_ ? state_->where : std::source_location {};
}

std::pair<std::vector<MPI_Request>, std::vector<std::size_t>>
Request::activeHandles(std::span<Request> requests)
{
    std::pair<std::vector<MPI_Request>, std::vector<std::size_t>> result;
    for (std::size_t i = 0; i < requests.size(); ++i)
    {
        if (requests[i].state_)
        {
            result.first.push_back(requests[i].state_->request);
            result.second.push_back(i);
        }
    }
    return result;
}

void Request::waitAll(std::span<Request> requests)
{
    auto [handles, indices] = activeHandles(requests);
    if (handles.empty())
    {
        return;
    }
    const int rc =
        MPI_Waitall(static_cast<int>(handles.size()), handles.data(), MPI_STATUSES_IGNORE);
    const auto where = requests[indices.front()].state_->where;
    std::exception_ptr failure;
    for (std::size_t k = 0; k < indices.size(); ++k)
    {
        auto state = std::move(requests[indices[k]].state_);
        state->request = handles[k];
        if (rc == MPI_SUCCESS)
        {
            try
            {
                state->finish();
            }
            catch (...)
            {
                failure = failure ? failure : std::current_exception();
            }
        }
    }
    fieldsync::detail::checkMpi(rc, "MPI_Waitall", where);
    if (failure)
    {
        std::rethrow_exception(failure);
    }
}

std::size_t Request::waitAny(std::span<Request> requests)
{
    auto [handles, indices] = activeHandles(requests);
    if (handles.empty())
    {
        return requests.size();
    }
    int which { MPI_UNDEFINED };
    const int rc =
        MPI_Waitany(static_cast<int>(handles.size()), handles.data(), &which, MPI_STATUS_IGNORE);
    fieldsync::detail::checkMpi(rc, "MPI_Waitany", requests[indices.front()].state_->where);
    if (which == MPI_UNDEFINED)
    {
        return requests.size();
    }
    const std::size_t index = indices[static_cast<std::size_t>(which)];
    auto state = std::move(requests[index].state_);
    state->request = MPI_REQUEST_NULL;
    state->finish();
    return index;
}

} // namespace fieldsync::mpi
