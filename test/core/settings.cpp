// SPDX-License-Identifier: MIT
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"

#include <array>
#include <cstdlib>
#include <string>

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

TEST_CASE("envValues finds several variables in one pass, as getenv would one by one")
{
    // a name that begins another, one set empty, one unset, and a value with '=' in it
    ::setenv("FIELDSYNC_TEST_PAIR", "a=b", 1);
    ::setenv("FIELDSYNC_TEST_PAIR_LONGER", "long", 1);
    ::setenv("FIELDSYNC_TEST_EMPTY", "", 1);
    ::unsetenv("FIELDSYNC_TEST_UNSET");
    ::setenv("FIELDSYNC_TEST_PAI", "short", 1);
    const std::array<const char*, 5> names { "FIELDSYNC_TEST_PAIR_LONGER",
                                             "FIELDSYNC_TEST_PAIR",
                                             "FIELDSYNC_TEST_EMPTY",
                                             "FIELDSYNC_TEST_UNSET",
                                             "FIELDSYNC_TEST_PAI" };
    std::array<const char*, 5> values {};
    values.fill("stale");
    fieldsync::envValues(names, values);
    REQUIRE(values[0] != nullptr);
    CHECK(std::string(values[0]) == "long");
    REQUIRE(values[1] != nullptr);
    CHECK(std::string(values[1]) == "a=b");
    REQUIRE(values[2] != nullptr);
    CHECK(std::string(values[2]).empty());
    CHECK(values[3] == nullptr);
    REQUIRE(values[4] != nullptr);
    CHECK(std::string(values[4]) == "short");
    // the parse of a value found so, with its name in the error
    CHECK(fieldsync::envDouble("X", "2.5", 1.0) == 2.5);
    CHECK(fieldsync::envDouble("X", "", 1.0) == 1.0);
    CHECK(fieldsync::envDouble("X", nullptr, 1.0) == 1.0);
    CHECK_THROWS_WITH(
        fieldsync::envDouble("FIELDSYNC_TEST_PAI", "short", 1.0),
        Catch::Contains("FIELDSYNC_TEST_PAI='short' is not a number")
    );
    for (const char* name : names)
    {
        ::unsetenv(name);
    }
}
