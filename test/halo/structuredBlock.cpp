// SPDX-License-Identifier: MIT
// StructuredBlock: its maps checked by a real exchange through the Communicator on rank-3 views
// (both layouts) against value = i 1e6 + j 1e3 + k of the global cell, periodic wrap computed
// here independently; faces only and the full neighbourhood; halo width 1 and 2; 1 to 3
// topology dimensions. Also the snippet of doc/topology.md.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/structuredBlock.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::halo;

namespace
{
double valueOf(std::int64_t i, std::int64_t j, std::int64_t k)
{
    return static_cast<double>(i) * 1e6 + static_cast<double>(j) * 1e3 + static_cast<double>(k);
}

/** @brief What padded cell (l0, l1, l2) should hold after the exchange (-1: untouched). */
double expected(
    const StructuredBlock& block,
    const mpi::CartesianTopology& topo,
    BlockGhosts ghosts,
    const std::array<std::int64_t, 3>& l
)
{
    std::array<std::int64_t, 3> g {};
    int ghostDims { 0 };
    for (int d = 0; d < 3; ++d)
    {
        const auto ud = static_cast<std::size_t>(d);
        const std::int64_t n = block.globalCells(d);
        g[ud] = block.start(d) + l[ud];
        ghostDims += l[ud] < 0 || l[ud] >= block.extent(d) ? 1 : 0;
        if (g[ud] < 0 || g[ud] >= n)
        {
            if (d >= topo.ndims() || !topo.periodic(d))
            {
                return -1; // beyond a non-periodic boundary
            }
            g[ud] = (g[ud] + n) % n;
        }
    }
    if (ghostDims > 1 && ghosts == BlockGhosts::Faces)
    {
        return -1;
    }
    return valueOf(g[0], g[1], g[2]);
}

/** @brief Exchanges a LayoutRight or LayoutLeft rank-3 field of @p block and checks it. */
template<typename Layout>
void checkExchange(
    const StructuredBlock& block, const mpi::CartesianTopology& topo, BlockGhosts ghosts
)
{
    const std::array<int, 3> p { block.padding(0), block.padding(1), block.padding(2) };
    Kokkos::View<double***, Layout, Kokkos::HostSpace> u(
        "u", block.paddedExtent(0), block.paddedExtent(1), block.paddedExtent(2)
    );
    Kokkos::deep_copy(u, -1.0);
    for (std::int64_t i = 0; i < block.extent(0); ++i)
    {
        for (std::int64_t j = 0; j < block.extent(1); ++j)
        {
            for (std::int64_t k = 0; k < block.extent(2); ++k)
            {
                u(i + p[0], j + p[1], k + p[2]) =
                    valueOf(block.start(0) + i, block.start(1) + j, block.start(2) + k);
            }
        }
    }
    Communicator comm(topo.environment(), block.sendMap(), block.receiveMap());
    comm.startComm(u, "block");
    comm.finaliseComm(u, "block");
    int wrong { 0 };
    for (std::int64_t i = -p[0]; i < block.extent(0) + p[0]; ++i)
    {
        for (std::int64_t j = -p[1]; j < block.extent(1) + p[1]; ++j)
        {
            for (std::int64_t k = -p[2]; k < block.extent(2) + p[2]; ++k)
            {
                const double want = expected(block, topo, ghosts, { i, j, k });
                const double got = u(i + p[0], j + p[1], k + p[2]);
                CHECK(&u(i + p[0], j + p[1], k + p[2]) == u.data() + block.index(i, j, k));
                wrong += got == want ? 0 : 1;
            }
        }
    }
    CHECK(wrong == 0);
}
} // namespace

TEST_CASE("StructuredBlock: a real exchange fills the ghosts of rank-3 views", "[block]")
{
    mpi::MPIEnvironment env;
    for (int ndims = 1; ndims <= 3; ++ndims)
    {
        for (const bool periodic : { true, false })
        {
            std::vector<bool> flags(static_cast<std::size_t>(ndims), periodic);
            flags[0] = true; // mixed when not periodic: dimension 0 always wraps
            const mpi::CartesianTopology topo(env, std::vector<int>(std::size_t(ndims), 0), flags);
            for (const int width : { 1, 2 })
            {
                std::array<std::int64_t, 3> cells {};
                for (int d = 0; d < 3; ++d)
                {
                    const int parts = d < ndims ? topo.dims()[std::size_t(d)] : 1;
                    cells[std::size_t(d)] = parts * width + 1 + d; // uneven split
                }
                for (const auto ghosts : { BlockGhosts::Faces, BlockGhosts::All })
                {
                    INFO(
                        "ndims " << ndims << " periodic " << periodic << " width " << width
                                 << " all ghosts " << (ghosts == BlockGhosts::All)
                    );
                    checkExchange<Kokkos::LayoutRight>(
                        StructuredBlock(topo, cells, width, ghosts, BlockOrder::LayoutRight),
                        topo,
                        ghosts
                    );
                    checkExchange<Kokkos::LayoutLeft>(
                        StructuredBlock(topo, cells, width, ghosts, BlockOrder::LayoutLeft),
                        topo,
                        ghosts
                    );
                }
            }
        }
    }
}

