// SPDX-License-Identifier: MIT
// Catch2's implementation and one session, compiled once for every test program.
#if !defined(FIELDSYNC_CATCH2_V3)
#define CATCH_CONFIG_RUNNER
#endif
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/catchSession.hpp"

int fieldsync::test::runCatchSession(int argc, char** argv)
{
    Catch::Session session;
    const int rc = session.applyCommandLine(argc, argv);
    return rc != 0 ? 1 : (session.run() != 0 ? 1 : 0);
}
