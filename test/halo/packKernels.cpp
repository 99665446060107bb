// SPDX-License-Identifier: MIT
// The runs kernels (packRuns, unpackRuns) on the host (the engine packs by runs only there), as a
// copy per run (a buffer of this field alone, contiguous rows) and as one loop per run (a buffer
// shared with other fields, or LayoutLeft), on lists with runs of length 1, mixed, long and at
// both ends of the field, 1, 3 and 8 components, LayoutRight and LayoutLeft: packed values and
// unpacked cells must hold a known function of the cell's global id, and nothing else may be
// written. The general gather kernel (every memory space of the build) packs the same lists as a
// second opinion. The host copy of a run (copyBytes, src/halo/copyBytes.hpp) is checked for every
// length and alignment and value size, and the runs kernels on a list holding runs of every
// length from 1 to 70 cells in random order.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/memorySpaces.hpp"

#include "fieldsync/halo/indexRuns.hpp"
#include "fieldsync/halo/packKernels.hpp"

#include "copyBytes.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using fieldsync::LocalIndex;
using fieldsync::halo::ReverseOp;
using fieldsync::halo::detail::IndexRuns;

namespace
{
constexpr std::size_t cells { 64 };
constexpr double poison { -777.25 };

/** @brief The global id of local cell @p i (any one-to-one function). */
KOKKOS_INLINE_FUNCTION long globalOf(std::int64_t i)
{
    return 1000 + 7 * static_cast<long>(i);
}

/** @brief The value of component @p c of the cell of global id @p g. */
KOKKOS_INLINE_FUNCTION double valueOf(long g, std::size_t c)
{
    return static_cast<double>(g) * 16.0 + static_cast<double>(c) * 0.5;
}

/** @brief Kernel functor: valueOf(globalOf(i), c) in every cell. */
template<typename View>
struct FillTruth
{
    View field;        /**< the field */
    std::size_t comps; /**< its components */
    KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const
    {
        for (std::size_t c = 0; c < comps; ++c)
        {
            fieldsync::halo::cellAt(field, i, c) = valueOf(globalOf(i), c);
        }
    }
};

/** @brief The lists: runs of length 1, mixed, one long run, both field ends. */
struct Lists
{
    std::vector<LocalIndex> indices { 5,  9,  2,  63, 0, // runs of 1
                                      0,  1,  2,  10, 20, 21, 22, 23, 24, 25, 7,  62, 63, // mixed
                                      30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
                                      43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55,
                                      56, 57, 58, 59, 60, 61, 62, 63 }; // one long run to the end
    std::vector<std::size_t> offsets { 0, 5, 18, 52 };
};

template<typename T, typename Space>
Kokkos::View<T*, fieldsync_test::DeviceFor<Space>> toSpace(const std::vector<T>& host)
{
    Kokkos::View<T*, fieldsync_test::DeviceFor<Space>> view("lists", host.size());
    Kokkos::deep_copy(
        view,
        Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            host.data(), host.size()
        )
    );
    return view;
}

/** @brief A field of @p View type (rank 1 for one component) of @p n cells holding the truth. */
template<typename View>
View truthField(std::size_t comps, std::size_t n = cells)
{
    View field;
    if constexpr (View::rank == 1)
    {
        field = View("field", n);
    }
    else
    {
        field = View("field", n, comps);
    }
    Kokkos::parallel_for(
        "fill",
        Kokkos::RangePolicy<typename View::execution_space>(0, static_cast<std::int64_t>(n)),
        FillTruth<View> { field, comps }
    );
    Kokkos::fence();
    return field;
}

/**
 * @brief Packs every list of @p lists from a @p View field of @p comps components by runs, into a
 * buffer of @p stride values per cell at @p offset, then unpacks it into a poisoned field;
 * returns the wrong values seen (0 when right).
 */
