// SPDX-License-Identifier: MIT
// Halo patterns for the tests, generated from a seed every rank shares. Each rank computes the
// pattern itself (no communication), so the expected values are independent of fieldsync.
#pragma once

#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync_test/mix.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <mpi.h>

namespace fieldsync::test
{

using halo::RankSimplexCommMap;

/** @brief The neighbour graphs the tests use. */
enum class Shape
{
    Ring,     /**< ghosts from rank-1 and rank+1 (itself on one rank: periodic) */
    AllToAll, /**< ghosts from every rank, itself included */
    Random    /**< each pair with probability 1/2, random sizes including empty */
};

/** @brief Owned cells of rank @p r. */
inline int ownedCount(int r)
{
    return 20 + (r * 7) % 13;
}

/** @brief First global id of rank @p r. */
inline long globalOffset(int r)
{
    long offset { 0 };
    for (int s = 0; s < r; ++s)
    {
        offset += ownedCount(s);
    }
    return offset;
}

/** @brief The owned cells (local on @p s) that rank @p r ghosts from rank @p s, in order. */
inline std::vector<LocalIndex>
ghostsOf(int r, int s, int nRanks, Shape shape, std::uint64_t seed, int maxSize)
{
    std::uint64_t state =
        mix(seed * 1000003ULL + static_cast<std::uint64_t>(r) * 4099ULL +
            static_cast<std::uint64_t>(s));
    auto next = [&]
    {
        return state = mix(state);
    };
    bool linked { false };
    switch (shape)
    {
    case Shape::Ring:
        linked = s == (r + 1) % nRanks || s == (r + nRanks - 1) % nRanks;
        break;
    case Shape::AllToAll:
        linked = true;
        break;
    case Shape::Random:
        linked = next() % 2 == 0;
        break;
    }
    if (!linked)
    {
        return {};
    }
    const int available = ownedCount(s);
    int count = std::min(maxSize, available);
    if (shape == Shape::Random)
    {
        count = static_cast<int>(next() % static_cast<std::uint64_t>(count + 1));
    }
    std::vector<LocalIndex> cells(static_cast<std::size_t>(available));
    std::iota(cells.begin(), cells.end(), 0);
    for (int i = 0; i < count; ++i) // partial Fisher-Yates: distinct cells in random order
    {
        const auto j =
            static_cast<std::size_t>(i) + next() % static_cast<std::uint64_t>(available - i);
        std::swap(cells[static_cast<std::size_t>(i)], cells[j]);
    }
    cells.resize(static_cast<std::size_t>(count));
    return cells;
}

/** @brief One rank's part of a pattern: local numbering and the two maps. */
struct Setup
{
    int nOwned { 0 };           /**< owned cells, local 0..nOwned-1 */
    int nLocal { 0 };           /**< owned + ghost cells */
    std::vector<long> globalId; /**< global id of each local cell */
    RankSimplexCommMap send;    /**< cells sent to each neighbour */
    RankSimplexCommMap receive; /**< ghost cells received from each */
};

/**
 * @brief Builds rank @p me's maps. Ghosts are numbered after the owned cells, neighbour after
 * neighbour (contiguous per neighbour) or, with @p scatter, in a random permutation of blocks of
 * @p block consecutive numbers (1: of single cells; larger: receive lists made of runs).
 */
inline Setup makeSetup(
    int me, int nRanks, Shape shape, std::uint64_t seed, int maxSize, bool scatter, int block = 1
)
{
    Setup setup;
    setup.nOwned = ownedCount(me);
    setup.send = RankSimplexCommMap(nRanks);
    setup.receive = RankSimplexCommMap(nRanks);
    for (int i = 0; i < setup.nOwned; ++i)
    {
        setup.globalId.push_back(globalOffset(me) + i);
    }
    std::vector<std::vector<LocalIndex>> incoming(static_cast<std::size_t>(nRanks));
    int ghosts { 0 };
    for (int s = 0; s < nRanks; ++s)
    {
        incoming[static_cast<std::size_t>(s)] = ghostsOf(me, s, nRanks, shape, seed, maxSize);
        ghosts += static_cast<int>(incoming[static_cast<std::size_t>(s)].size());
        setup.send.setRank(s, ghostsOf(s, me, nRanks, shape, seed, maxSize));
    }
    std::vector<LocalIndex> position(static_cast<std::size_t>(ghosts));
    std::iota(position.begin(), position.end(), setup.nOwned);
    if (scatter)
    {
        const auto width = static_cast<std::size_t>(block);
        std::vector<std::size_t> blocks((position.size() + width - 1) / width);
        std::iota(blocks.begin(), blocks.end(), std::size_t { 0 });
        std::uint64_t state = mix(seed + 77 + static_cast<std::uint64_t>(me));
        for (std::size_t i = blocks.size(); i > 1; --i)
        {
            state = mix(state);
            std::swap(blocks[i - 1], blocks[state % i]);
        }
        std::vector<LocalIndex> permuted;
        for (const std::size_t b : blocks)
        {
            for (std::size_t j = b * width; j < std::min(position.size(), (b + 1) * width); ++j)
            {
                permuted.push_back(position[j]);
            }
        }
        position = std::move(permuted);
    }
    setup.nLocal = setup.nOwned + ghosts;
    setup.globalId.resize(static_cast<std::size_t>(setup.nLocal), -1);
    std::size_t next { 0 };
    for (int s = 0; s < nRanks; ++s)
    {
        std::vector<LocalIndex> slots;
        for (const LocalIndex cell : incoming[static_cast<std::size_t>(s)])
        {
            const LocalIndex at = position[next++];
            setup.globalId[static_cast<std::size_t>(at)] = globalOffset(s) + cell;
            slots.push_back(at);
        }
        setup.receive.setRank(s, slots);
    }
    return setup;
}

/** @brief The value an owned cell holds: a known function of global id, component and step. */
inline double truth(long globalId, int component, int step = 0)
{
    return static_cast<double>(globalId) * 8.0 + component * 0.25 + step * 1.0e6;
}

/** @brief A field of @p components per cell of @p setup: owned cells hold truth(), ghosts -1. */
template<typename V>
V fieldOfTruth(const Setup& setup, int components, int step = 0)
{
    V field;
    if constexpr (V::rank == 1)
    {
        field = V("field", setup.nLocal);
    }
    else
    {
        field = V("field", setup.nLocal, components);
    }
    auto host = Kokkos::create_mirror_view(field);
    for (int i = 0; i < setup.nLocal; ++i)
    {
        for (int c = 0; c < components; ++c)
        {
            const double value = i < setup.nOwned
                                     ? truth(setup.globalId[static_cast<std::size_t>(i)], c, step)
                                     : -1.0;
            if constexpr (V::rank == 1)
            {
                host(i) = value;
            }
            else
            {
                host(i, c) = value;
            }
        }
    }
    Kokkos::deep_copy(field, host);
    return field;
}

/** @brief The cells (owned and ghost) of @p field that differ from truth(). */
template<typename V>
int cellsNotTruth(const V& field, const Setup& setup, int components, int step = 0)
{
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
    int wrong { 0 };
    for (int i = 0; i < setup.nLocal; ++i)
    {
        const long g = setup.globalId[static_cast<std::size_t>(i)];
        for (int c = 0; c < components; ++c)
        {
            double value { 0 };
            if constexpr (V::rank == 1)
            {
                value = host(i);
            }
            else
            {
                value = host(i, c);
            }
            wrong += value == truth(g, c, step) ? 0 : 1;
        }
    }
    return wrong;
}

/** @brief The value rank @p r's ghost of global id @p g sends back in reverse tests. */
inline double backValue(int r, long g)
{
    return (r + 1) * 1000.0 + static_cast<double>(g % 97);
}

/**
 * @brief Where MPICH raises a truncated receive, MPI_ERRORS_RETURN for the scope of a test.
 *
 * MPICH (4.0) reports errors of MPI_Test/MPI_Testall to MPI_COMM_WORLD's error handler, not to
 * the request's communicator, so a truncated receive aborts unless the application returns
 * errors on MPI_COMM_WORLD. Open MPI uses the request's communicator (the library's duplicate,
 * which returns errors), so nothing is changed there.
 */
class TruncationReturnsOnWorld
{
public:
    TruncationReturnsOnWorld()
    {
#ifdef MPICH_VERSION
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &previous_);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#endif
    }
    ~TruncationReturnsOnWorld()
    {
#ifdef MPICH_VERSION
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, previous_);
        MPI_Errhandler_free(&previous_);
#endif
    }
    TruncationReturnsOnWorld(const TruncationReturnsOnWorld&) = delete;
    TruncationReturnsOnWorld& operator=(const TruncationReturnsOnWorld&) = delete;

private:
    MPI_Errhandler previous_ { MPI_ERRHANDLER_NULL }; /**< world's handler before */
};

} // namespace fieldsync::test
