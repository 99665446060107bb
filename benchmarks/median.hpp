// SPDX-License-Identifier: MIT
// The benchmarks' method: interleaved rounds, the median of repeated timings, the maximum over
// ranks.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace fieldsync_bench
{

/** @brief The median of @p v (the upper middle of an even count); 0 for no values. */
inline double median(std::vector<double> v)
{
    if (v.empty())
    {
        return 0.0;
    }
    const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), middle, v.end());
    return *middle;
}

/**
 * @brief Calls @p fn(round, method) for each of @p rounds rounds and each of @p methods methods,
 * the order rotating by one each round (A,B,C then B,C,A then C,A,B ...), so that no method
 * always runs after the same other one.
 */
template<typename Fn>
void interleaved(int rounds, int methods, Fn&& fn)
{
    for (int round { 0 }; round < rounds; ++round)
    {
        for (int k { 0 }; k < methods; ++k)
        {
            fn(round, (k + round) % methods);
        }
    }
}

/** @brief Collective over MPI_COMM_WORLD: the element-wise maximum of @p v over ranks. */
inline std::vector<double> maxOverRanks(std::vector<double> v)
{
    MPI_Allreduce(
        MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD
    );
    return v;
}

} // namespace fieldsync_bench
