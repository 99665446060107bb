// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reordering.hpp"

#include <source_location>
#include <span>
#include <vector>

namespace fieldsync::mpi
{

/**
 * @brief A cartesian process grid as an object (seeds/001): the cartesian communicator
 * (MPI_Cart_create, held as an owning MPIEnvironment) with its naming scheme both ways, shifts
 * and neighbourhoods.
 *
 * Naming scheme: rank(coords) and coords(rank) are MPI's row-major numbering on the cartesian
 * communicator. A coordinate outside 0..dims[d]-1 wraps on a periodic dimension and gives
 * MPI_PROC_NULL on a non-periodic one (as MPI_Cart_shift does), never an Error; a rank out of
 * range, or a coordinate vector of the wrong length, is an Error.
 *
 * Neighbourhoods: the 2d face neighbours, or all 3^d-1 offsets in {-1,0,1}^d without 0 (with
 * diagonals), in the lexicographic order of neighbourOffsets(). Periodic dimensions wrap,
 * off-grid neighbours are dropped. On small periodic grids (1 or 2 ranks in a periodic
 * dimension) several offsets reach the same rank, the rank itself included: such ranks appear
 * once per offset (duplicates are kept, so neighbour k always belongs to offset k of the
 * offsets that stay on the grid).
 */
class CartesianTopology
{
public:
    /** @brief The two ends of a shift (MPI_Cart_shift). */
    struct Shift
    {
        int source { -1 }; /**< the rank that sends to me (MPI_PROC_NULL off the grid) */
        int dest { -1 };   /**< the rank I send to (MPI_PROC_NULL off the grid) */
    };

    /**
     * @brief Collective: a grid of @p dims over @p env's ranks.
     * @param dims ranks per dimension; zeros are chosen by MPI_Dims_create (all zeros: a
     * balanced grid, for example `std::vector<int>(3, 0)`).
     * @param periodic per dimension; empty means no dimension is periodic.
     * @param reordering keep @p env's numbering (default), let MPI reorder (`true`), or a
     * mapping old rank -> new rank applied with reorder() before the grid is made.
     * @throws Error when @p dims is empty or has a negative entry, when the given dims do not
     * divide (or, all given, do not equal) the number of ranks, or when @p periodic has another
     * length than @p dims.
     */
    CartesianTopology(
        const MPIEnvironment& env,
        std::vector<int> dims,
        std::vector<bool> periodic = {},
        const Reordering& reordering = {},
        std::source_location where = std::source_location::current()
    );

    /** @brief The cartesian communicator (owned). */
    [[nodiscard]] const MPIEnvironment& environment() const noexcept { return env_; }

    /** @brief The number of dimensions. */
    [[nodiscard]] int ndims() const noexcept { return static_cast<int>(dims_.size()); }

    /** @brief Ranks per dimension. */
    [[nodiscard]] std::span<const int> dims() const noexcept { return dims_; }

    /** @brief Whether dimension @p dim is periodic. @throws Error (naming @p where) when
     * @p dim is out of range. */
    [[nodiscard]] bool
    periodic(int dim, std::source_location where = std::source_location::current()) const;

    /** @brief This rank's coordinates. */
    [[nodiscard]] std::span<const int> coords() const noexcept { return coords_; }

    /** @brief The coordinates of @p rank. @throws Error when @p rank is out of range. */
    [[nodiscard]] std::vector<int>
    coords(int rank, std::source_location where = std::source_location::current()) const;

    /**
     * @brief The rank at @p coords; wraps periodic dimensions, MPI_PROC_NULL when a coordinate
     * of a non-periodic dimension is off the grid. @throws Error on a wrong length.
     */
    [[nodiscard]] int rank(
        std::span<const int> coords, std::source_location where = std::source_location::current()
    ) const;

    /** @brief The rank at this rank's coordinates plus @p offset (as rank(coords)). */
    [[nodiscard]] int neighbour(
        std::span<const int> offset, std::source_location where = std::source_location::current()
    ) const;

    /** @brief MPI_Cart_shift: source and destination of a shift by @p disp along @p dim.
     * @throws Error (naming @p where) when @p dim is out of range. */
    [[nodiscard]] Shift
    shift(int dim, int disp, std::source_location where = std::source_location::current()) const;

    /**
     * @brief The neighbour ranks: faces only, or all 3^d-1 offsets with @p diagonals; off-grid
     * ones dropped, duplicates kept (see the class documentation).
     */
    [[nodiscard]] std::vector<int> neighbours(bool diagonals) const;

    /**
     * @brief The offsets of a neighbourhood in @p ndims dimensions, lexicographic (first
     * dimension slowest): the 2 ndims faces, or with @p diagonals all of {-1,0,1}^ndims but 0.
     */
    [[nodiscard]] static std::vector<std::vector<int>> neighbourOffsets(int ndims, bool diagonals);

    /** @brief Old rank (in the constructor's environment) -> rank here, gathered. */
    [[nodiscard]] std::span<const int> rankMapping() const noexcept { return rankMapping_; }

private:
    MPIEnvironment env_;           /**< the cartesian communicator */
    std::vector<int> dims_;        /**< ranks per dimension */
    std::vector<int> periodic_;    /**< 0/1 per dimension, as MPI takes them */
    std::vector<int> coords_;      /**< this rank's coordinates */
    std::vector<int> rankMapping_; /**< old rank -> new rank */
};

} // namespace fieldsync::mpi
