// SPDX-License-Identifier: MIT
#include "adjacencyScan.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FIELDSYNC_SCAN_AVX2 1
#include <immintrin.h>
#include <utility>
#else
#define FIELDSYNC_SCAN_AVX2 0
#endif

namespace fieldsync::partition
{

namespace
{
// the two mixes p of edgeTerm: x = i k + c (k odd), p = x ^ (x >> s) for two shifts s; each is a
// bijection of the 32-bit integers
constexpr std::uint32_t mixFactor { 0x9E3779B1U };
constexpr std::uint32_t mixAdd { 0x5851F42DU };
constexpr int mixShiftA { 15 };
constexpr int mixShiftB { 7 };

constexpr std::uint32_t mixBase(std::uint32_t i) noexcept
{
    return i * mixFactor + mixAdd;
}

constexpr std::uint32_t mixA(std::uint32_t i) noexcept
{
    const std::uint32_t x { mixBase(i) };
    return x ^ (x >> mixShiftA);
}

constexpr std::uint32_t mixB(std::uint32_t i) noexcept
{
    const std::uint32_t x { mixBase(i) };
    return x ^ (x >> mixShiftB);
}

std::uint64_t packHalves(std::uint32_t low, std::uint32_t high) noexcept
{
    return (static_cast<std::uint64_t>(high) << 32U) | low;
}

/** @brief Cell @p i with entries @p row[0 .. degree): its terms; @p ghost set when an entry is
 * negative. */
std::uint64_t cellTerms(std::uint32_t i, const LocalIndex* row, std::size_t degree, bool& ghost)
{
    const std::uint32_t pa { mixA(i) };
    const std::uint32_t pb { mixB(i) };
    std::uint32_t low { 0 };
    std::uint32_t high { 0 };
    LocalIndex negative { 0 };
    for (std::size_t k { 0 }; k < degree; ++k)
    {
        // an entry not owned here counts as the cell itself, whose term is zero
        negative |= row[k];
        const std::uint32_t j { row[k] < 0 ? i : static_cast<std::uint32_t>(row[k]) };
        const std::uint32_t odd { 2 * (i + j) + 1 };
        const std::uint32_t x { mixBase(j) };
        low += odd * (pa - (x ^ (x >> mixShiftA)));
        high += odd * (pb - (x ^ (x >> mixShiftB)));
    }
    ghost = ghost || negative < 0;
    return packHalves(low, high);
}

/** @brief The portable kernel over cells @p first .. @p last. */
std::uint64_t scanPortable(
    std::span<const std::size_t> offsets,
    std::span<const LocalIndex> local,
    std::size_t first,
    std::size_t last,
    std::vector<LocalIndex>& boundary
)
{
    std::uint64_t sum { 0 };
    for (std::size_t i { first }; i < last; ++i)
    {
        bool ghost { false };
        sum = addTerms(
            sum,
            cellTerms(
                static_cast<std::uint32_t>(i),
                local.data() + offsets[i],
                offsets[i + 1] - offsets[i],
                ghost
            )
        );
        if (ghost)
        {
            boundary.push_back(static_cast<LocalIndex>(i));
        }
    }
    return sum;
}

#if FIELDSYNC_SCAN_AVX2
/** @brief Entries of a cell the vector kernel handles in one register. */
constexpr std::size_t vectorWidth { 8 };

/** @brief x = j k + c of the mixes in each lane. */
__attribute__((target("avx2"))) inline __m256i mixBaseLanes(__m256i j)
{
    return _mm256_add_epi32(
        _mm256_mullo_epi32(j, _mm256_set1_epi32(static_cast<int>(mixFactor))),
        _mm256_set1_epi32(static_cast<int>(mixAdd))
    );
}

/** @brief x ^ (x >> shift) in each lane: one of the two mixes of @p x = mixBaseLanes(j). */
__attribute__((target("avx2"))) inline __m256i mixLanes(__m256i x, int shift)
{
    return _mm256_xor_si256(x, _mm256_srli_epi32(x, shift));
}

/** @brief The lanes past @p degree (0 .. 8) set, the others clear. */
alignas(32) constexpr std::int32_t pastDegree[9][8] {
    { -1, -1, -1, -1, -1, -1, -1, -1 }, { 0, -1, -1, -1, -1, -1, -1, -1 },
    { 0, 0, -1, -1, -1, -1, -1, -1 },   { 0, 0, 0, -1, -1, -1, -1, -1 },
    { 0, 0, 0, 0, -1, -1, -1, -1 },     { 0, 0, 0, 0, 0, -1, -1, -1 },
    { 0, 0, 0, 0, 0, 0, -1, -1 },       { 0, 0, 0, 0, 0, 0, 0, -1 },
    { 0, 0, 0, 0, 0, 0, 0, 0 }
};

/** @brief The sum of the eight 32-bit lanes of @p v modulo 2^32. */
__attribute__((target("avx2"))) inline std::uint32_t laneSum(__m256i v)
{
    __m128i s { _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)) };
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(s));
}

