// SPDX-License-Identifier: MIT
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/commKey.hpp"
#include "fieldsync/core/error.hpp"

namespace
{
fieldsync::CommKey keyOfCaller(fieldsync::CommKey key = fieldsync::CommKey {})
{
    return key;
}
} // namespace

TEST_CASE("CommKey from a string keeps the name and hashes it with FNV-1a")
{
    const fieldsync::CommKey key("pressure");
    REQUIRE(key.name() == "pressure");
    // FNV-1a 32-bit reference values, computed independently (published test vectors)
    REQUIRE(fieldsync::fnv1a32("") == 2166136261U);
    REQUIRE(fieldsync::fnv1a32("a") == 0xe40c292cU);
    REQUIRE(fieldsync::fnv1a32("foobar") == 0xbf9cf968U);
    REQUIRE(key.hash() == fieldsync::fnv1a32("pressure"));
    REQUIRE(fieldsync::CommKey("pressure") == key);
    REQUIRE_FALSE(fieldsync::CommKey("velocity") == key);
}

TEST_CASE("A default CommKey names the caller's file and line")
{
    const auto line = std::source_location::current().line() + 1;
    const auto key = keyOfCaller();
    REQUIRE(key.name().ends_with("commKey.cpp:" + std::to_string(line)));
    REQUIRE(key.where().line() == line);
}

TEST_CASE("An empty key is rejected")
{
    REQUIRE_THROWS_AS(fieldsync::CommKey(std::string()), fieldsync::Error);
}