template<typename Space, typename View>
int wrongAfterRuns(std::size_t comps, std::size_t stride, std::size_t offset)
{
    using Device = fieldsync_test::DeviceFor<Space>;
    const Lists lists;
    const IndexRuns runs(lists.indices, lists.offsets);
    const auto first = toSpace<LocalIndex, Space>({ runs.first().begin(), runs.first().end() });
    const auto at = toSpace<std::size_t, Space>({ runs.at().begin(), runs.at().end() });
    const View field = truthField<View>(comps);
    const std::size_t n = lists.indices.size();
    Kokkos::View<double*, Device> buffer("buffer", n * stride);
    Kokkos::deep_copy(buffer, poison);
    const typename View::execution_space exec;
    // list by list, as the Communicator calls them for neighbours of different forms
    for (std::size_t k = 0; k + 1 < lists.offsets.size(); ++k)
    {
        fieldsync::halo::packRuns(
            field, buffer, first, at, runs.runBegin(k), runs.runEnd(k), stride, offset, exec
        );
    }
    Kokkos::fence();
    int wrong { 0 };
    const auto packed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buffer);
    for (std::size_t i = 0; i < n; ++i)
    {
        for (std::size_t v = 0; v < stride; ++v)
        {
            const bool mine = v >= offset && v < offset + comps;
            const double expected = mine ? valueOf(globalOf(lists.indices[i]), v - offset) : poison;
            wrong += packed(i * stride + v) == expected ? 0 : 1;
        }
    }
    // unpack into a poisoned field (Replace), then once more with Sum over all runs at once
    View target = truthField<View>(comps);
    Kokkos::deep_copy(target, poison);
    fieldsync::halo::unpackRuns(
        target, buffer, first, at, 0, runs.runCount(), stride, offset, ReverseOp::Replace, exec
    );
    Kokkos::fence();
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), target);
    std::vector<int> listed(cells, 0);
    for (const LocalIndex i : lists.indices)
    {
        listed[static_cast<std::size_t>(i)] = 1;
    }
    for (std::size_t i = 0; i < cells; ++i)
    {
        for (std::size_t c = 0; c < comps; ++c)
        {
            const double expected =
                listed[i] != 0 ? valueOf(globalOf(static_cast<std::int64_t>(i)), c) : poison;
            wrong += fieldsync::halo::cellAt(host, i, c) == expected ? 0 : 1;
        }
    }
    // Sum: list by list (a cell may be in two lists), onto zeros: count times the truth
    Kokkos::deep_copy(target, 0.0);
    for (std::size_t k = 0; k + 1 < lists.offsets.size(); ++k)
    {
        fieldsync::halo::unpackRuns(
            target,
            buffer,
            first,
            at,
            runs.runBegin(k),
            runs.runEnd(k),
            stride,
            offset,
            ReverseOp::Sum,
            exec
        );
        Kokkos::fence();
    }
    std::vector<int> times(cells, 0);
    for (const LocalIndex i : lists.indices)
    {
        ++times[static_cast<std::size_t>(i)];
    }
    Kokkos::deep_copy(host, target);
    for (std::size_t i = 0; i < cells; ++i)
    {
        for (std::size_t c = 0; c < comps; ++c)
        {
            const double expected = times[i] * valueOf(globalOf(static_cast<std::int64_t>(i)), c);
            wrong += fieldsync::halo::cellAt(host, i, c) == expected ? 0 : 1;
        }
    }
    return wrong;
}

/**
 * @brief Calls @p check(std::type_identity<View>, components) for a rank-1 view of one component
 * and for rank-2 views of each of @p components, LayoutRight and LayoutLeft, on @p Device.
 */
template<typename Device, typename Check>
void forEachViewShape(std::initializer_list<std::size_t> components, const Check& check)
{
    check(std::type_identity<Kokkos::View<double*, Device>> {}, std::size_t { 1 });
    for (const std::size_t comps : components)
    {
        check(std::type_identity<Kokkos::View<double**, Kokkos::LayoutRight, Device>> {}, comps);
        check(std::type_identity<Kokkos::View<double**, Kokkos::LayoutLeft, Device>> {}, comps);
    }
}

/** @brief wrongAfterRuns for each buffer shape. */
template<typename Space, typename View>
void checkBothBuffers(std::size_t comps)
{
    // this field alone (a copy per run for contiguous rows), and in the middle of two other
    // fields (a loop per run)
    for (const std::size_t extra : { std::size_t { 0 }, std::size_t { 3 } })
    {
        const std::size_t offset = extra == 0 ? 0 : 1;
        INFO("components " << comps << ", stride " << comps + extra);
        CHECK(wrongAfterRuns<Space, View>(comps, comps + extra, offset) == 0);
    }
}
} // namespace

