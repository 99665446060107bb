// SPDX-License-Identifier: MIT
// Internal: HaloBuilder's pass over the local adjacency once every entry is a local index (the
// symmetry sum of the edges inside a rank and the boundary cells), with a vector kernel where
// the CPU has one.
#pragma once

#include "fieldsync/core/localIndex.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fieldsync::partition
{

/** @brief Which implementation scanCells() runs. */
enum class ScanKernel
{
    Best,    /**< the vector kernel where the CPU has one (x86-64 with AVX2), else Portable */
    Portable /**< plain C++, one entry at a time */
};

/**
 * @brief The symmetry term of the local edge @p i -> @p j: two 32-bit halves, each
 * (2i + 1)(2j + 1)(p(i) - p(j)) modulo 2^32 with its own bijective mix p (a multiply, an add and
 * a shift with an exclusive or). edgeTerm(j, i) is its negative half by half, so the terms of an
 * edge listed both ways cancel; the term of one edge is never zero for i != j (odd factors are
 * invertible modulo 2^32 and p is a bijection).
 */
[[nodiscard]] std::uint64_t edgeTerm(std::uint32_t i, std::uint32_t j) noexcept;

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

} // namespace fieldsync::partition