/** @brief Lane @p k of @p v in every lane. */
__attribute__((target("avx2"))) inline __m256i laneOf(__m256i v, int k)
{
    return _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(k));
}

/** @brief What the AVX2 kernel carries from cell to cell. */
struct Avx2Scan
{
    const std::size_t* offsets;        /**< the CSR offsets */
    const LocalIndex* local;           /**< the entries */
    std::vector<LocalIndex>& boundary; /**< the boundary cells found */
    __m256i sumA;                      /**< the first halves of the terms, per lane */
    __m256i sumB;                      /**< the second halves */
    std::uint64_t longCells { 0 };     /**< the terms of cells of more than eight entries */
    std::size_t block { 0 };           /**< the first cell of the block */
    __m256i cells {};                  /**< the block's cells */
    __m256i cellA {};                  /**< the first mix of each */
    __m256i cellB {};                  /**< the second mix of each */
};

/**
 * @brief Cell @p K of the block: up to eight entries in one register. Its lanes past the degree
 * and its negative entries become the cell itself, whose term is zero, so no branch depends on
 * the entries. A longer cell goes through cellTerms.
 */
template<int K>
__attribute__((target("avx2"))) inline void scanLane(Avx2Scan& scan)
{
    const __m256i one { _mm256_set1_epi32(1) };
    const std::size_t i { scan.block + static_cast<std::size_t>(K) };
    const std::size_t start { scan.offsets[i] };
    const std::size_t degree { scan.offsets[i + 1] - start };
    if (degree > vectorWidth)
    {
        bool ghost { false };
        scan.longCells = addTerms(
            scan.longCells,
            cellTerms(static_cast<std::uint32_t>(i), scan.local + start, degree, ghost)
        );
        if (ghost)
        {
            scan.boundary.push_back(static_cast<LocalIndex>(i));
        }
        return;
    }
    const __m256i entries { _mm256_loadu_si256(reinterpret_cast<const __m256i*>(scan.local + start)
    ) };
    // sign bit set: past the degree or not owned here
    const __m256i skip { _mm256_or_si256(
        entries, _mm256_load_si256(reinterpret_cast<const __m256i*>(pastDegree[degree]))
    ) };
    const __m256i cell { laneOf(scan.cells, K) };
    const __m256i j { _mm256_blendv_epi8(entries, cell, _mm256_srai_epi32(skip, 31)) };
    const __m256i sum { _mm256_add_epi32(j, cell) };
    const __m256i odd { _mm256_add_epi32(_mm256_add_epi32(sum, sum), one) };
    const __m256i base { mixBaseLanes(j) };
    scan.sumA = _mm256_add_epi32(
        scan.sumA,
        _mm256_mullo_epi32(odd, _mm256_sub_epi32(laneOf(scan.cellA, K), mixLanes(base, mixShiftA)))
    );
    scan.sumB = _mm256_add_epi32(
        scan.sumB,
        _mm256_mullo_epi32(odd, _mm256_sub_epi32(laneOf(scan.cellB, K), mixLanes(base, mixShiftB)))
    );
    const unsigned inCell { (1U << degree) - 1U };
    const auto negative = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(entries)));
    if ((negative & inCell) != 0)
    {
        scan.boundary.push_back(static_cast<LocalIndex>(i));
    }
}

