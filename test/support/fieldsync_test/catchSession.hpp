// SPDX-License-Identifier: MIT
#pragma once

namespace fieldsync::test
{

/**
 * @brief Runs the Catch2 session of this program with its command line; returns 0 when every
 * test passed on this rank, 1 otherwise.
 *
 * Catch2's implementation is compiled once, in catchSession.cpp (the library
 * fieldsync_catch_session), for every test program; each program's main starts MPI and Kokkos
 * its own way and calls this.
 */
int runCatchSession(int argc, char** argv);

} // namespace fieldsync::test
