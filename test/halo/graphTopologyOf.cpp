// SPDX-License-Identifier: MIT
// graphTopologyOf: the distributed graph of a Communicator's maps has their neighbours and
// their bytes as weights.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/graphTopologyOf.hpp"
#include "fieldsync/halo/structuredBlock.hpp"

#include <vector>

using namespace fieldsync;
using namespace fieldsync::halo;

namespace
{
/** @brief Checks one side of @p graph against @p map, ranks translated by rankMapping(). */
void checkSide(
    const RankSimplexCommMap& map,
    std::span<const int> ranks,
    std::span<const int> weights,
    std::span<const int> newRankOf
)
{
    REQUIRE(ranks.size() == map.neighbourCount());
    REQUIRE(weights.size() == map.neighbourCount());
    for (std::size_t k = 0; k < ranks.size(); ++k)
    {
        const int old = map.neighbours()[k];
        CHECK(ranks[k] == newRankOf[static_cast<std::size_t>(old)]);
        CHECK(std::size_t(weights[k]) == map.sizeOf(old) * sizeof(double));
    }
}
} // namespace

TEST_CASE("graphTopologyOf: neighbours and weights equal the Communicator's maps", "[topology]")
{
    mpi::MPIEnvironment env;
    const mpi::CartesianTopology topo(env, { 0, 0 }, { true, false });
    const StructuredBlock block(
        topo, { 4L * topo.dims()[0] + 1, 3L * topo.dims()[1], 2 }, 1, BlockGhosts::All
    );
    Communicator comm(topo.environment(), block.sendMap(), block.receiveMap());
    for (const bool reorder : { false, true })
    {
        const mpi::GraphTopology graph = graphTopologyOf(comm, sizeof(double), reorder);
        checkSide(comm.receiveMap(), graph.sources(), graph.sourceWeights(), graph.rankMapping());
        checkSide(
            comm.sendMap(), graph.destinations(), graph.destinationWeights(), graph.rankMapping()
        );
    }
}
