// SPDX-License-Identifier: MIT
// Fault injection is off unless FIELDSYNC_FAULTS asks for it, and then happens at about the
// asked rate (counted over many draws; the bound is loose, the rate is a property of splitmix64).
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/faults.hpp"

TEST_CASE("faultHappens: never when FIELDSYNC_FAULTS is unset, at about the rate when set")
{
    const auto& settings = fieldsync::faultSettings();
    int happened { 0 };
    constexpr int draws { 100000 };
    for (int i = 0; i < draws; ++i)
    {
        happened += fieldsync::faultHappens(0.25) ? 1 : 0;
    }
    if (!settings.on)
    {
        REQUIRE(happened == 0);
    }
    else
    {
        REQUIRE(happened > draws / 5);
        REQUIRE(happened < draws * 3 / 10);
    }
    REQUIRE_FALSE(fieldsync::faultHappens(0.0));
    REQUIRE(settings.on == (settings.seed == 3)); // the variant sets seed 3, early 0.2
    if (settings.on)
    {
        REQUIRE(settings.early == 0.2);
        REQUIRE(settings.delay == 0.0);
    }
}