TEST_CASE("packRuns and unpackRuns move the truth, rank 1 and both layouts", "[halo][packKernels]")
{
    using Space = Kokkos::HostSpace;
    // LayoutLeft: blocks of 4 columns and the 1 to 3 left (forEachColumnBlock)
    forEachViewShape<fieldsync_test::DeviceFor<Space>>(
        { 1, 3, 4, 5, 8 },
        [](auto view, std::size_t comps)
        { checkBothBuffers<Space, typename decltype(view)::type>(comps); }
    );
}

TEMPLATE_LIST_TEST_CASE(
    "The general gather kernel agrees with packRuns",
    "[halo][packKernels]",
    fieldsync_test::MemorySpaces
)
{
    using Space = TestType;
    using Device = fieldsync_test::DeviceFor<Space>;
    using HostDevice = fieldsync_test::DeviceFor<Kokkos::HostSpace>;
    using View = Kokkos::View<double**, Kokkos::LayoutRight, Device>;
    const Lists lists;
    const IndexRuns runs(lists.indices, lists.offsets);
    const auto first =
        toSpace<LocalIndex, Kokkos::HostSpace>({ runs.first().begin(), runs.first().end() });
    const auto at = toSpace<std::size_t, Kokkos::HostSpace>({ runs.at().begin(), runs.at().end() });
    const auto idx = toSpace<LocalIndex, Space>(lists.indices);
    const View field = truthField<View>(3);
    const auto hostField = truthField<Kokkos::View<double**, Kokkos::LayoutRight, HostDevice>>(3);
    const std::size_t n = lists.indices.size();
    Kokkos::View<double*, HostDevice> byRuns("byRuns", n * 3);
    Kokkos::View<double*, Device> byGather("byGather", n * 3);
    fieldsync::halo::packRuns(hostField, byRuns, first, at, 0, runs.runCount(), 3, 0);
    fieldsync::halo::pack(field, byGather, idx, 0, n, 3, 0);
    Kokkos::fence();
    const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), byRuns);
    const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), byGather);
    int differ { 0 };
    for (std::size_t i = 0; i < n * 3; ++i)
    {
        differ += a(i) == b(i) && a(i) == valueOf(globalOf(lists.indices[i / 3]), i % 3) ? 0 : 1;
    }
    CHECK(differ == 0);
}

namespace
{
/** @brief Byte @p i of the copies' source (a known function of the position). */
std::byte sourceByte(std::size_t i)
{
    return static_cast<std::byte>((i * 37 + 11) % 251);
}
} // namespace

TEST_CASE("copyBytes copies every length and alignment, and nothing else", "[halo][packKernels]")
{
    constexpr std::size_t longest { 600 }; // past 512: the std::memcpy branch too
    constexpr std::byte guard { 0xA5 };
    std::vector<std::byte> from(longest + 16);
    for (std::size_t i = 0; i < from.size(); ++i)
    {
        from[i] = sourceByte(i);
    }
    std::vector<std::byte> to(longest + 32);
    int wrong { 0 };
    for (std::size_t shift = 0; shift < 8; ++shift)
    {
        for (std::size_t bytes = 0; bytes <= longest; ++bytes)
        {
            std::fill(to.begin(), to.end(), guard);
            fieldsync::halo::copyBytes(to.data() + 8 + shift, from.data() + shift, bytes);
            for (std::size_t i = 0; i < to.size(); ++i)
            {
                const bool inside = i >= 8 + shift && i < 8 + shift + bytes;
                wrong += to[i] == (inside ? sourceByte(i - 8) : guard) ? 0 : 1;
            }
        }
    }
    CHECK(wrong == 0);
}

