// SPDX-License-Identifier: MIT
// The main of a NeoN test that runs without MPI (NeoN's noMPIEnvironment, run without mpiexec):
// the program's own Kokkos::initialize, the tests, Kokkos::finalize; MPI is never started.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>

int main(int argc, char* argv[])
{
    Kokkos::initialize(argc, argv);
    int result { 0 };
    {
        Catch::Session session;
        const int rc = session.applyCommandLine(argc, argv);
        result = rc != 0 ? 1 : session.run();
    }
    Kokkos::finalize();
    return result != 0 ? 1 : 0;
}
