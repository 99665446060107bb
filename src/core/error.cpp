// SPDX-License-Identifier: MIT
#include "fieldsync/core/error.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

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

/** FIELDSYNC_ON_ERROR, read once: `abort` ends the job at the first library Error. Read with
 * getenv, not envString, because a bad value cannot itself raise an Error here. */
bool abortOnError() noexcept
{
    static const bool value = []
    {
        const char* setting = std::getenv("FIELDSYNC_ON_ERROR");
        if (setting == nullptr || setting[0] == '\0' || std::strcmp(setting, "throw") == 0)
        {
            return false;
        }
        if (std::strcmp(setting, "abort") == 0)
        {
            return true;
        }
        std::fprintf(
            stderr,
            "fieldsync: FIELDSYNC_ON_ERROR='%s' is neither 'throw' nor 'abort'; throwing\n",
            setting
        );
        return false;
    }();
    return value;
}

/** Under FIELDSYNC_ON_ERROR=abort: prints @p what and ends the job (MPI_Abort when MPI runs). */
void abortIfAsked(const char* what) noexcept
{
    if (!abortOnError())
    {
        return;
    }
    std::fprintf(stderr, "fieldsync: FIELDSYNC_ON_ERROR=abort: %s\n", what);
    std::fflush(stderr);
    if (worldRankOrMinusOne() >= 0)
    {
        // The launcher forwards our stderr through a pipe; MPICH's Hydra can tear its proxies
        // down on MPI_Abort before it has read that pipe, and the message is lost (about 1 run
        // in 40 on a busy machine). The job is ending anyway: give the output time to leave.
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    std::abort();
}

/** A hint for MPI errors whose usual cause is a disagreement between ranks (MPICH reports a
 * truncation inside a collective as another class, with "truncated" in the text). */
std::string hint(int code)
{
    int errorClass { MPI_SUCCESS };
    const bool truncated =
        (MPI_Error_class(code, &errorClass) == MPI_SUCCESS && errorClass == MPI_ERR_TRUNCATE) ||
        mpiText(code).find("runcat") != std::string::npos;
    if (truncated)
    {
        return " (message truncated: ranks probably passed different counts; FIELDSYNC_CHECK=1 "
               "names them)";
    }
    return {};
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
    abortIfAsked(what());
}

namespace detail
{
void throwMpiError(int code, std::string_view call, const std::source_location& where)
{
    throw Error(std::string(call) + " failed" + hint(code), where, code);
}
} // namespace detail

} // namespace fieldsync
