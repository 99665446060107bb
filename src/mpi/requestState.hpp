// SPDX-License-Identifier: MIT
// Private to src/mpi: what a Request owns while its operation runs.
#pragma once

#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/mpi/algorithms.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "fieldsync/mpi/stagingBytes.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <source_location>
#include <vector>

#include <mpi.h>

namespace fieldsync::mpi::detail
{

/** @brief True once fieldsync has seen MPI running and MPI_Finalize has not begun (one load;
 * false means "ask MPI"). Kept by requireMpiRunning (collectiveCall.cpp). */
[[nodiscard]] bool mpiKnownRunning() noexcept;

/** @brief Everything an operation needs until it completes. */
struct RequestState
{
    MPI_Request request { MPI_REQUEST_NULL };     /**< the MPI request (null once complete) */
    const char* name { "" };                      /**< public name of the operation */
    std::source_location where {};                /**< the user's call site */
    StagingBytes hostSend;                        /**< staging buffer for the send side */
    StagingBytes hostRecv;                        /**< staging buffer for the receive side */
    std::vector<int> sendCounts;                  /**< MPI counts (elements of the datatype) */
    std::vector<int> sendDispls;                  /**< MPI displacements */
    std::vector<int> recvCounts;                  /**< MPI counts */
    std::vector<int> recvDispls;                  /**< MPI displacements */
    std::shared_ptr<const BufferAccess> copyBack; /**< copies staged results back */
    std::size_t outCount { 0 };                   /**< values copied back */
    KeptAllocation keepSend;                      /**< keeps the send view alive */
    KeptAllocation keepRecv;                      /**< keeps the receive view alive */
    algorithms::Schedule schedule;                /**< fieldsync's own algorithm in flight */
    bool scheduled { false };                     /**< schedule, not request, is the operation */
    std::optional<fieldsync::detail::LiveObject> live; /**< registered while a Request owns it */

    /** @brief After MPI completed: copies staged results back and releases everything. */
    void finish()
    {
        if (copyBack && outCount > 0)
        {
            copyBack->fromHost(hostRecv.data(), outCount);
        }
        copyBack.reset();
        scheduled = false;
        hostSend.release();
        hostRecv.release();
        keepSend.reset();
        keepRecv.reset();
    }
};

} // namespace fieldsync::mpi::detail
