// SPDX-License-Identifier: MIT
// NeoN's Vector on a SerialExecutor, as NeoN's test of its Communicator uses it: sizes and
// values from each constructor, `field(i)` reads and writes the values view() hands a
// Communicator, and copies are deep (NeoN's), moves take the values. Expected values are
// literals and functions of the index.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/NeoN.hpp"

#include <cstddef>
#include <utility>
#include <vector>

using namespace fieldsync;

TEST_CASE("NeoN's Vector: constructors, field(i) and view() share the values", "[compat][vector]")
{
    Vector<int> field(SerialExecutor(), 5);
    CHECK(field.size() == 5);
    CHECK(field.exec().name() == "SerialExecutor");
    for (std::size_t i = 0; i < field.size(); ++i)
    {
        field(i) = 3 * static_cast<int>(i) + 1;
    }
    const auto& view = field.view();
    REQUIRE(view.extent(0) == 5);
    CHECK(view.data() == field.data());
    for (std::size_t i = 0; i < field.size(); ++i)
    {
        CHECK(view(i) == 3 * static_cast<int>(i) + 1);
    }

    const Vector<double> filled(SerialExecutor(), 4, 2.5);
    CHECK(filled.size() == 4);
    for (std::size_t i = 0; i < filled.size(); ++i)
    {
        CHECK(filled(i) == 2.5);
    }

    const Vector<int> fromStd(SerialExecutor(), std::vector<int> { 7, -2, 9 });
    REQUIRE(fromStd.size() == 3);
    CHECK(fromStd(0) == 7);
    CHECK(fromStd(1) == -2);
    CHECK(fromStd(2) == 9);
}

TEST_CASE("NeoN's Vector copies deeply and moves its values", "[compat][vector]")
{
    Vector<int> original(SerialExecutor(), std::vector<int> { 1, 2, 3 });
    Vector<int> copy(original);
    copy(0) = 100;
    CHECK(original(0) == 1);
    CHECK(copy.data() != original.data());

    Vector<int> assigned(SerialExecutor(), 1, 0);
    assigned = original;
    REQUIRE(assigned.size() == 3);
    original(2) = -3;
    CHECK(assigned(2) == 3);

    const int* data { original.data() };
    Vector<int> moved(std::move(original));
    CHECK(moved.data() == data);
    CHECK(moved(2) == -3);
}
