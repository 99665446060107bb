// SPDX-License-Identifier: MIT
// Internal: HaloBuilder's pass over the local adjacency: each entry looked up to a local index,
// the boundary cells and a sum that checks the symmetry of the edges inside the rank, with a
// vector kernel where the CPU has one.
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/partition/cellGraph.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

namespace fieldsync::partition
{

/** @brief Which implementation scanCells() and lookUpAndScan() run. */
enum class ScanKernel
{
    Best,    /**< the vector kernel where the CPU has one (x86-64 with AVX2), else Portable */
    Portable /**< plain C++, one entry at a time */
};

/**
 * @brief The symmetry term of the local edge @p i -> @p j in the vector kernel's sum: two 32-bit
 * halves, each (2(i + j) + 1)(p(i) - p(j)) modulo 2^32 with its own bijective mix p
 * (x = i k + c, then p = x ^ (x >> 15) or x ^ (x >> 7)). edgeTerm(j, i) is its negative half by
 * half, so the terms of an edge listed both ways cancel; the term of one edge is never zero for
 * i != j (the odd factor is invertible modulo 2^32 and p is a bijection).
 */
[[nodiscard]] std::uint64_t edgeTerm(std::uint32_t i, std::uint32_t j) noexcept;

/**
 * @brief The mix v of the single pass's sum (a multiply, an add, a shift and an exclusive or,
 * 64-bit).
 */
[[nodiscard]] constexpr std::uint64_t symmetryMix(std::uint64_t i) noexcept
{
    const std::uint64_t x { i * 0x9E3779B97F4A7C15ULL + 0x5851F42DULL };
    return x ^ (x >> 29U);
}

/**
 * @brief The symmetry term of the local edge @p i -> @p j in the single pass's sum:
 * v(i)(2j + 1) - v(j)(2i + 1) modulo 2^64 (v: symmetryMix); the negative of the reverse edge's.
 */
[[nodiscard]] constexpr std::uint64_t singlePassTerm(std::uint64_t i, std::uint64_t j) noexcept
{
    return symmetryMix(i) * (2 * j + 1) - symmetryMix(j) * (2 * i + 1);
}

/** @brief @p a + @p b half by half (each 32-bit half modulo 2^32), as symmetry terms add. */
[[nodiscard]] std::uint64_t addTerms(std::uint64_t a, std::uint64_t b) noexcept;

/**
 * @brief One pass over a local adjacency in CSR form (@p offsets, size cells + 1; @p local, the
 * neighbours' local indices, negative for an entry not owned here). Returns the sum (addTerms)
 * of edgeTerm(i, j) over the entries with j >= 0: zero when every such edge is listed both ways.
 * Appends to @p boundary, ascending, the cells with a negative entry. Local indices must be
 * below 2^31 (LocalIndex).
 */
[[nodiscard]] std::uint64_t scanCells(
    std::span<const std::size_t> offsets,
    std::span<const LocalIndex> local,
    std::vector<LocalIndex>& boundary,
    ScanKernel kernel = ScanKernel::Best
);

/** @brief Whether ScanKernel::Best runs a vector kernel on this CPU. */
[[nodiscard]] bool vectorScanAvailable() noexcept;

/**
 * @brief A forward iterator over ids that yields each one's look-up in a Lookup (its find()):
 * a vector constructed from a range of them is filled in one pass, without being zeroed first.
 */
template<typename Lookup>
class LookUpIterator
{
public:
    using iterator_category = std::forward_iterator_tag; /**< a forward iterator */
    using value_type = LocalIndex;                       /**< what it yields */
    using difference_type = std::ptrdiff_t;              /**< distance between two */
    using pointer = void;                                /**< yields values only */
    using reference = LocalIndex;                        /**< yields values only */

    /** @brief An iterator at @p id, looking up in @p lookup. */
    LookUpIterator(const GlobalIndex* id, const Lookup& lookup) : id_(id), lookup_(&lookup) {}

    /** @brief The look-up of the current id. */
    LocalIndex operator*() const { return lookup_->find(*id_); }

    /** @brief The next id. */
    LookUpIterator& operator++()
    {
        ++id_;
        return *this;
    }

    /** @brief The next id (post-increment). */
    LookUpIterator operator++(int)
    {
        LookUpIterator before { *this };
        ++id_;
        return before;
    }

