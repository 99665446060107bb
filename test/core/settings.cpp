// SPDX-License-Identifier: MIT
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"

#include <array>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

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

TEST_CASE("The settings table lists what README.md's Settings table lists, in its order")
{
    // truth: the README a user reads (its "Settings (environment)" section's first column)
    std::ifstream readme(FIELDSYNC_README);
    REQUIRE(readme.good());
    std::vector<std::string> documented;
    bool inSection { false };
    const std::regex row("^\\| `(FIELDSYNC_[A-Z_]+)` \\|");
    for (std::string line; std::getline(readme, line);)
    {
        if (line.starts_with("## "))
        {
            inSection = line == "## Settings (environment)";
        }
        std::smatch match;
        if (inSection && std::regex_search(line, match, row))
        {
            documented.push_back(match[1]);
        }
    }
    std::vector<std::string> tabled;
    for (const fieldsync::detail::Setting& setting : fieldsync::settingsTable())
    {
        tabled.emplace_back(setting.name);
    }
    REQUIRE(documented.size() >= 12);
    CHECK(tabled == documented);
}

TEST_CASE("logSettings names the FIELDSYNC_ variables fieldsync does not read, and only those")
{
    ::setenv("FIELDSYNC_WAIT_TIMOUT", "5", 1); // misspelt
    ::setenv("FIELDSYNC_WAIT_SPIN_US", "100", 1);
    ::setenv("FIELDSYNC_TEST_HARNESS", "x", 1);
    const std::vector<std::string> unknown = fieldsync::logSettings(1);
    ::unsetenv("FIELDSYNC_WAIT_TIMOUT");
    ::unsetenv("FIELDSYNC_WAIT_SPIN_US");
    ::unsetenv("FIELDSYNC_TEST_HARNESS");
    const auto has = [&unknown](const char* name)
    {
        return std::find(unknown.begin(), unknown.end(), name) != unknown.end();
    };
    CHECK(has("FIELDSYNC_WAIT_TIMOUT"));
    CHECK_FALSE(has("FIELDSYNC_WAIT_SPIN_US"));
    CHECK_FALSE(has("FIELDSYNC_TEST_HARNESS"));
    for (const std::string& name : unknown) // whatever else the launcher set: none is a setting
    {
        CHECK(name.starts_with("FIELDSYNC_"));
        CHECK_FALSE(name.starts_with("FIELDSYNC_TEST_"));
    }
}
