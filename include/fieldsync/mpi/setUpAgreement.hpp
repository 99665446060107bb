// SPDX-License-Identifier: MIT
// The agreement before a collective set-up call, in every mode (doc/reliability.md, "Set-up
// calls"): a rank that skips the call, or calls another set-up call at the same time, is named
// within the wait time-out instead of leaving the others blocked inside MPI.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <source_location>
#include <span>

namespace fieldsync::mpi
{

namespace detail
{

/** @brief The collective set-up calls agreed on before their blocking MPI step. */
enum class SetUpCall : std::int64_t
{
    Duplicate = 1,      /**< MPIEnvironment::duplicate (MPI_Comm_dup) */
    Split,              /**< MPIEnvironment::split by colour and key (MPI_Comm_split) */
    SplitByName,        /**< MPIEnvironment::split by name (MPI_Allgather, MPI_Comm_split) */
    SplitShared,        /**< MPIEnvironment::splitShared (MPI_Comm_split_type) */
    CartesianTopology,  /**< the CartesianTopology constructor (MPI_Cart_create) */
    GraphTopology,      /**< the GraphTopology constructor (MPI_Dist_graph_create_adjacent) */
    HaloCommunicator,   /**< the halo Communicator constructor and declare (MPI_Comm_dup) */
    HaloBuilder,        /**< the HaloBuilder constructor (MPI_Comm_dup) */
    Hierarchy,          /**< the CommunicatorHierarchy constructor (MPI_Comm_dup) */
    GhostList,          /**< the GhostList constructor (MPI_Comm_dup of its cached duplicate) */
    StructuredBlock,    /**< the StructuredBlock constructor (no MPI step: agreed on the box) */
    HierarchyPush,      /**< CommunicatorHierarchy::pushCommunicator (MPI_Comm_split) */
    HierarchyPushNode,  /**< CommunicatorHierarchy::pushNodeCommunicator (MPI_Comm_split_type) */
    HierarchyAllReduce, /**< CommunicatorHierarchy::allReduce: its steps run on the level's parts,
                          so check mode agrees on the whole call over the level first (a
                          per-step call: agreed in check mode only) */
    Migration,          /**< the partition::Migration constructor (its plan's collectives) */
    MigrationMigrate,   /**< partition::Migration::migrate (the rows' exchange) */
    Rebalance,          /**< partition::Rebalancer::newOwners and rebalance (Zoltan) */
    LayoutFromGhosts    /**< partition::layoutFromGhosts (an answered exchange) */
};

/** @brief The public name of @p call ("halo::Communicator constructor"). */
[[nodiscard]] const char* toString(SetUpCall call) noexcept;

} // namespace detail

/**
 * @brief Whether @p call is agreed on without check mode too: every set-up call whose inputs
 * must match or whose next step blocks inside MPI (doc/performance.md, "Set-up agreement");
 * not GhostList (its first collective step is an answered exchange through the one wait, which
 * names a rank that never comes, and the agreement would double its cost at small sizes) nor
 * the per-step HierarchyAllReduce, agreed in check mode (FIELDSYNC_CHECK=1) only. The halo
 * Communicator constructor with its pattern checked (an answered exchange too) agrees in check
 * mode only, for the same reason.
 */
[[nodiscard]] bool agreedInEveryMode(detail::SetUpCall call) noexcept;

/**
 * @brief Collective on @p comm for every call that agreedInEveryMode(), and for the others in
 * check mode (checkMode(), FIELDSYNC_CHECK=1); returns at once otherwise. Every rank of @p comm
 * agrees, through a non-blocking all-gather completed by the
 * one wait (mpi/wait.hpp), that it is about to make the same set-up call: a rank that never
 * calls is named, with @p where, past FIELDSYNC_WAIT_TIMEOUT (a warning, or an Error with
 * FIELDSYNC_WAIT_TIMEOUT_ACTION=error); ranks that make different set-up calls get an Error on
 * every rank naming both calls and their call sites; ranks that make the same call with
 * different @p values (the inputs every rank must pass alike, described by @p what: "dims,
 * periodic") get an Error on every rank naming each rank's values and call site. Up to 7 values
 * are compared and shown as they are; where there are more, the first 6 and a hash of the rest.
 *
 * The all-gather runs on a private duplicate of @p comm (made once, with MPI_Comm_idup through
 * the one wait; for MPI_COMM_WORLD by MPIInit), so an agreement left in flight by
 * a time-out never meets a later collective on @p comm. A rank that timed out tells the others
 * (a notice on the duplicate); a rank that missed the call joins the abandoned all-gather at
 * its next set-up agreement on @p comm, so that later agreements match again.
 */
void agreeOnSetUp(
    MPI_Comm comm,
    detail::SetUpCall call,
    const std::source_location& where,
    std::span<const std::int64_t> values = {},
    const char* what = "values"
);

/** @brief Makes @p comm's private duplicate for agreeOnSetUp now, where every rank is known to
 * be present (MPIInit does so for MPI_COMM_WORLD). Collective; blocking. */
void prepareSetUpAgreement(MPI_Comm comm, const std::source_location& where);

} // namespace fieldsync::mpi
