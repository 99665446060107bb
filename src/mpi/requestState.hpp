// SPDX-License-Identifier: MIT
// Private to src/mpi: what a Request owns while its operation runs.
#pragma once

#include <any>
#include <cstddef>
#include <functional>
#include <source_location>
#include <vector>

#include <mpi.h>

namespace fieldsync::mpi::detail
{

/** @brief Everything an operation needs until it completes. */
struct RequestState
{
    MPI_Request request { MPI_REQUEST_NULL }; /**< the MPI request (null once complete) */
    const char* name { "" };                  /**< public name of the operation */
    std::source_location where {};            /**< the user's call site */
    std::vector<std::byte> hostSend;          /**< staging buffer for the send side */
    std::vector<std::byte> hostRecv;          /**< staging buffer for the receive side */
    std::vector<int> sendCounts;              /**< MPI counts (elements of the datatype) */
    std::vector<int> sendDispls;              /**< MPI displacements */
    std::vector<int> recvCounts;              /**< MPI counts */
    std::vector<int> recvDispls;              /**< MPI displacements */
    std::function<void(const void*, std::size_t)> fromHost; /**< staged result copy-back */
    std::size_t outCount { 0 };                             /**< values copied back */
    std::any keepSend;                                      /**< keeps the send view alive */
    std::any keepRecv;                                      /**< keeps the receive view alive */
    /** fieldsync's own algorithm in flight: sets *flag once complete, returns the MPI code */
    std::function<int(int*)> progress;

    /** @brief After MPI completed: copies staged results back and releases everything. */
    void finish()
    {
        if (fromHost && outCount > 0)
        {
            fromHost(hostRecv.data(), outCount);
        }
        fromHost = nullptr;
        progress = nullptr;
        hostSend = {};
        hostRecv = {};
        keepSend.reset();
        keepRecv.reset();
    }
};

} // namespace fieldsync::mpi::detail
