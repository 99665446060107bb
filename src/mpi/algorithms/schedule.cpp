// SPDX-License-Identifier: MIT
// Running a schedule: post a round, complete it, check what arrived, run its combines, post the
// next. Its messages travel on the private duplicate of the caller's communicator, with one tag
// of the library's allocator (mpi/detail/privateComm.hpp).
#include "scheduleState.hpp"

#include "../progress.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <exception>
#include <string>

namespace fieldsync::mpi::algorithms
{

ScratchBlock ScratchPool::take(std::size_t bytes)
{
    {
        const std::lock_guard lock(mutex_);
        // the smallest kept block that is large enough
        auto best = free_.end();
        for (auto it = free_.begin(); it != free_.end(); ++it)
        {
            if (it->capacity >= bytes && (best == free_.end() || it->capacity < best->capacity))
            {
                best = it;
            }
        }
        if (best != free_.end())
        {
            ScratchBlock block = std::move(*best);
            free_.erase(best);
            return block;
        }
    }
    const std::size_t capacity = std::max<std::size_t>(bytes, 64);
    return ScratchBlock { std::make_unique_for_overwrite<std::byte[]>(capacity), capacity };
}

void ScratchPool::give(ScratchBlock block)
{
    const std::lock_guard lock(mutex_);
    free_.push_back(std::move(block));
    if (free_.size() > maxKept)
    {
        // drop the smallest: large blocks are the ones worth keeping
        const auto smallest = std::min_element(
            free_.begin(),
            free_.end(),
            [](const ScratchBlock& a, const ScratchBlock& b) { return a.capacity < b.capacity; }
        );
        free_.erase(smallest);
    }
}

ScratchPool& scratchPool()
{
    static ScratchPool pool;
    return pool;
}

ScheduleState::ScheduleState(const Context& context, const TypeDesc& type, MPI_Op op)
    : type_(type), op_(op), where_(context.where), name_(context.name ? context.name : "collective")
{
    FIELDSYNC_CHECK_AT(
        context.comm != MPI_COMM_NULL,
        "fieldsync::mpi::algorithms: the communicator is MPI_COMM_NULL",
        where_
    );
    comm_ = detail::privateComm(context.comm, where_);
    tag_ = detail::takeTags(comm_, 1, where_);
    FIELDSYNC_MPI_AT(MPI_Comm_rank(comm_, &rank_), where_);
    FIELDSYNC_MPI_AT(MPI_Comm_size(comm_, &size_), where_);
    if (op_ != MPI_OP_NULL)
    {
        int commute { 1 };
        FIELDSYNC_MPI_AT(MPI_Op_commutative(op_, &commute), where_);
        commutative_ = commute != 0;
    }
    // room for a typical schedule, so building one reallocates rarely
    rounds_.reserve(16);
    transfers_.reserve(16);
    combines_.reserve(16);
    requests_.reserve(static_cast<std::size_t>(std::min(size_, 16)));
}

std::byte* ScheduleState::at(const void* base, std::size_t values) const
{
    return static_cast<std::byte*>(const_cast<void*>(base)) + values * type_.bytes;
}

std::byte* ScheduleState::scratch(std::size_t values)
{
    ScratchBlock& block = scratch_.emplace_back(scratchPool().take(values * type_.bytes));
    return block.data.get();
}

ScheduleState::~ScheduleState()
{
    for (ScratchBlock& block : scratch_)
    {
        scratchPool().give(std::move(block));
    }
}

ScheduleState& ScheduleState::newRound()
{
    rounds_.push_back({ transfers_.size(), combines_.size() });
    return *this;
}

Round& ScheduleState::openRound()
{
    return rounds_.empty() ? rounds_.emplace_back() : rounds_.back();
}

ScheduleState& ScheduleState::transfer(const Transfer& t)
{
    Round& round = openRound();
    transfers_.push_back(t);
    round.transfersEnd = transfers_.size();
    return *this;
}

ScheduleState& ScheduleState::combine(const Combine& c)
{
    Round& round = openRound();
    combines_.push_back(c);
    round.combinesEnd = combines_.size();
    return *this;
}

void ScheduleState::copy(const void* from, void* to, std::size_t values)
{
    if (from != to && values > 0)
    {
        newRound().combine({ CombineKind::Copy,
                             static_cast<const std::byte*>(from),
                             static_cast<std::byte*>(to),
                             values });
    }
}

void ScheduleState::post()
{
    requests_.clear();
    const std::size_t first = current_ == 0 ? 0 : rounds_[current_ - 1].transfersEnd;
    for (std::size_t i = first; i < rounds_[current_].transfersEnd; ++i)
    {
        const Transfer& t = transfers_[i];
        const std::size_t elements = t.values * static_cast<std::size_t>(type_.multiplicity);
        FIELDSYNC_CHECK_AT(
            elements <= static_cast<std::size_t>(INT_MAX),
            "fieldsync::mpi::algorithms: a message of " + std::to_string(t.values) +
                " values exceeds what MPI takes in one call (INT_MAX elements)",
            where_
        );
        const int count = static_cast<int>(elements);
        MPI_Request& request = requests_.emplace_back(MPI_REQUEST_NULL);
        const int rc =
            t.isSend ? MPI_Isend(t.data, count, type_.datatype, t.peer, tag_, comm_, &request)
                     : MPI_Irecv(t.data, count, type_.datatype, t.peer, tag_, comm_, &request);
        fieldsync::detail::checkMpi(rc, t.isSend ? "MPI_Isend" : "MPI_Irecv", where_);
    }
    posted_ = true;
}

void ScheduleState::checkArrivals() const
{
    const std::size_t first = current_ == 0 ? 0 : rounds_[current_ - 1].transfersEnd;
    for (std::size_t i = first; i < rounds_[current_].transfersEnd; ++i)
    {
        const Transfer& t = transfers_[i];
        if (!t.isSend)
        {
            const std::size_t elements = t.values * static_cast<std::size_t>(type_.multiplicity);
            detail::checkReceived(statuses_[i - first], type_.datatype, elements, name_, where_);
        }
    }
}

void ScheduleState::runCombines(std::size_t first, std::size_t end) const
{
    for (std::size_t i = first; i < end; ++i)
    {
        const Combine& c = combines_[i];
        if (c.kind == CombineKind::Copy)
        {
            std::memcpy(c.inout, c.in, c.values * type_.bytes);
            continue;
        }
        const int count = static_cast<int>(c.values * static_cast<std::size_t>(type_.multiplicity));
        FIELDSYNC_MPI_AT(MPI_Reduce_local(c.in, c.inout, count, type_.datatype, op_), where_);
    }
}

bool ScheduleState::progress()
{
    while (current_ < rounds_.size())
    {
        if (!posted_)
        {
            post();
        }
        int done { 0 };
        const int n = static_cast<int>(requests_.size());
        statuses_.resize(requests_.size());
        FIELDSYNC_MPI_AT(MPI_Testall(n, requests_.data(), &done, statuses_.data()), where_);
        if (done == 0)
        {
            return false;
        }
        checkArrivals();
        runCombines(
            current_ == 0 ? 0 : rounds_[current_ - 1].combinesEnd, rounds_[current_].combinesEnd
        );
        ++current_;
        posted_ = false;
    }
    return true;
}

Schedule::Schedule() noexcept = default;

Schedule::Schedule(std::unique_ptr<ScheduleState> state) : state_(std::move(state))
{
    if (state_ && state_->progress())
    {
        state_.reset();
    }
}

Schedule::Schedule(Schedule&& other) noexcept = default;

Schedule& Schedule::operator=(Schedule&& other) noexcept
{
    if (this != &other)
    {
        Schedule old(std::move(*this));
        state_ = std::move(other.state_);
    }
    return *this;
}

Schedule::~Schedule()
{
    if (!state_)
    {
        return;
    }
    int finalised { 0 };
    MPI_Finalized(&finalised);
    if (finalised)
    {
        static_cast<void>(state_.release()); // MPI may still own the memory: leak, never free
        return;
    }
    if (state_->waitFailed())
    {
        // a second wait would only time out again (or block for good under action warn)
        logger().warn(
            "fieldsync::mpi::algorithms::Schedule started at {} was destroyed after its wait "
            "ended in an Error; its messages are left to MPI and its memory is never freed",
            fieldsync::toString(state_->where())
        );
        static_cast<void>(state_.release());
        return;
    }
    logger().error(
        "fieldsync::mpi::algorithms::Schedule started at {} was destroyed before it completed; "
        "waiting for it now",
        fieldsync::toString(state_->where())
    );
    try
    {
        wait();
    }
    catch (const std::exception& error)
    {
        logger().error(
            "fieldsync::mpi::algorithms::Schedule: completing it failed: {}", error.what()
        );
        static_cast<void>(state_.release());
    }
}

bool Schedule::test()
{
    if (state_ && state_->progress())
    {
        state_.reset();
    }
    return !state_;
}

void Schedule::wait()
{
    const auto testOnce = [this]
    {
        return test();
    };
    if (detail::progressFor100ms(testOnce))
    {
        return;
    }
    // test() frees the state on completion: the report keeps its own copy of the call site
    const std::source_location where { state_->where() };
    const char* name { state_->name() };
    try
    {
        waitWithTimeout(
            testOnce,
            [where, name] {
                return std::string("every rank to join ") + name + " started at " + toString(where);
            },
            WaitPolicy::fromEnvironment(),
            "fieldsync::mpi::algorithms::Schedule",
            name,
            where
        );
    }
    catch (...)
    {
        if (state_)
        {
            state_->markWaitFailed();
        }
        throw;
    }
}

} // namespace fieldsync::mpi::algorithms
