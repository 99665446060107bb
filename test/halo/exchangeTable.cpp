// SPDX-License-Identifier: MIT
// ExchangeTable (src/halo/exchangeTable.hpp): keys begun once keep their Exchange, tags are the
// key's FNV-1a hash within the window (worked out here independently), the lookups by key and by
// field, and the refusals: a key in flight, a tag in flight under another key, a tag whose start
// failed. No MPI traffic.
#include "fieldsync_test/catch.hpp"

#include "exchangeTable.hpp"

#include "fieldsync/core/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>

using fieldsync::CommKey;
using fieldsync::Error;
using fieldsync::halo::Exchange;
using fieldsync::halo::ExchangeTable;
using fieldsync::halo::detail::FieldShape;
using fieldsync::mpi::detail::TagWindow;

namespace
{
constexpr int span { 64 }; /**< the window: tags 0..63, none reserved */

/** @brief FNV-1a (32 bit) of @p text, written out independently of CommKey's. */
std::uint32_t fnv(std::string_view text)
{
    std::uint32_t h { 2166136261U };
    for (const char c : text)
    {
        h = (h ^ static_cast<unsigned char>(c)) * 16777619U;
    }
    return h;
}

/** @brief The tag of key @p name in a window of @p span tags from 0. */
int truthTag(std::string_view name, bool reverse)
{
    return static_cast<int>((reverse ? fnv(name) ^ 0x9e3779b9U : fnv(name)) % span);
}

/** @brief Whether @p what contains @p part. */
bool has(const std::string& what, std::string_view part)
{
    return what.find(part) != std::string::npos;
}

/** @brief The text of the Error @p call throws (empty: none). */
template<typename Call>
std::string errorOf(Call&& call)
{
    try
    {
        call();
    }
    catch (const Error& e)
    {
        return e.what();
    }
    return {};
}

/** @brief Two different key names "k<i>" with the same forward tag. */
std::pair<std::string, std::string> collidingNames()
{
    for (int i = 0; i < span + 1; ++i)
    {
        for (int j = 0; j < i; ++j)
        {
            std::string a("k");
            std::string b("k");
            a.append(std::to_string(j));
            b.append(std::to_string(i));
            if (truthTag(a, false) == truthTag(b, false))
            {
                return { a, b };
            }
        }
    }
    return {}; // unreachable: 65 names in 64 tags
}
} // namespace

TEST_CASE("ExchangeTable keeps one Exchange per key and direction, tagged by the key's hash")
{
    ExchangeTable table(TagWindow::whole(span));
    const CommKey a("alpha");
    Exchange& forward = table.begin(a, false);
    CHECK(forward.tag == truthTag("alpha", false));
    CHECK(table.tagOf(a, true) == truthTag("alpha", true));
    CHECK(forward.attempts == 1);
    CHECK_FALSE(table.anyInFlight());
    CHECK(table.failedStart(a, false) == &forward); // begun, not in flight
    table.setInFlight(forward);
    CHECK(table.anyInFlight());
    CHECK(table.failedStart(a, false) == nullptr);
    CHECK(&table.byKey(a, false) == &forward);
    CHECK(has(table.describeInFlight(), "'alpha' started at "));
    CHECK(has(errorOf([&] { table.begin(a, false); }), "'alpha' is already in flight"));

    Exchange& backward = table.begin(a, true); // the reverse direction is another exchange
    CHECK(&backward != &forward);
    CHECK(backward.tag == truthTag("alpha", true));
    table.setInFlight(backward);
    CHECK(&table.byKey(a, false) == &forward); // not the key begun last: found by the search
    CHECK(&table.byKey(a, true) == &backward);
    table.setDone(forward);
    table.setDone(backward);
    CHECK_FALSE(table.anyInFlight());
    CHECK(table.describeInFlight() == " none");
    CHECK(has(errorOf([&] { table.byKey(a, false); }), "no exchange 'alpha' is in flight"));

    CHECK(&table.begin(a, false) == &forward); // the same Exchange again (stable address)
    CHECK(forward.attempts == 2);
    CHECK(table.all().size() == 2);
    table.clear();
    CHECK(table.all().empty());
}

TEST_CASE("ExchangeTable finds an exchange by its field, once")
{
    ExchangeTable table(TagWindow::whole(span));
    double cells[4] {};
    double other[4] {};
    Exchange& first = table.begin(CommKey("first"), false);
    first.fields.push_back(FieldShape { .data = cells, .cells = 4 });
    table.setInFlight(first);
    CHECK(&table.byField(cells, std::source_location::current(), std::nullopt) == &first);
    CHECK(&table.byField(cells, std::source_location::current(), false) == &first);
    CHECK(
        has(errorOf([&] { table.byField(cells, std::source_location::current(), true); }),
            "no exchange of this field is in flight")
    );
    CHECK(
        has(errorOf([&] { table.byField(other, std::source_location::current(), std::nullopt); }),
            "no exchange of this field is in flight")
    );
    Exchange& second = table.begin(CommKey("second"), true);
    second.fields.push_back(FieldShape { .data = cells, .cells = 4 });
    table.setInFlight(second);
    CHECK(
        has(errorOf([&] { table.byField(cells, std::source_location::current(), std::nullopt); }),
            "in flight under two keys, 'first' and 'second'")
    );
}

TEST_CASE("ExchangeTable refuses a tag in flight under another key, and a tag that failed")
{
    ExchangeTable table(TagWindow::whole(span));
    const auto [one, two] = collidingNames();
    REQUIRE(!one.empty());
    const CommKey first(one);
    const CommKey second(two);
    Exchange& exchange = table.begin(first, false);
    table.setInFlight(exchange);
    CHECK(has(
        errorOf([&] { table.begin(second, false); }),
        "has MPI tag " + std::to_string(truthTag(one, false)) + ", the same as exchange '" + one
    ));
    table.setDone(exchange);
    CHECK(errorOf([&] { table.begin(second, false); }).empty()); // its tag is free again

    CHECK_FALSE(table.anyFailed());
    table.markFailed(exchange, "boom");
    CHECK(table.anyFailed());
    const std::string again = errorOf([&] { table.begin(first, false); });
    CHECK(has(again, "cannot start again on this Communicator"));
    CHECK(has(again, "(first failure: boom)"));
    const std::string sameTag = errorOf([&] { table.begin(second, false); });
    CHECK(has(sameTag, "where a start of exchange '" + one + "' (the same MPI tag"));
    CHECK(
        errorOf([&] { table.begin(CommKey(one), true); }).empty() ==
        (truthTag(one, true) != truthTag(one, false))
    );
}
