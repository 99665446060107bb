// SPDX-License-Identifier: MIT
#include "fieldsync/halo/reverseOp.hpp"

#include "fieldsync/core/error.hpp"

#include <string>

namespace fieldsync::halo
{

const char* toString(ReverseOp op) noexcept
{
    switch (op)
    {
    case ReverseOp::Sum:
        return "Sum";
    case ReverseOp::Max:
        return "Max";
    case ReverseOp::Min:
        return "Min";
    case ReverseOp::Replace:
        return "Replace";
    }
    return "unknown";
}

ReverseOp toReverseOp(mpi::ReduceOp op, std::source_location where)
{
    switch (op)
    {
    case mpi::ReduceOp::Sum:
        return ReverseOp::Sum;
    case mpi::ReduceOp::Max:
        return ReverseOp::Max;
    case mpi::ReduceOp::Min:
        return ReverseOp::Min;
    default:
        throw Error(
            std::string("reverse exchange: ReduceOp ") + mpi::toString(op) +
                " is not supported (use Sum, Max, Min or ReverseOp::Replace)",
            where
        );
    }
}

} // namespace fieldsync::halo
