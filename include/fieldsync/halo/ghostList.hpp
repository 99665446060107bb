// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <cstddef>
#include <memory>
#include <source_location>
#include <span>

namespace fieldsync::halo
{

/** @brief Where a ghost cell's value lives (PetscSFNode): the owning rank and the index there. */
struct GhostOwner
{
    int rank { 0 };         /**< the rank that owns the cell */
    LocalIndex index { 0 }; /**< the cell's local index on that rank, below its owned count */
};

/**
 * @brief A halo pattern given as a ghost list, as PetscSFSetGraph takes it: for each ghost cell
 * of this rank, its local index and its owner (rank and index on that rank). The send side is
 * discovered with one answered exchange (mpi::answeredExchange()): each rank sends every owner
 * the indices it needs, each owner answers how many of them are not its cells, and one
 * agreement (a dissemination reduction) closes the exchange, so nothing is sized by the
 * communicator.
 *
 * The receive map lists, per owner rank (ascending), the ghosts it owns in the order of the
 * list; the owner's send map lists the requested cells in the same order, so both sides agree
 * by construction. A ghost owned by this rank itself becomes a self message (a local copy).
 * The same remote cell may be the source of several ghosts.
 *
 * Bad input is a fieldsync::Error on every rank, with the call site: the rank that found it
 * names the entry and the value, the other ranks repeat that text with the rank's number. Bad
 * input is: lists of different lengths, a ghost index that is negative, an owned cell
 * (below @p nOwned) or listed twice, an owner rank out of range, an owner index that is
 * negative or not below the owner's count of owned cells (checked by the owner).
 *
 * Collective over the environment's communicator. The exchange travels on a duplicate made
 * once and cached on that communicator (as PetscCommDuplicate does: later set-ups pay no
 * MPI_Comm_dup), and the agreement that closes the exchange also gives the Communicator a tag
 * window of its own on that duplicate, which communicator() hands on (as PetscSF takes new tags
 * from PETSc's cached communicator). Only when it finds bad input do the ranks talk again (one
 * allreduce for the lowest rank that named it, one broadcast of its text). Only when the
 * duplicate's tag range has no window left (MPI_TAG_UB / 65536 - 1 set-ups over one communicator)
 * does the set-up make a duplicate for the Communicator with MPI_Comm_dup.
 *
 * The environment's wait policy (FIELDSYNC_WAIT_TIMEOUT, FIELDSYNC_WAIT_TIMEOUT_ACTION) is read
 * once, when the list is made: its exchange and the Communicator's waits use it
 * (Communicator::setOptions changes the latter).
 */
class GhostList
{
public:
    /**
     * @brief Collective: the maps of this rank's ghost list.
     * @param env the ranks (the maps are for its size)
     * @param nOwned cells this rank owns: local indices 0 .. nOwned-1, what other ranks may ask
     * @param ghostCells the local index of each ghost cell (each at least @p nOwned)
     * @param owners the owner of each ghost cell, entry by entry with @p ghostCells
     * @param where the call site errors name
     * @throws Error on every rank when any rank's list is bad (see the class)
     */
    GhostList(
        mpi::MPIEnvironment env,
        std::size_t nOwned,
        std::span<const LocalIndex> ghostCells,
        std::span<const GhostOwner> owners,
        std::source_location where = std::source_location::current()
    );

    /** @brief Per neighbour rank: the owned cells it needs, in the order of its list. */
    [[nodiscard]] const RankSimplexCommMap& sendMap() const noexcept { return sendMap_; }

    /** @brief Per owner rank: the ghost cells its values land in, in the order of the list. */
    [[nodiscard]] const RankSimplexCommMap& receiveMap() const noexcept { return receiveMap_; }

    /** @brief The number of owned cells given. */
    [[nodiscard]] std::size_t nOwned() const noexcept { return nOwned_; }

    /**
     * @brief A committed Communicator over the two maps, in the tag window (or the duplicate)
     * the set-up agreed on. Its commit checks nothing and waits for no rank: the
     * maps agree by construction and the set-up checked them. The back end is the
     * environment's choice (FIELDSYNC_HALO_BACKEND; the neighbourhood collectives, persistent
     * or not, and Auto are collective). Call once per list: a second call is an Error. The
     * list keeps its maps (sendMap(), receiveMap()); the Communicator gets copies.
     */
    [[nodiscard]] Communicator
    communicator(std::source_location where = std::source_location::current()) &;

    /**
     * @brief The same Communicator from a list that is not needed after: the maps move into it
     * instead of being copied (`std::move(list).communicator()`, or on a temporary list). The
     * list's maps are empty after (no neighbour, for no rank).
     */
    [[nodiscard]] Communicator
    communicator(std::source_location where = std::source_location::current()) &&;

private:
    /** @brief Both communicator()s: hands the context and @p send, @p receive on. */
    [[nodiscard]] Communicator
    handOn(RankSimplexCommMap send, RankSimplexCommMap receive, const std::source_location& where);

    std::shared_ptr<ExchangeContext> context_; /**< what the Communicator will use */
    std::size_t nOwned_ { 0 };                 /**< owned cells on this rank */
    RankSimplexCommMap sendMap_;               /**< send direction */
    RankSimplexCommMap receiveMap_;            /**< receive direction */
    bool handedOn_ { false };                  /**< communicator() gave context_ away */
};

} // namespace fieldsync::halo
