// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/reordering.hpp"

#include "fieldsync/core/error.hpp"

#include <cstddef>
#include <string>

namespace fieldsync::mpi
{

Reordering::Reordering(std::vector<int> newRankOf) : kind_(Kind::Mapping)
{
    mapping_ = [table = std::move(newRankOf)](int oldRank)
    {
        return oldRank >= 0 && static_cast<std::size_t>(oldRank) < table.size()
                   ? table[static_cast<std::size_t>(oldRank)]
                   : -1;
    };
}

namespace
{
/** @brief The first problem of @p newRankOf as a permutation, or an empty string. */
std::string permutationProblem(const std::vector<int>& newRankOf)
{
    const int n = static_cast<int>(newRankOf.size());
    std::vector<int> firstOldOf(newRankOf.size(), -1);
    for (int r = 0; r < n; ++r)
    {
        const int target = newRankOf[static_cast<std::size_t>(r)];
        if (target < 0 || target >= n)
        {
            return "old rank " + std::to_string(r) + " maps to " + std::to_string(target) +
                   ", out of range 0.." + std::to_string(n - 1);
        }
        int& first = firstOldOf[static_cast<std::size_t>(target)];
        if (first >= 0)
        {
            return "old ranks " + std::to_string(first) + " and " + std::to_string(r) +
                   " both map to new rank " + std::to_string(target);
        }
        first = r;
    }
    return {};
}
} // namespace

std::vector<int> gatherRankMapping(
    const MPIEnvironment& env, const std::function<int(int)>& mapping, std::source_location where
)
{
    FIELDSYNC_CHECK_AT(static_cast<bool>(mapping), "reorder: the rank mapping is empty", where);
    const int mine = mapping(env.rank());
    std::vector<int> newRankOf(static_cast<std::size_t>(env.sizeRank()));
    FIELDSYNC_MPI_AT(
        MPI_Allgather(&mine, 1, MPI_INT, newRankOf.data(), 1, MPI_INT, env.comm()), where
    );
    const std::string problem = permutationProblem(newRankOf);
    FIELDSYNC_CHECK_AT(
        problem.empty(), "reorder: the rank mapping is not a permutation: " + problem, where
    );
    return newRankOf;
}

MPIEnvironment reorder(
    const MPIEnvironment& env, const std::function<int(int)>& mapping, std::source_location where
)
{
    const std::vector<int> newRankOf = gatherRankMapping(env, mapping, where);
    return env.split(0, newRankOf[static_cast<std::size_t>(env.rank())], where);
}

MPIEnvironment
reorder(const MPIEnvironment& env, const std::vector<int>& newRankOf, std::source_location where)
{
    return reorder(env, Reordering(newRankOf).mapping(), where);
}

namespace detail
{
std::vector<int> rankMappingBetween(const MPIEnvironment& oldEnv, const MPIEnvironment& newEnv)
{
    const int mine = newEnv.rank();
    std::vector<int> newRankOf(static_cast<std::size_t>(oldEnv.sizeRank()));
    FIELDSYNC_MPI(MPI_Allgather(&mine, 1, MPI_INT, newRankOf.data(), 1, MPI_INT, oldEnv.comm()));
    return newRankOf;
}
} // namespace detail

} // namespace fieldsync::mpi
