// SPDX-License-Identifier: MIT
#pragma once

#include "meshPartition.hpp"
#include "meshSource.hpp"

#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace fieldsync::heat
{

/**
 * @brief The mesh and partitioner options the example programs share (fieldsync-heat,
 * fieldsync-poisson): --shape, --nx, --ny, --nz, --seed, --mesh, --gmsh-reader, --partitioner.
 */
struct MeshOptions
{
    int nx { 0 };                        /**< 0: 400 for triangles, 40 for 3-D shapes */
    int ny { 0 };                        /**< 0: as nx */
    int nz { 0 };                        /**< 0: as nx (3-D shapes) */
    std::string shape { "tri" };         /**< tri, hex or tet */
    std::string partitioner { "metis" }; /**< metis, ptscotch or slab */
    std::uint64_t seed { 2024 };         /**< generated mesh's seed */
    std::string file;                    /**< Gmsh file instead of a generated mesh */
    std::string reader { "parallel" };   /**< Gmsh reader: parallel (GmshMesh) or serial */

    /** @brief Declares the options on @p app, parsed into this object. */
    void declare(CLI::App& app);

    /**
     * @brief After parsing: fills in the sizes left at 0. @throws Error for --partitioner
     * ptscotch in a build without PT-Scotch, naming @p program.
     */
    void complete(const std::string& program);

    /** @brief The partitioner the options name. */
    [[nodiscard]] PartitionerKind partitionerKind() const;

    /** @brief Collective: the mesh the options ask for (each rank makes only its own cells). */
    [[nodiscard]] std::unique_ptr<MeshSource> source(const mpi::MPIEnvironment& env) const;
};

/**
 * @brief Parses @p argc, @p argv with @p app, allowing the Kokkos options (--kokkos-...) and
 * refusing any other unknown one. Returns the exit code when the program should stop (help: 0,
 * bad option: CLI11's code), or -1 to go on.
 */
int parseCommandLine(CLI::App& app, int argc, char** argv);

/**
 * @brief An example's main(): @p parse before MPI and Kokkos start (a result >= 0 is the exit
 * code), then MPIInit, Kokkos, and @p run. Any exception is printed and exits with 2.
 */
int exampleMain(
    int argc, char** argv, const std::function<int()>& parse, const std::function<int()>& run
);

} // namespace fieldsync::heat
