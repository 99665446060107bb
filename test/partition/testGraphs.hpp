// SPDX-License-Identifier: MIT
// Whole-mesh cell graphs of several shapes for the partition tests, and an independent
// (breadth-first) computation of the halo each rank should get.
#pragma once

#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/haloLayout.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <span>
#include <vector>

namespace fieldsync::test
{

using namespace fieldsync::partition;

/** @brief A graph from per-cell neighbour lists (each list sorted). */
inline CellGraph fromLists(const std::vector<std::vector<GlobalIndex>>& lists)
{
    std::vector<std::size_t> offsets { 0 };
    std::vector<GlobalIndex> adjacency;
    for (const auto& list : lists)
    {
        adjacency.insert(adjacency.end(), list.begin(), list.end());
        offsets.push_back(adjacency.size());
    }
    return CellGraph::global(std::move(offsets), std::move(adjacency));
}

/** @brief nx x ny x nz structured grid, face neighbours (nz = 1: 2-D). */
inline CellGraph grid(int nx, int ny, int nz = 1)
{
    std::vector<std::vector<GlobalIndex>> lists(static_cast<std::size_t>(nx * ny * nz));
    const auto id = [&](int i, int j, int k)
    {
        return GlobalIndex { i + nx * (j + ny * k) };
    };
    for (int k { 0 }; k < nz; ++k)
        for (int j { 0 }; j < ny; ++j)
            for (int i { 0 }; i < nx; ++i)
            {
                auto& l = lists[static_cast<std::size_t>(id(i, j, k))];
                if (k > 0)
                    l.push_back(id(i, j, k - 1));
                if (j > 0)
                    l.push_back(id(i, j - 1, k));
                if (i > 0)
                    l.push_back(id(i - 1, j, k));
                if (i + 1 < nx)
                    l.push_back(id(i + 1, j, k));
                if (j + 1 < ny)
                    l.push_back(id(i, j + 1, k));
                if (k + 1 < nz)
                    l.push_back(id(i, j, k + 1));
            }
    return fromLists(lists);
}

/** @brief A ring of n cells (periodic 1-D). */
inline CellGraph ring(int n)
{
    std::vector<std::vector<GlobalIndex>> lists(static_cast<std::size_t>(n));
    for (int i { 0 }; i < n; ++i)
    {
        std::set<GlobalIndex> s { GlobalIndex { (i + n - 1) % n }, GlobalIndex { (i + 1) % n } };
        s.erase(i);
        lists[static_cast<std::size_t>(i)].assign(s.begin(), s.end());
    }
    return fromLists(lists);
}

/** @brief A random symmetric graph: n cells, about @p edges random edges, seeded. */
inline CellGraph randomGraph(int n, int edges, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> pick(0, n - 1);
    std::vector<std::set<GlobalIndex>> sets(static_cast<std::size_t>(n));
    for (int e { 0 }; e < edges; ++e)
    {
        const int a { pick(gen) };
        const int b { pick(gen) };
        if (a != b)
        {
            sets[static_cast<std::size_t>(a)].insert(b);
            sets[static_cast<std::size_t>(b)].insert(a);
        }
    }
    std::vector<std::vector<GlobalIndex>> lists;
    for (const auto& s : sets)
    {
        lists.emplace_back(s.begin(), s.end());
    }
    return fromLists(lists);
}

/** @brief Cells within graph distance @p depth of @p part's cells but not in it: the halo. */
inline std::set<GlobalIndex>
expectedHalo(const CellGraph& g, const std::vector<int>& parts, int part, int depth)
{
    std::set<GlobalIndex> seen;
    std::vector<GlobalIndex> frontier;
    for (std::size_t i { 0 }; i < g.nCells(); ++i)
    {
        if (parts[i] == part)
        {
            seen.insert(static_cast<GlobalIndex>(i));
            frontier.push_back(static_cast<GlobalIndex>(i));
        }
    }
    std::set<GlobalIndex> halo;
    for (int layer { 0 }; layer < depth; ++layer)
    {
        std::vector<GlobalIndex> next;
        for (const GlobalIndex c : frontier)
        {
            for (const GlobalIndex n : g.neighbours(static_cast<std::size_t>(c)))
            {
                if (seen.insert(n).second)
                {
                    halo.insert(n);
                    next.push_back(n);
                }
            }
        }
        frontier = std::move(next);
    }
    return halo;
}

/** @brief The depth-1 send map from the whole graph: per other rank, the cells of @p rank next
 * to its cells, ascending. */
inline std::map<int, std::vector<GlobalIndex>>
expectedSends(const CellGraph& g, const std::vector<int>& parts, int rank)
{
    std::map<int, std::vector<GlobalIndex>> sends;
    for (std::size_t c { 0 }; c < g.nCells(); ++c)
    {
        for (const GlobalIndex n : g.neighbours(c))
        {
            const int q { parts[static_cast<std::size_t>(n)] };
            if (parts[c] == rank && q != rank)
            {
                auto& cells = sends[q];
                if (cells.empty() || cells.back() != static_cast<GlobalIndex>(c))
                {
                    cells.push_back(static_cast<GlobalIndex>(c));
                }
            }
        }
    }
    return sends;
}

/** @brief The send map of @p layout by neighbour: the global ids of the owned cells it sends. */
inline std::map<int, std::vector<GlobalIndex>> sendsOf(const HaloLayout& layout)
{
    std::map<int, std::vector<GlobalIndex>> sends;
    const auto& send = layout.sendMap();
    for (std::size_t k { 0 }; k < send.neighbourCount(); ++k)
    {
        auto& cells = sends[send.neighbours()[k]];
        for (std::size_t e { send.offsets()[k] }; e < send.offsets()[k + 1]; ++e)
        {
            cells.push_back(layout.globalIds()[static_cast<std::size_t>(send.indices()[e])]);
        }
    }
    return sends;
}

/** @brief The rows of @p g that @p parts gives rank @p rank, in descending id order. */
inline CellGraph ownedPiece(const CellGraph& g, const std::vector<int>& parts, int rank)
{
    std::vector<GlobalIndex> ids;
    std::vector<std::size_t> offsets { 0 };
    std::vector<GlobalIndex> adjacency;
    for (std::size_t i { g.nCells() }; i-- > 0;)
    {
        if (parts[i] == rank)
        {
            ids.push_back(static_cast<GlobalIndex>(i));
            const auto n = g.neighbours(i);
            adjacency.insert(adjacency.end(), n.begin(), n.end());
            offsets.push_back(adjacency.size());
        }
    }
    return CellGraph(std::move(ids), std::move(offsets), std::move(adjacency));
}

/** @brief The rows of @p g that cell i % @p nRanks = @p rank gives this rank (descending id). */
inline CellGraph roundRobinPiece(const CellGraph& g, int rank, int nRanks)
{
    std::vector<int> parts(g.nCells());
    for (std::size_t i { 0 }; i < parts.size(); ++i)
    {
        parts[i] = static_cast<int>(i % static_cast<std::size_t>(nRanks));
    }
    return ownedPiece(g, parts, rank);
}

/** @brief The owner under @p parts of each adjacency entry of @p piece (HaloBuilder's owners). */
inline std::vector<int> neighbourOwners(const CellGraph& piece, const std::vector<int>& parts)
{
    std::vector<int> owners;
    owners.reserve(piece.adjacency().size());
    for (const GlobalIndex n : piece.adjacency())
    {
        owners.push_back(parts[static_cast<std::size_t>(n)]);
    }
    return owners;
}

/** @brief The known function of a global id that owners write and ghosts must receive. */
inline double valueOf(GlobalIndex id)
{
    return 1000.0 + 0.5 * static_cast<double>(id);
}

/** @brief Component @p c of a known multi-component value of cell @p id (migration tests). */
inline double componentOf(GlobalIndex id, std::size_t c)
{
    return 10.0 * static_cast<double>(id) + static_cast<double>(c) + 0.25;
}

/** @brief Collective: max / mean over the ranks of @p env of each rank's sum of @p weight(id)
 * over its @p ids (rebalancing tests: the imbalance computed from the weight formula). */
template<typename Weight>
double weightImbalance(
    const mpi::MPIEnvironment& env, std::span<const GlobalIndex> ids, const Weight& weight
)
{
    double mine { 0.0 };
    for (const GlobalIndex id : ids)
    {
        mine += weight(id);
    }
    double largest { mine };
    double sum { mine };
    mpi::allReduce(largest, mpi::ReduceOp::Max, env.comm());
    mpi::allReduce(sum, mpi::ReduceOp::Sum, env.comm());
    return largest * env.sizeRank() / sum;
}

} // namespace fieldsync::test
