// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <source_location>
#include <span>
#include <typeinfo>

#include <mpi.h>

namespace fieldsync::mpi
{

namespace detail
{
struct RequestState;
class BufferAccess;
} // namespace detail

/**
 * @brief A non-blocking collective in flight (returned by iAllReduce, iBroadcast, ...).
 *
 * Owns everything the operation needs until it completes: the MPI request, host staging
 * buffers, count and displacement arrays, and a reference to each Kokkos view involved.
 * Completion (wait(), a test() that returns true, waitAll, waitAny) also copies staged results
 * back into the user's memory. Movable, not copyable. Destroying a Request that was never
 * completed logs an error naming the call site that started it and then waits for it, so memory
 * is never released under MPI's feet.
 *
 * A device form (one given an execution space instance, withExecutionSpace) also names the
 * instance its results are ready on: readyOn().
 */
class Request
{
public:
    /** @brief An empty request: complete, wait() returns at once. */
    Request() noexcept;

    /**
     * @brief Takes over a started operation (used by the collectives), and for a device form the
     * access to its result buffer, which names the instance the results are ready on.
     */
    explicit Request(
        std::unique_ptr<detail::RequestState> state,
        std::shared_ptr<const detail::BufferAccess> results = {}
    ) noexcept;

    Request(const Request&) = delete;
    Request& operator=(const Request&) = delete;

    /** @brief Moves the operation; @p other becomes empty. */
    Request(Request&& other) noexcept;

    /** @brief Completes (logging an error, as the destructor does) any operation held, then moves.
     */
    Request& operator=(Request&& other) noexcept;

    /** @brief Waits for an uncompleted operation after logging an error naming its call site. */
    ~Request();

    /**
     * @brief Blocks until the operation is complete and its results are in the user's memory.
     * Waits through waitWithTimeout with WaitPolicy::fromEnvironment(): past
     * FIELDSYNC_WAIT_TIMEOUT it warns or throws an Error naming the operation and the call site
     * that started it; after an error the operation stays in flight and may be waited for again.
     */
    void wait();

    /** @brief Completes the operation if MPI says it is done; true when complete (or empty). */
    [[nodiscard]] bool test();

    /** @brief Whether an operation is held and not yet completed. */
    [[nodiscard]] bool active() const noexcept;

    /**
     * @brief The execution space instance on which the results of a device form are ready: the
     * instance the call was given (withExecutionSpace). Once the request has completed (wait(),
     * a test() that returned true, waitAll, waitAny), work enqueued on it sees the results: a
     * staged result was copied back by a copy enqueued on this instance, and no other instance
     * was fenced. Work enqueued on it before completion may run before the results are there:
     * MPI completes on the host, in those calls. Valid before and after completion.
     * @throws Error naming @p where when the call was given no instance of type ExecutionSpace
     * (a host form, a barrier, or an instance of another type).
     */
    template<typename ExecutionSpace>
    [[nodiscard]] ExecutionSpace
    readyOn(const std::source_location& where = std::source_location::current()) const
    {
        return *static_cast<const ExecutionSpace*>(instance(typeid(ExecutionSpace), where));
    }

    /** @brief The call site that started the operation (empty location for an empty request). */
    [[nodiscard]] std::source_location where() const noexcept;

    /** @brief Completes every request (tests the active ones in place, waiting as wait() does).
     */
    static void waitAll(std::span<Request> requests);

    /**
     * @brief Completes one active request and returns its index, or requests.size() when none
     * is active (waiting as wait() does).
     */
    static std::size_t waitAny(std::span<Request> requests);

private:
    void abandon() noexcept; /**< complete in the destructor / move assignment, logging */

    /** @brief Polls @p test through waitWithTimeout; a report names @p operation and the first
     * active request's operation and call site. */
    static void waitForRequests(
        std::span<Request> requests, const std::function<bool()>& test, const char* operation
    );

    /** @brief The instance of @p type that readyOn() returns; throws an Error when none. */
    [[nodiscard]] const void*
    instance(const std::type_info& type, const std::source_location& where) const;

    std::unique_ptr<detail::RequestState> state_;         /**< the operation, null when empty */
    std::shared_ptr<const detail::BufferAccess> results_; /**< a device form's result buffer */
};

} // namespace fieldsync::mpi
