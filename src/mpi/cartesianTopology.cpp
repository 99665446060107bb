// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/cartesianTopology.hpp"

#include "fieldsync/core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace fieldsync::mpi
{

namespace
{
/** @brief Fills the zeros of @p dims with MPI_Dims_create after checking what MPI requires. */
void completeDims(std::vector<int>& dims, int nRanks, const std::source_location& where)
{
    FIELDSYNC_CHECK_AT(!dims.empty(), "CartesianTopology: dims is empty", where);
    int given { 1 };
    bool anyFree { false };
    for (const int d : dims)
    {
        FIELDSYNC_CHECK_AT(
            d >= 0, "CartesianTopology: negative dimension " + std::to_string(d), where
        );
        anyFree = anyFree || d == 0;
        given *= d == 0 ? 1 : d;
    }
    FIELDSYNC_CHECK_AT(
        anyFree ? nRanks % given == 0 : nRanks == given,
        "CartesianTopology: the given dims (product " + std::to_string(given) + ") do not fit " +
            std::to_string(nRanks) + " ranks",
        where
    );
    FIELDSYNC_MPI_AT(MPI_Dims_create(nRanks, static_cast<int>(dims.size()), dims.data()), where);
}

/** @brief Checks that @p what (a vector of @p given entries) has one entry per dimension. */
void checkLength(
    std::size_t given, std::size_t ndims, const char* what, const std::source_location& where
)
{
    FIELDSYNC_CHECK_AT(
        given == ndims,
        std::string("CartesianTopology: ") + std::to_string(given) + " " + what + " for " +
            std::to_string(ndims) + " dimensions",
        where
    );
}

/** @brief Checks that @p dim names one of @p ndims dimensions. */
void checkDimension(int dim, int ndims, const char* caller, const std::source_location& where)
{
    FIELDSYNC_CHECK_AT(
        dim >= 0 && dim < ndims,
        std::string("CartesianTopology::") + caller + ": dimension " + std::to_string(dim) +
            " out of range 0.." + std::to_string(ndims - 1),
        where
    );
}

/** @brief The communicator the grid is made from: @p env, or @p env renumbered by a mapping. */
MPIEnvironment
gridBase(const MPIEnvironment& env, const Reordering& reordering, const std::source_location& where)
{
    if (reordering.kind() == Reordering::Kind::Mapping)
    {
        return reorder(env, reordering.mapping(), where);
    }
    return env;
}
} // namespace

CartesianTopology::CartesianTopology(
    const MPIEnvironment& env,
    std::vector<int> dims,
    std::vector<bool> periodic,
    const Reordering& reordering,
    std::source_location where
)
    : dims_(std::move(dims))
{
    completeDims(dims_, env.sizeRank(), where);
    FIELDSYNC_CHECK_AT(
        periodic.empty() || periodic.size() == dims_.size(),
        "CartesianTopology: " + std::to_string(periodic.size()) + " periodic flags for " +
            std::to_string(dims_.size()) + " dimensions",
        where
    );
    periodic_.assign(dims_.size(), 0);
    for (std::size_t d = 0; d < periodic.size(); ++d)
    {
        periodic_[d] = periodic[d] ? 1 : 0;
    }
    std::vector<std::int64_t> shape(dims_.begin(), dims_.end()); // dims, then periodic bits
    std::int64_t periodicBits { 0 };
    for (std::size_t d = 0; d < periodic_.size(); ++d)
    {
        periodicBits |= periodic_[d] != 0 ? std::int64_t { 1 } << d : 0;
    }
    shape.push_back(periodicBits);
    shape.push_back(static_cast<std::int64_t>(reordering.kind()));
    agreeOnSetUp(
        env.comm(),
        detail::SetUpCall::CartesianTopology,
        where,
        shape,
        "dims, periodic (bit d: dimension d) and reordering"
    );
    const MPIEnvironment base = gridBase(env, reordering, where);
    MPI_Comm cart { MPI_COMM_NULL };
    const int mpiReorders = reordering.kind() == Reordering::Kind::Mpi ? 1 : 0;
    FIELDSYNC_MPI_AT(
        MPI_Cart_create(base.comm(), ndims(), dims_.data(), periodic_.data(), mpiReorders, &cart),
        where
    );
    env_ = MPIEnvironment::adopt(cart, where);
    coords_ = coords(env_.rank());
    rankMapping_ = detail::rankMappingBetween(env, env_);
}

bool CartesianTopology::periodic(int dim, std::source_location where) const
{
    checkDimension(dim, ndims(), "periodic", where);
    return periodic_[static_cast<std::size_t>(dim)] != 0;
}

std::vector<int> CartesianTopology::coords(int rank, std::source_location where) const
{
    FIELDSYNC_CHECK_AT(
        rank >= 0 && rank < env_.sizeRank(),
        "CartesianTopology::coords: rank " + std::to_string(rank) + " out of range 0.." +
            std::to_string(env_.sizeRank() - 1),
        where
    );
    std::vector<int> result(dims_.size());
    FIELDSYNC_MPI_AT(MPI_Cart_coords(env_.comm(), rank, ndims(), result.data()), where);
    return result;
}

int CartesianTopology::rank(std::span<const int> coords, std::source_location where) const
{
    checkLength(coords.size(), dims_.size(), "coordinates", where);
    std::vector<int> wrapped(coords.begin(), coords.end());
    for (std::size_t d = 0; d < dims_.size(); ++d)
    {
        const int n = dims_[d];
        if (periodic_[d] != 0)
        {
            wrapped[d] = ((wrapped[d] % n) + n) % n;
        }
        else if (wrapped[d] < 0 || wrapped[d] >= n)
        {
            return MPI_PROC_NULL;
        }
    }
    int result { MPI_PROC_NULL };
    FIELDSYNC_MPI_AT(MPI_Cart_rank(env_.comm(), wrapped.data(), &result), where);
    return result;
}

int CartesianTopology::neighbour(std::span<const int> offset, std::source_location where) const
{
    checkLength(offset.size(), dims_.size(), "offsets", where);
    std::vector<int> at(coords_);
    for (std::size_t d = 0; d < at.size(); ++d)
    {
        at[d] += offset[d];
    }
    return rank(at, where);
}

CartesianTopology::Shift
CartesianTopology::shift(int dim, int disp, std::source_location where) const
{
    checkDimension(dim, ndims(), "shift", where);
    Shift s;
    FIELDSYNC_MPI_AT(MPI_Cart_shift(env_.comm(), dim, disp, &s.source, &s.dest), where);
    return s;
}

std::vector<int> CartesianTopology::neighbours(bool diagonals) const
{
    std::vector<int> result;
    for (const auto& offset : neighbourOffsets(ndims(), diagonals))
    {
        const int r = neighbour(offset);
        if (r != MPI_PROC_NULL)
        {
            result.push_back(r);
        }
    }
    return result;
}

std::vector<std::vector<int>> CartesianTopology::neighbourOffsets(int ndims, bool diagonals)
{
    std::vector<std::vector<int>> result;
    std::vector<int> offset(static_cast<std::size_t>(ndims), -1);
    while (true)
    {
        int nonZero { 0 };
        for (const int o : offset)
        {
            nonZero += o != 0 ? 1 : 0;
        }
        if (nonZero > 0 && (diagonals || nonZero == 1))
        {
            result.push_back(offset);
        }
        // the next offset, last dimension fastest
        int d = ndims - 1;
        while (d >= 0 && offset[static_cast<std::size_t>(d)] == 1)
        {
            offset[static_cast<std::size_t>(d)] = -1;
            --d;
        }
        if (d < 0)
        {
            return result;
        }
        ++offset[static_cast<std::size_t>(d)];
    }
}

} // namespace fieldsync::mpi