namespace
{
/** @brief A 24-byte value (not a power of two). */
struct Triple
{
    double x; /**< first */
    double y; /**< second */
    double z; /**< third */
};

/** @brief Value @p i of type T, made from sourceByte (the truth copyBytes is checked against). */
template<typename T>
T valueAt(std::size_t i)
{
    std::array<std::byte, sizeof(T)> bytes {};
    for (std::size_t b = 0; b < sizeof(T); ++b)
    {
        bytes[b] = sourceByte(i * sizeof(T) + b);
    }
    T value;
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

/** @brief Whether two values hold the same bytes. */
template<typename T>
bool sameBytes(const T& a, const T& b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/** @brief The wrong values after copyBytes of 0 to 100 values of T between guard values. */
template<typename T>
int wrongAfterCopyRun()
{
    constexpr std::size_t longest { 100 };
    std::vector<T> from(longest);
    for (std::size_t i = 0; i < longest; ++i)
    {
        from[i] = valueAt<T>(i);
    }
    const T guard = valueAt<T>(1000);
    std::vector<T> to(longest + 2);
    int wrong { 0 };
    for (std::size_t n = 0; n <= longest; ++n)
    {
        std::fill(to.begin(), to.end(), guard);
        fieldsync::halo::copyBytes(
            reinterpret_cast<std::byte*>(to.data() + 1),
            reinterpret_cast<const std::byte*>(from.data()),
            n * sizeof(T)
        );
        for (std::size_t i = 0; i < to.size(); ++i)
        {
            const bool inside = i >= 1 && i < 1 + n;
            wrong += sameBytes(to[i], inside ? valueAt<T>(i - 1) : guard) ? 0 : 1;
        }
    }
    return wrong;
}
} // namespace

TEST_CASE("copyBytes copies runs of values of 1 to 24 bytes", "[halo][packKernels]")
{
    CHECK(wrongAfterCopyRun<char>() == 0);
    CHECK(wrongAfterCopyRun<std::int16_t>() == 0);
    CHECK(wrongAfterCopyRun<float>() == 0);
    CHECK(wrongAfterCopyRun<double>() == 0);
    CHECK(wrongAfterCopyRun<Kokkos::complex<double>>() == 0);
    CHECK(wrongAfterCopyRun<Triple>() == 0);
}

namespace
{
/**
 * @brief One list of runs of every length from 1 to @p longest cells, in random order, with a gap
 * after each (so none merge), over a field of @p cellsOut cells.
 */
std::vector<LocalIndex> everyLength(std::size_t longest, std::size_t& cellsOut)
{
    std::vector<std::pair<std::size_t, std::size_t>> runs; // (first cell, length)
    std::size_t next { 0 };
    for (std::size_t length = 1; length <= longest; ++length)
    {
        runs.emplace_back(next, length);
        next += length + 1 + length % 3;
    }
    cellsOut = next;
    std::shuffle(runs.begin(), runs.end(), std::mt19937 { 5 });
    std::vector<LocalIndex> list;
    for (const auto& [start, length] : runs)
    {
        for (std::size_t j = 0; j < length; ++j)
        {
            list.push_back(static_cast<LocalIndex>(start + j));
        }
    }
    return list;
}

/** @brief packRuns, then unpackRuns into a poisoned field, of a list with runs of every length
 * from 1 to 70 cells; returns the wrong values (packed or unpacked) against the truth. */
template<typename Space, typename View>
int wrongWithEveryLength(std::size_t comps)
{
    using Device = fieldsync_test::DeviceFor<Space>;
    std::size_t n { 0 };
    const std::vector<LocalIndex> list = everyLength(70, n);
    const std::vector<std::size_t> offsets { 0, list.size() };
    const IndexRuns runs(list, offsets);
    const auto first = toSpace<LocalIndex, Space>({ runs.first().begin(), runs.first().end() });
    const auto at = toSpace<std::size_t, Space>({ runs.at().begin(), runs.at().end() });
    const View field = truthField<View>(comps, n);
    Kokkos::View<double*, Device> buffer("buffer", list.size() * comps);
    const typename View::execution_space exec;
    fieldsync::halo::packRuns(field, buffer, first, at, 0, runs.runCount(), comps, 0, exec);
    View target = truthField<View>(comps, n);
    Kokkos::deep_copy(target, poison);
    fieldsync::halo::unpackRuns(
        target, buffer, first, at, 0, runs.runCount(), comps, 0, ReverseOp::Replace, exec
    );
    Kokkos::fence();
    const auto packed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buffer);
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), target);
    int wrong { 0 };
    std::vector<int> listed(n, 0);
    for (std::size_t i = 0; i < list.size(); ++i)
    {
        listed[static_cast<std::size_t>(list[i])] = 1;
        for (std::size_t c = 0; c < comps; ++c)
        {
            wrong += packed(i * comps + c) == valueOf(globalOf(list[i]), c) ? 0 : 1;
        }
    }
    for (std::size_t i = 0; i < n; ++i)
    {
        for (std::size_t c = 0; c < comps; ++c)
        {
            const double expected =
                listed[i] != 0 ? valueOf(globalOf(static_cast<std::int64_t>(i)), c) : poison;
            wrong += fieldsync::halo::cellAt(host, i, c) == expected ? 0 : 1;
        }
    }
    return wrong;
}
} // namespace

