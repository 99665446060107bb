// SPDX-License-Identifier: MIT
#include "fieldsync/core/error.hpp"

#include <mpi.h>

namespace fieldsync
{

int worldRankOrMinusOne() noexcept
{
    int initialised { 0 };
    int finalised { 0 };
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    if (!initialised || finalised)
    {
        return -1;
    }
    int rank { -1 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

std::string toString(const std::source_location& where)
{
    return std::string(where.file_name()) + ":" + std::to_string(where.line());
}

namespace
{
std::string mpiText(int code)
{
    if (code == MPI_SUCCESS)
    {
        return {};
    }
    char text[MPI_MAX_ERROR_STRING] {};
    int length { 0 };
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    {
        return "MPI error code " + std::to_string(code);
    }
    return std::string(text, static_cast<std::size_t>(length));
}

std::string compose(
    const std::string& message,
    const std::source_location& where,
    int rank,
    const std::string& mpiString
)
{
    std::string text = "fieldsync: rank " + std::to_string(rank) + ": " + toString(where);
    if (where.function_name() != nullptr && where.function_name()[0] != '\0')
    {
        text += " (" + std::string(where.function_name()) + ")";
    }
    text += ": " + message;
    if (!mpiString.empty())
    {
        text += " [MPI: " + mpiString + "]";
    }
    return text;
}
} // namespace

Error::Error(std::string message, std::source_location where, int mpiErrorCode)
    : Error(std::move(message), where, mpiErrorCode, worldRankOrMinusOne(), mpiText(mpiErrorCode))
{
}

Error::Error(
    std::string message,
    std::source_location where,
    int mpiErrorCode,
    int rank,
    std::string mpiErrorString
)
    : std::runtime_error(compose(message, where, rank, mpiErrorString)),
      message_(std::move(message)), where_(where), rank_(rank), mpiErrorCode_(mpiErrorCode),
      mpiErrorString_(std::move(mpiErrorString))
{
}

namespace detail
{
void throwMpiError(int code, std::string_view call, const std::source_location& where)
{
    throw Error(std::string(call) + " failed", where, code);
}
} // namespace detail

} // namespace fieldsync