TEST_CASE("StructuredBlock: near-equal split, remainder to the first ranks", "[block]")
{
    mpi::MPIEnvironment env;
    const int n = env.sizeRank();
    const mpi::CartesianTopology topo(env, { n });
    const StructuredBlock block(topo, { 3 * n + 2, 5, 7 }, 1);
    const int c = topo.coords()[0];
    const int base = 3 + 2 / n; // 3 n + 2 cells: n = 1 and 2 divide them evenly
    const int rest = 2 % n;
    CHECK(block.extent(0) == base + (c < rest ? 1 : 0));
    CHECK(block.start(0) == base * c + (c < rest ? c : rest));
    CHECK(block.extent(1) == 5);
    CHECK(block.padding(1) == 0);
    CHECK(block.paddedExtent(0) == block.extent(0) + 2);
    CHECK(block.paddedSize() == std::size_t(block.paddedExtent(0) * 5 * 7));
    CHECK_THROWS_WITH(StructuredBlock(topo, { 2 * n - 1, 1, 1 }, 2), Catch::Contains("halo width"));
    CHECK_THROWS_WITH(StructuredBlock(topo, { n, 1, 1 }, -1), Catch::Contains("negative halo"));
}

TEST_CASE("Communicator: a non-contiguous rank-3 view is an Error naming the call site", "[block]")
{
    mpi::MPIEnvironment env;
    const mpi::CartesianTopology topo(env, { env.sizeRank() }, { true });
    const StructuredBlock block(topo, { 2 * env.sizeRank(), 4, 1 }, 1);
    Communicator comm(topo.environment(), block.sendMap(), block.receiveMap());
    Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace> u("u", 4, 4, 1);
    auto strided = Kokkos::subview(u, Kokkos::ALL, std::pair<int, int>(0, 2), Kokkos::ALL);
    CHECK_THROWS_WITH(
        comm.startComm(strided, "strided"),
        Catch::Contains("not contiguous") && Catch::Contains("structuredBlock.cpp")
    );
}

TEST_CASE("Communicator: a rank-3 view unlike the block's maps is an Error at the call", "[block]")
{
    // Truth: the layouts and extents made here. Before, a LayoutLeft view exchanged with
    // LayoutRight maps (Kokkos's View<double***> on CUDA against the default order) filled the
    // wrong cells, silently. A local check, so on with check mode off too.
    mpi::MPIEnvironment env;
    const mpi::CartesianTopology topo(env, { env.sizeRank() }, { true });
    const StructuredBlock block(topo, { 2 * env.sizeRank(), 4, 3 }, 1);
    Communicator comm(topo.environment(), block.sendMap(), block.receiveMap());
    const auto n0 = static_cast<std::size_t>(block.paddedExtent(0));
    Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace> left("left", n0, 4, 3);
    int line { __LINE__ + 1 };
    CHECK_THROWS_WITH(
        comm.startComm(left, "left"),
        Catch::Contains("'left' is LayoutLeft") && Catch::Contains("index a LayoutRight array") &&
            Catch::Contains("structuredBlock.cpp:" + std::to_string(line))
    );
    Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace> turned("turned", n0, 3, 4);
    line = __LINE__ + 1;
    CHECK_THROWS_WITH(
        comm.startComm(turned, "turned"),
        Catch::Contains("extents " + std::to_string(n0) + " x 3 x 4") &&
            Catch::Contains("padded array of " + std::to_string(n0) + " x 4 x 3") &&
            Catch::Contains("structuredBlock.cpp:" + std::to_string(line))
    );
    // the right view still exchanges on the same Communicator: ghosts against the formula
    Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace> u("u", n0, 4, 3);
    for (std::int64_t i = 0; i < block.extent(0); ++i)
    {
        for (std::int64_t j = 0; j < 4; ++j)
        {
            for (std::int64_t k = 0; k < 3; ++k)
            {
                u(i + 1, j, k) = valueOf(block.start(0) + i, j, k);
            }
        }
    }
    comm.startComm(u, "u");
    comm.finaliseComm(u, "u");
    const std::int64_t nx { 2 * env.sizeRank() };
    int wrong { 0 };
    for (std::int64_t j = 0; j < 4; ++j)
    {
        for (std::int64_t k = 0; k < 3; ++k)
        {
            wrong += u(0, j, k) == valueOf((block.start(0) - 1 + nx) % nx, j, k) ? 0 : 1;
            const std::int64_t last { block.extent(0) + 1 };
            wrong +=
                u(last, j, k) == valueOf((block.start(0) + block.extent(0)) % nx, j, k) ? 0 : 1;
        }
    }
    CHECK(wrong == 0);
}

TEST_CASE("doc/topology.md: a structured grid in a few lines", "[block]")
{
    // [structured-block]
    mpi::MPIEnvironment env;
    // A 2-D grid of ranks chosen by MPI, periodic in x; a 64 x 48 x 1 box of cells on it.
    mpi::CartesianTopology topology(env, { 0, 0 }, { true, false });
    StructuredBlock block(topology, { 64, 48, 1 }, 1, BlockGhosts::All, BlockOrder::LayoutRight);
    Kokkos::View<double***, Kokkos::LayoutRight> u(
        "u", block.paddedExtent(0), block.paddedExtent(1), block.paddedExtent(2)
    );
    for (std::int64_t i = 0; i < block.extent(0); ++i) // owned cells: after `width` ghosts
    {
        for (std::int64_t j = 0; j < block.extent(1); ++j)
        {
            u(i + 1, j + 1, 0) = double(block.start(0) + i);
        }
    }
    Communicator comm(topology.environment(), block.sendMap(), block.receiveMap());
    comm.startComm(u, "u");
    // ... update the interior while the ghosts travel ...
    comm.finaliseComm(u, "u");
    // u(0, j, 0) now holds the x-neighbour's last column (periodic in x)
    // [structured-block]
    const std::int64_t left = (block.start(0) + 64 - 1) % 64;
    CHECK(u(0, 1, 0) == double(left));
}
