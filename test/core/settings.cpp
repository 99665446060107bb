// SPDX-License-Identifier: MIT
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"

#include <cstdlib>

TEST_CASE("Environment settings parse booleans and numbers and reject junk")
{
    ::setenv("FIELDSYNC_TEST_BOOL", "Yes", 1);
    REQUIRE(fieldsync::envBool("FIELDSYNC_TEST_BOOL", false));
    ::setenv("FIELDSYNC_TEST_BOOL", "0", 1);
    REQUIRE_FALSE(fieldsync::envBool("FIELDSYNC_TEST_BOOL", true));
    ::setenv("FIELDSYNC_TEST_BOOL", "maybe", 1);
    REQUIRE_THROWS_AS(fieldsync::envBool("FIELDSYNC_TEST_BOOL", true), fieldsync::Error);
    ::unsetenv("FIELDSYNC_TEST_BOOL");
    REQUIRE(fieldsync::envBool("FIELDSYNC_TEST_BOOL", true));

    ::setenv("FIELDSYNC_TEST_NUMBER", "2.5", 1);
    REQUIRE(fieldsync::envDouble("FIELDSYNC_TEST_NUMBER", 0.0) == 2.5);
    ::setenv("FIELDSYNC_TEST_NUMBER", "2.5s", 1);
    REQUIRE_THROWS_AS(fieldsync::envDouble("FIELDSYNC_TEST_NUMBER", 0.0), fieldsync::Error);
    ::unsetenv("FIELDSYNC_TEST_NUMBER");
    REQUIRE(fieldsync::envDouble("FIELDSYNC_TEST_NUMBER", 7.0) == 7.0);
}