    /** @brief Whether both are at the same id. */
    bool operator==(const LookUpIterator& other) const { return id_ == other.id_; }

private:
    const GlobalIndex* id_; /**< the current id */
    const Lookup* lookup_;  /**< where ids are looked up */
};

/**
 * @brief The single pass's boundary cell @p i (entries @p row): notes it, calls @p onBoundary
 * and returns what takes its entries not owned here (counted as j = -1) out of the sum.
 */
template<typename OnBoundary>
std::uint64_t boundaryCell(
    std::size_t i,
    std::span<const LocalIndex> row,
    std::vector<LocalIndex>& boundary,
    const OnBoundary& onBoundary
)
{
    const std::uint64_t mixedGhost { symmetryMix(~std::uint64_t { 0 }) };
    std::uint64_t correction { 0 };
    for (const LocalIndex j : row)
    {
        if (j < 0)
        {
            correction += symmetryMix(i) + (2 * i + 1) * mixedGhost;
        }
    }
    boundary.push_back(static_cast<LocalIndex>(i));
    onBoundary(i);
    return correction;
}

/**
 * @brief HaloBuilder's pass over a local adjacency in CSR form (@p offsets, size cells + 1;
 * @p ids, the neighbours' global ids): makes @p local each entry's local index,
 * @p ownedIndex.find(id) (negative when not owned here); appends to @p boundary, ascending, the
 * cells with such an entry and calls @p onBoundary(cell) for each, while its entries may still be
 * in cache; returns a sum that is zero when every edge between owned cells is listed both ways
 * (non-zero: search the edges). With the vector kernel (Best on a CPU that has it): @p local
 * constructed from the look-ups (a flat loop, no zeroing), then scanCells, the sum of edgeTerm.
 * Otherwise one loop over the cells that looks the entries up and sums singlePassTerm, the faster
 * form in plain code.
 */
template<typename Lookup, typename OnBoundary>
[[nodiscard]] std::uint64_t lookUpAndScan(
    const Lookup& ownedIndex,
    std::span<const std::size_t> offsets,
    std::span<const GlobalIndex> ids,
    std::vector<LocalIndex>& local,
    std::vector<LocalIndex>& boundary,
    const OnBoundary& onBoundary,
    ScanKernel kernel = ScanKernel::Best
)
{
    if (kernel == ScanKernel::Best && vectorScanAvailable())
    {
        local = std::vector<LocalIndex>(
            LookUpIterator<Lookup>(ids.data(), ownedIndex),
            LookUpIterator<Lookup>(ids.data() + ids.size(), ownedIndex)
        );
        const std::size_t noted { boundary.size() };
        const std::uint64_t sum { scanCells(offsets, local, boundary, ScanKernel::Best) };
        for (std::size_t b { noted }; b < boundary.size(); ++b)
        {
            onBoundary(static_cast<std::size_t>(boundary[b]));
        }
        return sum;
    }
    // per cell i: the sum over its entries of singlePassTerm(i, j) is
    // v(i) (2 sum j + degree) - (2i + 1) sum v(j); an entry not owned counts as j = -1 here and
    // its term is taken out when its cell is a boundary cell
    const std::size_t nCells { offsets.empty() ? 0 : offsets.size() - 1 };
    local.resize(ids.size());
    std::uint64_t asymmetry { 0 };
    std::size_t e { 0 };
    for (std::size_t i { 0 }; i < nCells; ++i)
    {
        const std::size_t start { e };
        const std::size_t end { offsets[i + 1] };
        const std::uint64_t degree { end - e };
        std::uint64_t sum { 0 };   // sum of j over the neighbours j
        std::uint64_t mixed { 0 }; // sum of v(j)
        LocalIndex any { 0 };      // negative when a neighbour is not owned
        for (; e < end; ++e)
        {
            const LocalIndex j { ownedIndex.find(ids[e]) };
            local[e] = j;
            any |= j;
            sum += static_cast<std::uint64_t>(j);
            mixed += symmetryMix(static_cast<std::uint64_t>(j));
        }
        asymmetry += symmetryMix(i) * (2 * sum + degree) - (2 * i + 1) * mixed;
        if (any < 0)
        {
            asymmetry += boundaryCell(
                i,
                std::span<const LocalIndex>(local).subspan(start, end - start),
                boundary,
                onBoundary
            );
        }
    }
    return asymmetry;
}

} // namespace fieldsync::partition
