// SPDX-License-Identifier: MIT
#pragma once

#include <mpi.h>

namespace fieldsync::mpi
{

/**
 * @brief Reduction operations. The seed's upper-case spellings (ReduceOp::SUM, ...) and NeoN's
 * (ReduceOp::Land, Band, Lor, Bor, Maxloc, Minloc) are aliases of the PascalCase values, so code
 * written any of these ways compiles.
 */
enum class ReduceOp
{
    Sum,    /**< MPI_SUM */
    Prod,   /**< MPI_PROD */
    Min,    /**< MPI_MIN */
    Max,    /**< MPI_MAX */
    LAnd,   /**< MPI_LAND */
    LOr,    /**< MPI_LOR */
    LXor,   /**< MPI_LXOR */
    BAnd,   /**< MPI_BAND */
    BOr,    /**< MPI_BOR */
    BXor,   /**< MPI_BXOR */
    MinLoc, /**< MPI_MINLOC, on ValueIndex<T> */
    MaxLoc, /**< MPI_MAXLOC, on ValueIndex<T> */
    // the seed's spelling
    SUM = Sum,       /**< alias of Sum */
    PROD = Prod,     /**< alias of Prod */
    MIN = Min,       /**< alias of Min */
    MAX = Max,       /**< alias of Max */
    LAND = LAnd,     /**< alias of LAnd */
    LOR = LOr,       /**< alias of LOr */
    LXOR = LXor,     /**< alias of LXor */
    BAND = BAnd,     /**< alias of BAnd */
    BOR = BOr,       /**< alias of BOr */
    BXOR = BXor,     /**< alias of BXor */
    MINLOC = MinLoc, /**< alias of MinLoc */
    MAXLOC = MaxLoc, /**< alias of MaxLoc */
    // NeoN's spelling
    Land = LAnd,     /**< alias of LAnd */
    Lor = LOr,       /**< alias of LOr */
    Band = BAnd,     /**< alias of BAnd */
    Bor = BOr,       /**< alias of BOr */
    Minloc = MinLoc, /**< alias of MinLoc */
    Maxloc = MaxLoc  /**< alias of MaxLoc */
};

/**
 * @brief The MPI_Op of a ReduceOp (the seed's and NeoN's getOp). constexpr as NeoN declares it;
 * a constant only where the MPI library's handles are constants (MPICH, not Open MPI).
 */
[[nodiscard]] constexpr MPI_Op getOp(ReduceOp op) noexcept
{
    switch (op)
    {
    case ReduceOp::Sum:
        return MPI_SUM;
    case ReduceOp::Prod:
        return MPI_PROD;
    case ReduceOp::Min:
        return MPI_MIN;
    case ReduceOp::Max:
        return MPI_MAX;
    case ReduceOp::LAnd:
        return MPI_LAND;
    case ReduceOp::LOr:
        return MPI_LOR;
    case ReduceOp::LXor:
        return MPI_LXOR;
    case ReduceOp::BAnd:
        return MPI_BAND;
    case ReduceOp::BOr:
        return MPI_BOR;
    case ReduceOp::BXor:
        return MPI_BXOR;
    case ReduceOp::MinLoc:
        return MPI_MINLOC;
    case ReduceOp::MaxLoc:
        return MPI_MAXLOC;
    }
    return MPI_OP_NULL;
}

/** @brief The name of a ReduceOp ("Sum", ...), for messages. */
[[nodiscard]] const char* toString(ReduceOp op) noexcept;

} // namespace fieldsync::mpi
