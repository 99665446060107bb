// SPDX-License-Identifier: MIT
// The reference that keeps a non-blocking call's view alive (detail::KeptAllocation, a copy of
// the view made by detail::keepAllocation): counted once, moved without counting, dropped once;
// nothing for an unmanaged view. Checked against the view's own use count, which Kokkos keeps.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/mpi/detail/describe.hpp"

#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

namespace fd = fieldsync::mpi::detail;

TEST_CASE("kept allocation: one reference, moved without a count, dropped once", "[lifetime]")
{
    Kokkos::View<double*, Kokkos::HostSpace> view("view", 4);
    REQUIRE(view.use_count() == 1);
    {
        fd::KeptAllocation kept { fd::keepAllocation(view) };
        CHECK(kept != nullptr);
        CHECK(view.use_count() == 2);
        fd::KeptAllocation moved { std::move(kept) };
        CHECK(moved != nullptr);
        CHECK(kept == nullptr); // NOLINT(bugprone-use-after-move): moved from on purpose
        CHECK(view.use_count() == 2);
        fd::KeptAllocation other { fd::keepAllocation(view) };
        CHECK(view.use_count() == 3);
        other = std::move(moved); // drops other's reference, takes moved's
        CHECK(view.use_count() == 2);
        other.reset();
        CHECK(other == nullptr);
        CHECK(view.use_count() == 1);
        other.reset(); // a second reset drops nothing
        CHECK(view.use_count() == 1);
        other = fd::keepAllocation(view);
        CHECK(view.use_count() == 2);
    } // the destructor drops the last kept reference
    CHECK(view.use_count() == 1);
}

TEST_CASE("kept allocation: the memory outlives every view of it while kept", "[lifetime]")
{
    fd::KeptAllocation kept;
    double* data { nullptr };
    {
        Kokkos::View<double*, Kokkos::HostSpace> view("view", 3);
        data = view.data();
        kept = fd::keepAllocation(view);
        view(2) = 7.5;
    }                      // the only view is gone: the kept reference holds the allocation
    CHECK(data[2] == 7.5); // (the sanitizers of the debug preset would report freed memory)
    kept.reset();
}

TEST_CASE("kept allocation: a subview keeps its parent's whole allocation", "[lifetime]")
{
    Kokkos::View<double**, Kokkos::HostSpace> parent("parent", 4, 3);
    const auto row = Kokkos::subview(parent, 2, Kokkos::ALL());
    REQUIRE(parent.use_count() == 2); // the parent and its subview
    fd::KeptAllocation kept { fd::keepAllocation(row) };
    CHECK(kept != nullptr);
    CHECK(parent.use_count() == 3);
    kept.reset();
    CHECK(parent.use_count() == 2);
}

TEST_CASE("kept allocation: an unmanaged view has nothing to keep", "[lifetime]")
{
    std::vector<double> values(5, 1.0);
    Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> view(
        values.data(), values.size()
    );
    const fd::KeptAllocation kept { fd::keepAllocation(view) };
    CHECK(kept == nullptr);
}
