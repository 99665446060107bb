// SPDX-License-Identifier: MIT
// CallerValue: a plain value converted at a call records the caller's line (truth: __LINE__ of
// the call), and a location passed on explicitly is kept as given.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/callerValue.hpp"

#include <cstddef>
#include <source_location>
#include <string>

namespace
{
/** @brief Stands for an entry point with a parameter pack after its CallerValue. */
template<typename... Rest>
fieldsync::detail::CallerValue<std::size_t>
entry(fieldsync::detail::CallerValue<std::size_t> first, Rest&&...)
{
    return first;
}
} // namespace

TEST_CASE("CallerValue: a converted value names the caller's line, before a parameter pack")
{
    const int line { __LINE__ + 1 };
    const auto got = entry(7, 1.0, 'x');
    CHECK(got.value() == 7);
    CHECK(static_cast<int>(got.where().line()) == line);
    CHECK(std::string(got.where().file_name()).find("callerValue.cpp") != std::string::npos);
}

TEST_CASE("CallerValue: a location passed on explicitly is kept")
{
    const std::source_location outer { std::source_location::current() };
    const auto got = entry({ 3, outer });
    CHECK(got.value() == 3);
    CHECK(got.where().line() == outer.line());
}
