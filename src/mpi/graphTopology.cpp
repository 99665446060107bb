// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/graphTopology.hpp"

#include "fieldsync/core/error.hpp"

#include <cstddef>
#include <string>

namespace fieldsync::mpi
{

namespace
{
/** @brief Checks one side (sources or destinations) of the constructor's arguments. */
void checkSide(
    const char* side,
    const std::vector<int>& ranks,
    const std::vector<int>& weights,
    int nRanks,
    const std::source_location& where
)
{
    FIELDSYNC_CHECK_AT(
        ranks.size() == weights.size(),
        std::string("GraphTopology: ") + std::to_string(weights.size()) + " weights for " +
            std::to_string(ranks.size()) + " " + side,
        where
    );
    for (std::size_t k = 0; k < ranks.size(); ++k)
    {
        FIELDSYNC_CHECK_AT(
            ranks[k] >= 0 && ranks[k] < nRanks,
            std::string("GraphTopology: ") + side + " entry " + std::to_string(k) + " is rank " +
                std::to_string(ranks[k]) + ", out of range 0.." + std::to_string(nRanks - 1),
            where
        );
        FIELDSYNC_CHECK_AT(
            weights[k] >= 0,
            std::string("GraphTopology: ") + side + " entry " + std::to_string(k) +
                " has negative weight " + std::to_string(weights[k]),
            where
        );
    }
}

/** @brief Renames @p ranks by @p newRankOf (old rank -> new rank). */
void translate(std::vector<int>& ranks, const std::vector<int>& newRankOf)
{
    for (int& r : ranks)
    {
        r = newRankOf[static_cast<std::size_t>(r)];
    }
}

/** @brief MPI's weights argument: MPI_WEIGHTS_EMPTY for no neighbours (MPICH's
 * MPI_UNWEIGHTED is a null pointer, which an empty vector's data() may be). */
int* weightsOf(std::vector<int>& weights)
{
    return weights.empty() ? MPI_WEIGHTS_EMPTY : weights.data();
}
} // namespace

GraphTopology::GraphTopology(
    const MPIEnvironment& env,
    std::vector<int> sources,
    std::vector<int> sourceWeights,
    std::vector<int> destinations,
    std::vector<int> destinationWeights,
    const Reordering& reordering,
    std::source_location where
)
{
    checkSide("sources", sources, sourceWeights, env.sizeRank(), where);
    checkSide("destinations", destinations, destinationWeights, env.sizeRank(), where);
    agreeOnSetUp(env.comm(), detail::SetUpCall::GraphTopology, where);
    MPIEnvironment base = env;
    if (reordering.kind() == Reordering::Kind::Mapping)
    {
        const std::vector<int> newRankOf = gatherRankMapping(env, reordering.mapping(), where);
        base = env.split(0, newRankOf[static_cast<std::size_t>(env.rank())], where);
        translate(sources, newRankOf);
        translate(destinations, newRankOf);
    }
    MPI_Comm graph { MPI_COMM_NULL };
    FIELDSYNC_MPI_AT(
        MPI_Dist_graph_create_adjacent(
            base.comm(),
            static_cast<int>(sources.size()),
            sources.data(),
            weightsOf(sourceWeights),
            static_cast<int>(destinations.size()),
            destinations.data(),
            weightsOf(destinationWeights),
            MPI_INFO_NULL,
            reordering.kind() == Reordering::Kind::Mpi ? 1 : 0,
            &graph
        ),
        where
    );
    env_ = MPIEnvironment::adopt(graph, where);
    readNeighbours();
    rankMapping_ = detail::rankMappingBetween(env, env_);
}

void GraphTopology::readNeighbours()
{
    int inDegree { 0 };
    int outDegree { 0 };
    int weighted { 0 };
    FIELDSYNC_MPI(MPI_Dist_graph_neighbors_count(env_.comm(), &inDegree, &outDegree, &weighted));
    sources_.resize(static_cast<std::size_t>(inDegree));
    sourceWeights_.resize(static_cast<std::size_t>(inDegree));
    destinations_.resize(static_cast<std::size_t>(outDegree));
    destinationWeights_.resize(static_cast<std::size_t>(outDegree));
    FIELDSYNC_MPI(MPI_Dist_graph_neighbors(
        env_.comm(),
        inDegree,
        sources_.data(),
        sourceWeights_.data(),
        outDegree,
        destinations_.data(),
        destinationWeights_.data()
    ));
}

bool GraphTopology::reordered() const noexcept
{
    for (std::size_t r = 0; r < rankMapping_.size(); ++r)
    {
        if (rankMapping_[r] != static_cast<int>(r))
        {
            return true;
        }
    }
    return false;
}

} // namespace fieldsync::mpi
