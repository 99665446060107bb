// SPDX-License-Identifier: MIT
// The one place the library's messages travel: a private duplicate of a user's communicator,
// made once and cached on it (as PetscCommDuplicate does), with one tag allocator
// (as PetscCommGetNewTag). Layout of its tags: tagWindow.hpp.
#pragma once

#include "fieldsync/mpi/detail/tagWindow.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>

#include <mpi.h>

namespace fieldsync::mpi::detail
{

/** @brief The tags reserved for protocols that need one fixed tag on a private duplicate. */
enum class ReservedTag
{
    CheckArrival,   /**< check mode's arrival notices before a collective */
    SetUpArrival,   /**< the set-up agreement's arrival notices */
    SetUpAbandon,   /**< "I gave up set-up agreement N" notices */
    MatchIdArrival, /**< arrival notices of the agreement on a new CallOptions::matchId */
    Count           /**< how many */
};

/** @brief The private duplicate of one communicator and the state of its tag allocator. */
struct PrivateComm
{
    MPI_Comm comm { MPI_COMM_NULL };         /**< the duplicate */
    MPI_Request making { MPI_REQUEST_NULL }; /**< its MPI_Comm_idup, while in flight */
    bool owned { false };              /**< freed with this (not a predefined one's duplicate) */
    int tagUpperBound { 0 };           /**< MPI_TAG_UB of comm */
    std::uint32_t nextSequenced { 0 }; /**< the next tag takeTags hands out */
    std::uint64_t nextWindow { 1 };    /**< the Communicator window this rank bids next */
    /** @brief Not owning: what the duplicate's own attribute points to (it is its own private
     * duplicate). */
    std::shared_ptr<PrivateComm> self;
    /** the private duplicates of the CallOptions::matchId ids used so far (by MatchId::shown) */
    std::map<std::string, std::shared_ptr<PrivateComm>, std::less<>> byMatchId;

    PrivateComm() = default;
    PrivateComm(const PrivateComm&) = delete;
    PrivateComm& operator=(const PrivateComm&) = delete;
    ~PrivateComm(); /**< frees an owned duplicate unless MPI has been finalised */

    /** @brief The Communicator windows the tag space holds (TagWindow::windowsBelow). */
    [[nodiscard]] int windows() const noexcept { return TagWindow::windowsBelow(tagUpperBound); }
};

/**
 * @brief Collective over @p comm the first time: @p comm's private duplicate, made with
 * MPI_Comm_idup through the one wait (a rank that never comes is named past the time-out),
 * with MPI_ERRORS_RETURN, and kept as an attribute of @p comm: later calls return it without
 * communication, it is freed with @p comm (a predefined communicator's by MPI_Finalize), and
 * the private duplicate of a private duplicate is itself. MPIInit makes MPI_COMM_WORLD's.
 */
[[nodiscard]] const std::shared_ptr<PrivateComm>&
privateCommOf(MPI_Comm comm, const std::source_location& where);

/**
 * @brief Collective over @p comm: a new private duplicate of @p comm, made with MPI_Comm_idup
 * through the one wait, that is its own private duplicate (privateCommOf of its communicator
 * returns it, with a tag allocator of its own); owned, so freed when the handle goes.
 */
[[nodiscard]] std::shared_ptr<PrivateComm>
newPrivateDuplicate(MPI_Comm comm, const std::source_location& where);

/**
 * @brief Completes the MPI_Comm_idup @p making of @p made through the one wait (its report
 * names @p kind and the call @p name that needs the duplicate), then sets MPI_ERRORS_RETURN on
 * @p made. A time-out leaves the idup in flight; call again to wait for it again.
 */
void finishDuplicate(
    MPI_Request& making,
    MPI_Comm made,
    std::string_view kind,
    std::string_view name,
    const std::source_location& where
);

/**
 * @brief Collective and blocking: makes @p comm's private duplicate now (MPI_Comm_dup), unless
 * it exists, reading none of the wait's settings. For MPIInit, where every rank is present and
 * a bad FIELDSYNC_WAIT_... value must be reported by the first wait that reads it, not abort
 * the program's first line.
 */
void makePrivateComm(MPI_Comm comm, const std::source_location& where);

/** @brief The communicator of privateCommOf(@p comm): where the library's messages travel. */
[[nodiscard]] MPI_Comm privateComm(MPI_Comm comm, const std::source_location& where);

/** @brief @p env over its private duplicate, keeping @p env's communicator (and so the
 * duplicate) alive while a copy lives (an environment without MPI stays as it is). */
[[nodiscard]] MPIEnvironment
privateEnvironment(const MPIEnvironment& env, const std::source_location& where);

/**
 * @brief The first of @p count consecutive tags (1 to 64) for one collective step on @p comm's
 * private duplicate (collective the first time, as privateCommOf). Local: every rank makes the
 * collective calls of a communicator in the same order, so every rank takes the same tags for
 * the same step. The tags cycle through TagWindow::sequencedSpan, so a step's tags come back
 * only after thousands of later steps: a rank that left a step while another still listens
 * (mpi::answeredExchange) never meets that step's messages in a later one.
 */
[[nodiscard]] int takeTags(MPI_Comm comm, int count, const std::source_location& where);

/** @brief The tag reserved for @p which on every private duplicate. */
[[nodiscard]] constexpr int reservedTag(ReservedTag which) noexcept
{
    return TagWindow::reservedFirst + static_cast<int>(which);
}

/**
 * @brief Checks that the message a receive completed with @p status holds @p expected values of
 * @p type (MPI_Get_count), wherever the protocol knows the size.
 * @throws Error naming @p what, the sending rank, both counts and @p where otherwise.
 */
void checkReceived(
    const MPI_Status& status,
    MPI_Datatype type,
    std::size_t expected,
    std::string_view what,
    const std::source_location& where
);

} // namespace fieldsync::mpi::detail