/** @brief The cells of one block, lane by lane. */
template<int... K>
__attribute__((target("avx2"))) inline void
scanBlock(Avx2Scan& scan, std::integer_sequence<int, K...> /*lanes*/)
{
    (scanLane<K>(scan), ...);
}

/**
 * @brief The AVX2 kernel over cells 0 .. @p last - 1 (@p last a multiple of eight), whose
 * eight-entry windows from their first entry lie inside @p local, in blocks of eight cells whose
 * mixes are computed together.
 */
__attribute__((target("avx2"))) std::uint64_t scanAvx2(
    const std::size_t* offsets,
    const LocalIndex* local,
    std::size_t last,
    std::vector<LocalIndex>& boundary
)
{
    const __m256i lane { _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7) };
    Avx2Scan scan { .offsets = offsets,
                    .local = local,
                    .boundary = boundary,
                    .sumA = _mm256_setzero_si256(),
                    .sumB = _mm256_setzero_si256() };
    for (std::size_t block { 0 }; block < last; block += vectorWidth)
    {
        scan.block = block;
        scan.cells = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(block)), lane);
        const __m256i base { mixBaseLanes(scan.cells) };
        scan.cellA = mixLanes(base, mixShiftA);
        scan.cellB = mixLanes(base, mixShiftB);
        scanBlock(scan, std::make_integer_sequence<int, static_cast<int>(vectorWidth)> {});
    }
    return addTerms(scan.longCells, packHalves(laneSum(scan.sumA), laneSum(scan.sumB)));
}
#endif

} // namespace

std::uint64_t edgeTerm(std::uint32_t i, std::uint32_t j) noexcept
{
    const std::uint32_t odd { 2 * (i + j) + 1 };
    return packHalves(odd * (mixA(i) - mixA(j)), odd * (mixB(i) - mixB(j)));
}

std::uint64_t addTerms(std::uint64_t a, std::uint64_t b) noexcept
{
    const auto low = static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b);
    const auto high = static_cast<std::uint32_t>(a >> 32U) + static_cast<std::uint32_t>(b >> 32U);
    return packHalves(low, high);
}

bool vectorScanAvailable() noexcept
{
#if FIELDSYNC_SCAN_AVX2
    static const bool avx2 { __builtin_cpu_supports("avx2") != 0 };
    return avx2;
#else
    return false;
#endif
}

std::uint64_t scanCells(
    std::span<const std::size_t> offsets,
    std::span<const LocalIndex> local,
    std::vector<LocalIndex>& boundary,
    ScanKernel kernel
)
{
    const std::size_t nCells { offsets.empty() ? 0 : offsets.size() - 1 };
    std::size_t portableFrom { 0 };
    std::uint64_t sum { 0 };
#if FIELDSYNC_SCAN_AVX2
    if (kernel == ScanKernel::Best && vectorScanAvailable())
    {
        // whole blocks of eight cells whose eight-entry windows lie inside local; the last cells
        // go to the portable kernel
        portableFrom = nCells;
        while (portableFrom > 0 && offsets[portableFrom - 1] + vectorWidth > local.size())
        {
            --portableFrom;
        }
        portableFrom -= portableFrom % vectorWidth;
        sum = scanAvx2(offsets.data(), local.data(), portableFrom, boundary);
    }
#else
    static_cast<void>(kernel);
#endif
    return addTerms(sum, scanPortable(offsets, local, portableFrom, nCells, boundary));
}

} // namespace fieldsync::partition
