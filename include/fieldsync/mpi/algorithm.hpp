// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/error.hpp"

namespace fieldsync::mpi
{

/**
 * @brief Which algorithm runs a collective (seeds 003 and 000; doc/algorithms.md). Native, the
 * default, calls the MPI library's own collective. The others are fieldsync's own algorithms over
 * point-to-point messages (fieldsync::mpi::algorithms) for the collectives they apply to, and
 * the hierarchical allreduce variants of a CommunicatorHierarchy level. A collective given an
 * algorithm that does not apply to it is a fieldsync::Error naming both.
 */
enum class Algorithm
{
    Native,            /**< the MPI library's collective */
    BinomialTree,      /**< reduce, broadcast, gather: binomial tree */
    ScatterAllGather,  /**< broadcast: scatter, then ring allgather */
    Naive,             /**< scatter, gather: the root talks to every rank */
    DivideAndConquer,  /**< scatter: recursive halving of the rank range */
    Ring,              /**< allgather (bucket), allreduce (reduce-scatter + allgather rings) */
    RecursiveDoubling, /**< allgather, allreduce: recursive doubling */
    Rabenseifner,      /**< allreduce: reduce-scatter (halving) + allgather (doubling) */
    RecursiveHalving,  /**< reduce-scatter: recursive halving */
    Cartesian2Step,    /**< hierarchy allreduce: inner allreduce, then outer allreduce */
    Tree3Step,         /**< hierarchy allreduce: inner reduce, outer allreduce, inner bcast */
    NodeAware          /**< hierarchy allreduce: inner reduce-scatter, outer, inner allgather */
};

/** @brief The name of an Algorithm, for messages ("RecursiveDoubling"). */
[[nodiscard]] const char* toString(Algorithm algorithm) noexcept;

using fieldsync::toString; // the core overloads (call sites) stay visible here

} // namespace fieldsync::mpi
