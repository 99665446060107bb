// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/reduceOp.hpp"

namespace fieldsync::mpi
{

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