TEST_CASE(
    "packRuns and unpackRuns move runs of every length from 1 to 70 cells", "[halo][packKernels]"
)
{
    // rank 1 and LayoutRight: a copy per run; LayoutLeft: a loop per run and block of columns
    using Space = Kokkos::HostSpace;
    forEachViewShape<fieldsync_test::DeviceFor<Space>>(
        { 1, 2, 3, 4, 5, 8 },
        [](auto view, std::size_t comps)
        {
            using View = typename decltype(view)::type;
            INFO("rank " << View::rank << ", components " << comps);
            CHECK(wrongWithEveryLength<Space, View>(comps) == 0);
        }
    );
}

namespace
{
/**
 * @brief Packs list positions [begin, end) of a rank-1 truth field with packCells<K> into a
 * buffer of stride 2 at offset 1, then unpacks them with unpackCells<K> into a field holding
 * @p base everywhere, combined by @p op; returns the wrong values seen (0 when right): packed
 * values and unpacked cells must hold the truth (plus @p base for Sum), and nothing else may
 * change.
 */
template<int K, typename Space>
int wrongAfterCells(std::size_t begin, std::size_t end, ReverseOp op, double base)
{
    using Device = fieldsync_test::DeviceFor<Space>;
    using Exec = typename Device::execution_space;
    using View = Kokkos::View<double*, Device>;
    const Lists lists;
    const auto idx = toSpace<LocalIndex, Space>(lists.indices);
    const View field = truthField<View>(1);
    const std::size_t n = lists.indices.size();
    View buffer("buffer", 2 * n);
    Kokkos::deep_copy(buffer, poison);
    fieldsync::halo::packCells<K>(field, buffer, idx, begin, end, 2, 1, Exec());
    View target("target", cells);
    Kokkos::deep_copy(target, base);
    fieldsync::halo::unpackCells<K>(target, buffer, idx, begin, end, 2, 1, op, Exec());
    Kokkos::fence();
    const auto packed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buffer);
    const auto unpacked = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), target);
    int wrong { 0 };
    std::vector<bool> listed(cells, false);
    for (std::size_t i = 0; i < n; ++i)
    {
        const bool inside = i >= begin && i < end;
        const auto cell = static_cast<std::size_t>(lists.indices[i]);
        listed[cell] = listed[cell] || inside;
        wrong += packed(2 * i) == poison ? 0 : 1;
        wrong +=
            packed(2 * i + 1) == (inside ? valueOf(globalOf(lists.indices[i]), 0) : poison) ? 0 : 1;
    }
    for (std::size_t c = 0; c < cells; ++c)
    {
        const double truth { valueOf(globalOf(static_cast<std::int64_t>(c)), 0) };
        const double expected { !listed[c]                 ? base
                                : op == ReverseOp::Replace ? truth
                                                           : base + truth };
        wrong += unpacked(c) == expected ? 0 : 1;
    }
    return wrong;
}
} // namespace

TEMPLATE_LIST_TEST_CASE(
    "packCells and unpackCells move the truth with several cells per thread",
    "[halo][packKernels]",
    fieldsync_test::MemorySpaces
)
{
    using Space = TestType;
    // every position, and a range whose length no K divides (repeated cells: Replace only)
    CHECK(wrongAfterCells<1, Space>(0, 52, ReverseOp::Replace, poison) == 0);
    CHECK(wrongAfterCells<3, Space>(0, 52, ReverseOp::Replace, poison) == 0);
    CHECK(wrongAfterCells<4, Space>(3, 50, ReverseOp::Replace, poison) == 0);
    CHECK(
        wrongAfterCells<fieldsync::halo::cellsPerThread, Space>(1, 2, ReverseOp::Replace, 0.0) == 0
    );
    // the long run alone (cells 30 to 63, each once): Sum adds to what the cell held
    CHECK(wrongAfterCells<4, Space>(18, 52, ReverseOp::Sum, 1.0) == 0);
    CHECK(wrongAfterCells<3, Space>(19, 51, ReverseOp::Sum, 1.0) == 0);
}
