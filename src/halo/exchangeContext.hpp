// SPDX-License-Identifier: MIT
// Internal: where a Communicator's messages travel. Each Communicator built over a communicator
// gets a window of the tags of its private duplicate (mpi/detail/privateComm.hpp), as PetscSF
// takes new tags from PETSc's cached communicator, so a set-up pays no MPI_Comm_dup.
#pragma once

#include "fieldsync/halo/commitOptions.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>

namespace fieldsync::halo
{

using mpi::detail::TagWindow;

/**
 * @brief What one rank proposes for the next Communicator over a communicator: agreed by an
 * allreduce with MPI_MAX (so ranks whose counters differ still agree, on the highest).
 */
struct ContextBid
{
    std::uint64_t id { 0 };     /**< the next Communicator identifier of this process */
    std::uint64_t window { 0 }; /**< the next tag window of the private duplicate */
};

/**
 * @brief A Communicator's MPI context: its communicator, the tags it may use there and its
 * identifier (the same on every rank, never reused by a process: stale notices and check-mode
 * headers are recognised by it).
 */
struct ExchangeContext
{
    mpi::MPIEnvironment env;                 /**< the communicator (shared, or its own) */
    TagWindow tags { TagWindow::window(0) }; /**< the tags it may use on env */
    std::uint64_t id { 0 };                  /**< its identifier */
    std::shared_ptr<const void> keeper;      /**< keeps a private duplicate; null: env owns one */
    /** @brief The wait policy a set-up already read (GhostList); empty: read the environment. */
    std::optional<mpi::WaitPolicy> policy;

    /** @brief Whether other Communicators send on the same communicator (in other windows). */
    [[nodiscard]] bool shared() const noexcept { return keeper != nullptr; }
};

/** @brief This rank's bid for the next Communicator over @p comm (local; private duplicate made).
 */
[[nodiscard]] ContextBid contextBid(MPI_Comm comm, const std::source_location& where);

/**
 * @brief Takes the agreed bid: no later bid on this rank proposes its identifier, nor (with
 * @p window) its window. Call on every rank with the same arguments, right after the agreement.
 */
void takeBid(MPI_Comm comm, const ContextBid& agreed, bool window);

/**
 * @brief Collective when a duplicate is made: the context of a Communicator over @p env from the
 * agreed bid: its window of the shared duplicate, or a duplicate of its own (MPI_Comm_dup) when
 * @p ownDuplicate or when the communicator's tag range has no window left.
 */
[[nodiscard]] ExchangeContext grantContext(
    const mpi::MPIEnvironment& env,
    const ContextBid& agreed,
    bool ownDuplicate,
    const std::source_location& where
);

/**
 * @brief Collective: agrees a bid over @p env (one allreduce on the private duplicate), takes
 * it and grants it (grantContext).
 */
[[nodiscard]] ExchangeContext
agreeContext(const mpi::MPIEnvironment& env, bool ownDuplicate, const std::source_location& where);

/**
 * @brief Collective (commit.cpp): the checks of a Communicator made from maps and the agreement
 * on its context in one answered exchange on the private duplicate (mpi::answeredExchange): each
 * rank sends each peer its record of their pattern (counts and hashes of the global ids), the
 * peer answers with its own and compares the two, and the closing agreement carries whether any
 * rank found a disagreement, with the context's identifier and tag window. Bad input is an
 * Error on every rank with the texts CommunicatorState::commit writes. Returns the granted
 * context; the pattern then needs no check at commit.
 */
[[nodiscard]] ExchangeContext checkAndAgree(
    const mpi::MPIEnvironment& env,
    const RankSimplexCommMap& sendMap,
    const RankSimplexCommMap& receiveMap,
    const CommitOptions& options,
    const std::source_location& where
);

} // namespace fieldsync::halo
