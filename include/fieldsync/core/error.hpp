// SPDX-License-Identifier: MIT
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fieldsync
{

/**
 * @brief The one exception type of fieldsync.
 *
 * Carries the message, the call site (std::source_location), the rank in MPI_COMM_WORLD of the
 * process that raised it (-1 before MPI is initialised or after it is finalised) and, for MPI
 * failures, the MPI error code and its error string. what() holds all of it in one line:
 * `fieldsync: rank R: file:line (function): message [MPI: error string]`.
 *
 * With FIELDSYNC_ON_ERROR=abort (read once; default `throw`), constructing an Error prints
 * what() to stderr and ends the job with MPI_Abort (std::abort when MPI is not running), for
 * batch jobs where one rank's exception would otherwise leave the others waiting.
 */
class Error : public std::runtime_error
{
public:
    /**
     * @brief An error raised at @p where.
     * @param message what went wrong, with the bad value.
     * @param where the call site; defaults to the caller's.
     * @param mpiErrorCode the failing MPI return code, or MPI_SUCCESS (0) for a non-MPI error.
     */
    explicit Error(
        std::string message,
        std::source_location where = std::source_location::current(),
        int mpiErrorCode = 0
    );

    /** @brief The message as given, without the location prefix. */
    [[nodiscard]] const std::string& message() const noexcept { return message_; }

    /** @brief The call site the error names. */
    [[nodiscard]] const std::source_location& where() const noexcept { return where_; }

    /** @brief Rank in MPI_COMM_WORLD of the raising process, -1 when MPI is not running. */
    [[nodiscard]] int rank() const noexcept { return rank_; }

    /** @brief The MPI error code, 0 (MPI_SUCCESS) when the error is not an MPI failure. */
    [[nodiscard]] int mpiErrorCode() const noexcept { return mpiErrorCode_; }

    /** @brief The MPI library's text for mpiErrorCode(), empty when there is none. */
    [[nodiscard]] const std::string& mpiErrorString() const noexcept { return mpiErrorString_; }

private:
    Error(
        std::string message,
        std::source_location where,
        int mpiErrorCode,
        int rank,
        std::string mpiErrorString
    );

    std::string message_;        /**< message without the prefix */
    std::source_location where_; /**< call site */
    int rank_;                   /**< world rank or -1 */
    int mpiErrorCode_;           /**< MPI return code or 0 */
    std::string mpiErrorString_; /**< MPI_Error_string of the code */
};

/** @brief Rank in MPI_COMM_WORLD, or -1 when MPI is not initialised (or already finalised). */
[[nodiscard]] int worldRankOrMinusOne() noexcept;

/** @brief `file:line` of a source location, the form used in every message and key. */
[[nodiscard]] std::string toString(const std::source_location& where);

namespace detail
{
/** @brief Throws an Error for a failing MPI return code; @p call names the MPI function. */
[[noreturn]] void throwMpiError(int code, std::string_view call, const std::source_location& where);

/** @brief Checks an MPI return code; inline fast path, out-of-line throw. */
inline void checkMpi(int code, std::string_view call, const std::source_location& where)
{
    if (code != 0)
    {
        throwMpiError(code, call, where);
    }
}
} // namespace detail

} // namespace fieldsync

/**
 * @brief Throws fieldsync::Error(message) at the current call site unless @p cond holds.
 * The message expression is only evaluated when the check fails.
 */
#define FIELDSYNC_CHECK(cond, message)                                                             \
    do                                                                                             \
    {                                                                                              \
        if (!(cond))                                                                               \
        {                                                                                          \
            throw ::fieldsync::Error((message), std::source_location::current());                  \
        }                                                                                          \
    } while (false)

/**
 * @brief Like FIELDSYNC_CHECK, but names @p where (for example a caller's
 * std::source_location passed down a public API) instead of the current line.
 */
#define FIELDSYNC_CHECK_AT(cond, message, where)                                                   \
    do                                                                                             \
    {                                                                                              \
        if (!(cond))                                                                               \
        {                                                                                          \
            throw ::fieldsync::Error((message), (where));                                          \
        }                                                                                          \
    } while (false)

/** @brief Calls an MPI function and turns a failing return code into a fieldsync::Error. */
#define FIELDSYNC_MPI(call)                                                                        \
    ::fieldsync::detail::checkMpi((call), #call, std::source_location::current())

/** @brief Like FIELDSYNC_MPI, but the error names @p where. */
#define FIELDSYNC_MPI_AT(call, where) ::fieldsync::detail::checkMpi((call), #call, (where))
