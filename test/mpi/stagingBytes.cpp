// SPDX-License-Identifier: MIT
// StagingBytes: staging memory is allocated once and reused, of the kind stagingMemory() names;
// the collectives give correct results through either kind.
#include "collectiveChecks.hpp"

#include "fieldsync/mpi/stagingBytes.hpp"

#include <cstring>

namespace fm = fieldsync::mpi;

namespace
{
/** @brief Sets the staging memory for one scope, then restores the previous choice. */
class ScopedStagingMemory
{
public:
    explicit ScopedStagingMemory(fm::StagingMemory memory) : previous_(fm::stagingMemory())
    {
        fm::setStagingMemory(memory);
    }
    ~ScopedStagingMemory() { fm::setStagingMemory(previous_); }
    ScopedStagingMemory(const ScopedStagingMemory&) = delete;
    ScopedStagingMemory& operator=(const ScopedStagingMemory&) = delete;

private:
    fm::StagingMemory previous_;
};

#ifdef KOKKOS_ENABLE_CUDA
constexpr bool canPin { true };
#else
constexpr bool canPin { false };
#endif
} // namespace

TEST_CASE("staging memory is reused, grows, and follows the chosen kind", "[staging]")
{
    const auto memory = GENERATE(fm::StagingMemory::Pinned, fm::StagingMemory::Pageable);
    const ScopedStagingMemory scoped(memory);

    fm::detail::StagingBytes bytes;
    CHECK(bytes.data() == nullptr);
    std::byte* first { bytes.reserve(1000) };
    REQUIRE(first != nullptr);
    REQUIRE(bytes.capacity() >= 1000);
    CHECK(bytes.pinned() == (canPin && memory == fm::StagingMemory::Pinned));
    std::memset(first, 0x5a, 1000); // the host can write all of it

    // smaller or equal: the same block, contents kept
    CHECK(bytes.reserve(10) == first);
    CHECK(bytes.reserve(bytes.capacity()) == first);
    CHECK(first[999] == std::byte { 0x5a });

    // larger: a block at least that large (a size no other test stages, so that the pool
    // holds one block that fits it below)
    const std::size_t larger { 5'000'000 };
    REQUIRE(bytes.reserve(larger) != nullptr);
    CHECK(bytes.capacity() >= larger);

    // given back, the next holder of the same size gets the pooled block, not a new one
    std::byte* const pooled { bytes.data() };
    bytes.release();
    CHECK(bytes.data() == nullptr);
    fm::detail::StagingBytes next;
    CHECK(next.reserve(larger) == pooled);

    // a moved block keeps its address
    fm::detail::StagingBytes moved { std::move(next) };
    CHECK(moved.data() == pooled);
    CHECK(next.data() == nullptr); // NOLINT(bugprone-use-after-move): moved-from is empty
}

TEST_CASE("a block of the other kind is replaced when the choice changes", "[staging]")
{
    const ScopedStagingMemory pageable(fm::StagingMemory::Pageable);
    fm::detail::StagingBytes bytes;
    REQUIRE(bytes.reserve(64) != nullptr);
    CHECK_FALSE(bytes.pinned());
    fm::setStagingMemory(fm::StagingMemory::Pinned);
    REQUIRE(bytes.reserve(64) != nullptr);
    CHECK(bytes.pinned() == canPin);
}

TEST_CASE("every collective, staged through pageable memory, matches the formula", "[staging]")
{
    const ScopedStagingMemory scoped(fm::StagingMemory::Pageable);
    const bool blocking = GENERATE(true, false);
    fieldsync_test::checkAllCollectives<double, fieldsync_test::ViewForm>({ blocking,
                                                                            fm::Staging::Always });
}
