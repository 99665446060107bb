// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace fieldsync::halo
{

/** @brief How a Communicator moves its messages (doc/topology.md, "Back ends"). */
enum class BackEnd
{
    PointToPoint,        /**< MPI_Isend/MPI_Irecv, persistent from a message size on */
    NeighbourCollective, /**< MPI_Ineighbor_alltoallv on a graph communicator */
    /**
     * MPI_Neighbor_alltoallv_init (MPI-4) on a graph communicator: one persistent collective
     * per key and cell size, restarted with MPI_Start; only where the MPI library has it
     * (persistentNeighbourAvailable())
     */
    PersistentNeighbour,
    Auto /**< commit times each available back end on a few real exchanges, keeps the fastest */
};

/** @brief The name of a BackEnd ("PointToPoint"). */
[[nodiscard]] const char* toString(BackEnd backEnd) noexcept;

/**
 * @brief Whether BackEnd::PersistentNeighbour is available: the MPI library fieldsync was built
 * with has MPI_Neighbor_alltoallv_init (detected at configure time; MPICH 4 has it, Open MPI
 * 4.1 does not). FIELDSYNC_HAVE_PERSISTENT_NEIGHBOUR in fieldsync/config.hpp says the same.
 */
[[nodiscard]] bool persistentNeighbourAvailable() noexcept;

/**
 * @brief What Communicator::commit checks and how it sets the exchange up.
 *
 * Commit always checks, between every pair of neighbours, that the cells one rank sends are
 * as many as the other expects, and that every rank sent to expects something and every rank
 * expected from sends (unless checkPattern is false). With globalIds it also checks the order
 * (a hash of each list's global ids on both sides); with ownedCells, that no receive index is
 * an owned cell and no send index a ghost (send and receive maps passed in swapped order).
 */
struct CommitOptions
{
    /** @brief Global id of each local cell (owned and ghosts); empty: no order check. */
    std::span<const std::int64_t> globalIds {};
    /** @brief Cells [0, ownedCells) are owned, the rest ghosts; negative: not checked. */
    std::int64_t ownedCells { -1 };
    /** @brief Check the pattern between neighbours (one sparse exchange at commit). */
    bool checkPattern { true };
    /**
     * @brief The back end; empty: FIELDSYNC_HALO_BACKEND (p2p, neighbour, neighbour-persistent,
     * auto), else p2p. PersistentNeighbour where the MPI library lacks it is an Error.
     */
    std::optional<BackEnd> backEnd {};
    /**
     * @brief Check mode for this Communicator's exchanges (a header and a checksum per message,
     * doc/reliability.md); empty: the global setting, checkMode() (FIELDSYNC_CHECK).
     */
    std::optional<bool> check {};
};

} // namespace fieldsync::halo
