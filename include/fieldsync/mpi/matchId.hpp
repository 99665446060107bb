// SPDX-License-Identifier: MIT
// CallOptions::matchId: collectives matched by an id instead of by their order
// (doc/collectives.md, "Calls matched by id").
#pragma once

#include <concepts>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>

#include <mpi.h>

namespace fieldsync::mpi
{

/**
 * @brief The id that matches a collective call with the calls of the same id on the other ranks,
 * whatever their order: a name (`"residual U"`) or an integer (`3`). A name and an integer are
 * different ids even when they read alike ("3" is not 3). An empty MatchId (the default) is "no
 * id": the call is matched by its order, as MPI matches collectives.
 *
 * Each id of a communicator has its own private duplicate of it, made the first time the id is
 * used there: that first call is collective over the whole communicator and ordered with its
 * other collectives (see doc/collectives.md); later calls with the id are matched only with the
 * calls of the same id.
 */
class MatchId
{
public:
    /** @brief No id: the call is matched by its order. */
    MatchId() = default;

    /** @brief The id named @p name. */
    MatchId(std::string_view name) // NOLINT: implicit
    {
        // append(), not operator+: GCC 12 warns (-Wrestrict, a false positive) on the chain
        key_.reserve(name.size() + 2);
        key_.append(1, '"').append(name).append(1, '"');
    }

    /** @brief The id named @p name. */
    MatchId(const char* name) : MatchId(std::string_view(name)) {} // NOLINT: implicit

    /** @brief The id named @p name. */
    MatchId(const std::string& name) : MatchId(std::string_view(name)) {} // NOLINT: implicit

    /** @brief The integer id @p number. */
    template<std::integral I>
    requires(!std::same_as<I, bool> && !std::same_as<I, char>) MatchId(I number)
        : key_(std::to_string(number)) // NOLINT: implicit
    {
    }

    /** @brief Whether this is "no id". */
    [[nodiscard]] bool empty() const noexcept { return key_.empty(); }

    /** @brief The id as messages show it: a name in double quotes, an integer as it is. */
    [[nodiscard]] const std::string& shown() const noexcept { return key_; }

    /** @brief Whether both are the same id. */
    friend bool operator==(const MatchId&, const MatchId&) = default;

private:
    std::string key_; /**< shown(): a quoted name or a decimal integer; empty for no id */
};

namespace detail
{

/**
 * @brief The communicator a call with @p id on @p comm runs on: @p comm itself for no id,
 * otherwise the private duplicate of @p comm kept for @p id. The first use of an id on @p comm
 * makes it: collective over @p comm (an agreement then MPI_Comm_idup, both through the one
 * wait), so every rank must reach its first use of the id at the same point of its collectives
 * on @p comm.
 * @throws Error on every rank, naming each rank's id and call site, when the ranks' first uses
 * name different ids (a rank that uses an id the others do not); an Error naming @p where when a
 * rank never arrives (past FIELDSYNC_WAIT_TIMEOUT, as the one wait says).
 */
[[nodiscard]] MPI_Comm
matchedComm(MPI_Comm comm, const MatchId& id, const char* name, const std::source_location& where);

} // namespace detail

} // namespace fieldsync::mpi
