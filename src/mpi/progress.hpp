// SPDX-License-Identifier: MIT
// The busy phase of a wait on a collective: test without pause, as MPI_Wait does, for a while.
#pragma once

#include <chrono>
#include <thread>

namespace fieldsync::mpi::detail
{

/**
 * @brief Whether a busy wait yields the core after each test that finds the operation
 * incomplete. FIELDSYNC_WAIT_YIELD (1/true/yes/on or 0/false/no/off; anything else is an Error
 * naming it) when set; otherwise yes exactly when this node runs more ranks than it has cores
 * (the launcher's local rank count: Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's
 * MPI_LOCALNRANKS; the cores: the node's, std::thread::hardware_concurrency, so a rank bound to
 * one core is not counted). Read once.
 *
 * A rank that tests without pause keeps the core its peer needs to post the message it waits
 * for, for a whole scheduler slice: under MPICH (whose tests never yield) 8 ranks on 2 cores ran
 * the algorithm tests 100 times slower than under Open MPI with mpi_yield_when_idle.
 */
[[nodiscard]] bool waitYields();

/**
 * @brief Tests without pause, as MPI_Wait does, for up to 100 ms; true once @p test is. MPI
 * libraries move a non-blocking collective on only inside MPI calls (Open MPI's libnbc: a round
 * per test), and waitWithTimeout yields after 100 us and sleeps between tests after 1 s: a 1 MiB
 * iReduce that waited so took 68 ms against 0.6 ms with MPI_Wait. (Yielding lost the core to
 * other processes on a loaded machine for a scheduler slice per round, so it yields only where
 * waitYields() says the node is oversubscribed.) After 100 ms the library's wait, with its
 * time-out reports, goes on. The 100 ms count from the 16th test: a small collective that
 * completes within its first tests reads no clock at all (a read costs as much as a test).
 */
template<typename Test>
bool progressFor100ms(const Test& test)
{
    if (test())
    {
        return true;
    }
    const bool yields = waitYields();
    std::chrono::steady_clock::time_point until {};
    for (unsigned polls { 2 };; ++polls)
    {
        if (yields)
        {
            std::this_thread::yield();
        }
        if (test())
        {
            return true;
        }
        // the clock read every 16th test: the first read sets the deadline
        if (polls % 16 == 0)
        {
            const auto now = std::chrono::steady_clock::now();
            if (polls == 16)
            {
                until = now + std::chrono::milliseconds { 100 };
            }
            else if (now >= until)
            {
                return false;
            }
        }
    }
}

} // namespace fieldsync::mpi::detail
