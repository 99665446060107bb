// SPDX-License-Identifier: MIT
#include "fieldsync/partition/ptScotchPartitioner.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include <mpi.h>
// clang-format off: ptscotch.h needs stdio.h and mpi.h first
#include <ptscotch.h>
// clang-format on

namespace fieldsync::partition
{

namespace
{
/** @brief The distributed graph in PT-Scotch's arrays (0-based, compact). */
struct ScotchArrays
{
    std::vector<SCOTCH_Num> vertices; /**< CSR offsets, size n+1 */
    std::vector<SCOTCH_Num> edges;    /**< neighbour global numbers */
};

/**
 * @brief Checks the block distribution and the id ranges; returns the error text of this rank
 * (empty when fine) and fills @p arrays.
 */
std::string toScotch(const mpi::MPIEnvironment& env, const CellGraph& owned, ScotchArrays& arrays)
{
    auto mine = static_cast<std::int64_t>(owned.nCells());
    std::int64_t first { 0 };
    FIELDSYNC_MPI(MPI_Exscan(&mine, &first, 1, MPI_INT64_T, MPI_SUM, env.comm()));
    if (env.rank() == 0)
    {
        first = 0; // MPI_Exscan leaves rank 0's result undefined
    }
    std::int64_t total { mine };
    mpi::allReduce(total, mpi::ReduceOp::Sum, env.comm());
    if (total >= static_cast<std::int64_t>(std::numeric_limits<SCOTCH_Num>::max()) ||
        owned.adjacency().size() >=
            static_cast<std::size_t>(std::numeric_limits<SCOTCH_Num>::max()))
    {
        std::string text { "PtScotchPartitioner: " };
        text.append(std::to_string(total)).append(" cells exceed SCOTCH_Num (");
        text.append(std::to_string(sizeof(SCOTCH_Num) * 8)).append(" bits)");
        return text;
    }
    for (std::size_t i { 0 }; i < owned.nCells(); ++i)
    {
        if (owned.globalId(i) != first + static_cast<std::int64_t>(i))
        {
            std::string text { "PtScotchPartitioner: rank " };
            text.append(std::to_string(env.rank())).append(" row ").append(std::to_string(i));
            text.append(" has id ").append(std::to_string(owned.globalId(i)));
            text.append(", expected ").append(std::to_string(first + static_cast<std::int64_t>(i)));
            text.append(" (rows must be contiguous ascending id blocks in rank order)");
            return text;
        }
    }
    arrays.vertices.resize(owned.nCells() + 1);
    for (std::size_t i { 0 }; i <= owned.nCells(); ++i)
    {
        arrays.vertices[i] = static_cast<SCOTCH_Num>(owned.offsets()[i]);
    }
    arrays.edges.resize(owned.adjacency().size());
    for (std::size_t k { 0 }; k < arrays.edges.size(); ++k)
    {
        const GlobalIndex n { owned.adjacency()[k] };
        if (n >= total)
        {
            std::string text { "PtScotchPartitioner: neighbour " };
            text.append(std::to_string(n)).append(" is not a cell of the graph (");
            text.append(std::to_string(total)).append(" cells)");
            return text;
        }
        arrays.edges[k] = static_cast<SCOTCH_Num>(n);
    }
    return {};
}

/** @brief PT-Scotch's return code as an error text (empty on success). */
std::string scotchError(int rc, const char* call)
{
    if (rc == 0)
    {
        return {};
    }
    std::string text { "PtScotchPartitioner: " };
    text.append(call).append(" failed with code ").append(std::to_string(rc));
    return text;
}
} // namespace

std::vector<int> PtScotchPartitioner::partition(
    const mpi::MPIEnvironment& env, const CellGraph& owned, int nParts, std::source_location where
) const
{
    const int parts { nParts >= 1 ? nParts : env.sizeRank() };
    ScotchArrays arrays;
    mpi::raiseIfAnyFailed(env.comm(), toScotch(env, owned, arrays), where);
    if (parts == 1)
    {
        return std::vector<int>(owned.nCells(), 0);
    }
    // PT-Scotch sends with tags of its own on the communicator it is given (it does not
    // duplicate it): a duplicate of the caller's for this call alone keeps them off the
    // application's and the library's messages
    MPI_Comm own { MPI_COMM_NULL };
    FIELDSYNC_MPI_AT(MPI_Comm_dup(env.comm(), &own), where);
    const mpi::MPIEnvironment engine { mpi::MPIEnvironment::adopt(own, where) };
    SCOTCH_Dgraph graph;
    FIELDSYNC_CHECK_AT(
        SCOTCH_dgraphInit(&graph, engine.comm()) == 0,
        "PtScotchPartitioner: SCOTCH_dgraphInit failed",
        where
    );
    const auto n = static_cast<SCOTCH_Num>(owned.nCells());
    const auto nEdges = static_cast<SCOTCH_Num>(arrays.edges.size());
    std::string error { scotchError(
        SCOTCH_dgraphBuild(
            &graph,
            0,
            n,
            n,
            arrays.vertices.data(),
            arrays.vertices.data() + 1,
            nullptr,
            nullptr,
            nEdges,
            nEdges,
            arrays.edges.data(),
            nullptr,
            nullptr
        ),
        "SCOTCH_dgraphBuild"
    ) };
    // collective calls only while every rank got this far: agree first
    try
    {
        mpi::raiseIfAnyFailed(env.comm(), error, where);
        mpi::raiseIfAnyFailed(
            env.comm(),
            SCOTCH_dgraphCheck(&graph) == 0
                ? std::string {}
                : std::string { "PtScotchPartitioner: SCOTCH_dgraphCheck rejects the graph "
                                "(asymmetric edges or bad ids)" },
            where
        );
    }
    catch (...)
    {
        SCOTCH_dgraphExit(&graph);
        throw;
    }
    SCOTCH_Strat strategy;
    SCOTCH_stratInit(&strategy);
    std::vector<SCOTCH_Num> result(owned.nCells() + 1); // +1: never a null pointer
    error = scotchError(
        SCOTCH_stratDgraphMapBuild(
            &strategy,
            SCOTCH_STRATDEFAULT,
            static_cast<SCOTCH_Num>(env.sizeRank()),
            static_cast<SCOTCH_Num>(parts),
            imbalance_
        ),
        "SCOTCH_stratDgraphMapBuild"
    );
    if (error.empty())
    {
        error = scotchError(
            SCOTCH_dgraphPart(&graph, static_cast<SCOTCH_Num>(parts), &strategy, result.data()),
            "SCOTCH_dgraphPart"
        );
    }
    SCOTCH_stratExit(&strategy);
    SCOTCH_dgraphExit(&graph);
    mpi::raiseIfAnyFailed(env.comm(), error, where);
    std::vector<int> out(owned.nCells());
    for (std::size_t i { 0 }; i < out.size(); ++i)
    {
        out[i] = static_cast<int>(result[i]);
    }
    return out;
}

} // namespace fieldsync::partition
