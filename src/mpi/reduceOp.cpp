// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/reduceOp.hpp"

namespace fieldsync::mpi
{

MPI_Op getOp(ReduceOp op) noexcept
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

const char* toString(ReduceOp op) noexcept
{
    switch (op)
    {
    case ReduceOp::Sum:
        return "Sum";
    case ReduceOp::Prod:
        return "Prod";
    case ReduceOp::Min:
        return "Min";
    case ReduceOp::Max:
        return "Max";
    case ReduceOp::LAnd:
        return "LAnd";
    case ReduceOp::LOr:
        return "LOr";
    case ReduceOp::LXor:
        return "LXor";
    case ReduceOp::BAnd:
        return "BAnd";
    case ReduceOp::BOr:
        return "BOr";
    case ReduceOp::BXor:
        return "BXor";
    case ReduceOp::MinLoc:
        return "MinLoc";
    case ReduceOp::MaxLoc:
        return "MaxLoc";
    }
    return "unknown";
}

} // namespace fieldsync::mpi
