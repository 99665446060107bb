// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/setUpAgreement.hpp"

#include <memory>
#include <source_location>
#include <string_view>

#include <mpi.h>

namespace fieldsync::mpi
{

/**
 * @brief An MPI communicator with its rank and size.
 *
 * Wrapping a communicator (MPI_COMM_WORLD by default) borrows it: nothing is freed. The
 * communicators that split(), splitShared() and duplicate() create are owned jointly by every
 * copy of the returned environment and freed (MPI_Comm_free) when the last copy goes, unless
 * MPI has been finalised by then. Owned communicators have MPI_ERRORS_RETURN set, so MPI failures
 * on them become fieldsync::Error exceptions rather than aborts, and get the library's private
 * duplicate (mpi/detail/privateComm.hpp) at once, while every rank is there.
 *
 * Copying is cheap (a shared pointer and two ints).
 */
class MPIEnvironment
{
public:
    /**
     * @brief Wraps @p comm without taking ownership.
     * @throws Error if MPI is not initialised or @p comm is MPI_COMM_NULL.
     */
    explicit MPIEnvironment(
        MPI_Comm comm = MPI_COMM_WORLD, std::source_location where = std::source_location::current()
    );

    /** @brief The communicator. */
    [[nodiscard]] MPI_Comm comm() const noexcept { return comm_; }

    /** @brief This process's rank in comm(). */
    [[nodiscard]] int rank() const noexcept { return rank_; }

    /** @brief The seed's spelling of rank(). */
    [[nodiscard]] int Rank() const noexcept
    {
        return rank_;
    } // NOLINT(readability-identifier-naming)

    /** @brief The number of ranks in comm(). */
    [[nodiscard]] int sizeRank() const noexcept { return size_; }

    /**
     * @brief Collective: MPI_Comm_split of comm() by @p color, ordered by @p key.
     * A negative color (MPI_UNDEFINED) gives an environment without communicator on that rank is
     * not supported: every rank must pass a color >= 0. The ranks first agree on
     * the call (agreeOnSetUp), so a rank that never calls is named at @p where.
     */
    [[nodiscard]] MPIEnvironment
    split(int color, int key, std::source_location where = std::source_location::current()) const;

    /**
     * @brief Collective: ranks that pass the same @p name land in the same sub-communicator,
     * ordered by their rank in comm() (seeds/000). Names are compared exactly, so two different
     * names never share a communicator, whatever their hashes. Agreed, as split().
     */
    [[nodiscard]] MPIEnvironment split(
        std::string_view name, std::source_location where = std::source_location::current()
    ) const;

    /** @brief Collective: the ranks of comm() that share memory (one node), MPI_COMM_TYPE_SHARED.
     * Agreed first, as split(). */
    [[nodiscard]] MPIEnvironment
    splitShared(std::source_location where = std::source_location::current()) const;

    /** @brief Collective: a duplicate of comm() (own context, so its tags never meet comm()'s).
     * Agreed first, as split(). */
    [[nodiscard]] MPIEnvironment
    duplicate(std::source_location where = std::source_location::current()) const;

    /** @brief Collective: duplicate(), made as part of the set-up call @p as, which check mode
     * agrees on and names instead (a Communicator's or a HaloBuilder's private duplicate). */
    [[nodiscard]] MPIEnvironment duplicate(
        detail::SetUpCall as, std::source_location where = std::source_location::current()
    ) const;

    /**
     * @brief Takes ownership of @p comm, a communicator made elsewhere (MPI_Cart_create,
     * MPI_Dist_graph_create_adjacent): it is freed with the last copy, and MPI errors on it are
     * returned (MPI_ERRORS_RETURN), so they become Errors.
     * @throws Error if MPI is not initialised or @p comm is MPI_COMM_NULL.
     */
    [[nodiscard]] static MPIEnvironment
    adopt(MPI_Comm comm, std::source_location where = std::source_location::current());

    /**
     * @brief This environment with @p sameRanks, a duplicate of comm() that lives as long as
     * comm() does (the library's private duplicate, mpi::detail::privateEnvironment), in place
     * of comm(); an owned comm() stays owned by the copies, so it outlives them all.
     */
    [[nodiscard]] MPIEnvironment over(MPI_Comm sameRanks) const noexcept
    {
        MPIEnvironment moved { *this };
        moved.comm_ = sameRanks;
        return moved;
    }

    /** @brief Whether this environment owns (and will free) its communicator. */
    [[nodiscard]] bool ownsComm() const noexcept { return owner_ != nullptr; }

    /**
     * @brief NeoN's isInitialized(): whether MPI ran when the environment was made (always for
     * an MPIEnvironment, which throws otherwise; false for an mpi::Environment made without MPI).
     */
    [[nodiscard]] bool isInitialized() const noexcept { return comm_ != MPI_COMM_NULL; }

protected:
    /**
     * @brief An environment without MPI (mpi::Environment made while MPI does not run): no
     * communicator, rank() == sizeRank() == -1 (NeoN's answer); every buffer, Communicator or
     * collective made with it throws.
     */
    [[nodiscard]] static MPIEnvironment withoutMpi() noexcept
    {
        return MPIEnvironment(WithoutMpi {});
    }

private:
    /** @brief Tag of the environment without MPI. */
    struct WithoutMpi
    {
    };

    /** @brief The environment without MPI (withoutMpi()). */
    explicit MPIEnvironment(WithoutMpi) noexcept : rank_(-1), size_(-1) {}

private:
    struct Owned; /**< frees an owned communicator */

    MPIEnvironment(std::shared_ptr<Owned> owner, std::source_location where);

    /** MPI_Comm_split without the agreement (split by name agrees once, before its gather). */
    [[nodiscard]] MPIEnvironment splitAgreed(int color, int key, std::source_location where) const;

    std::shared_ptr<Owned> owner_;    /**< set when the communicator is ours */
    MPI_Comm comm_ { MPI_COMM_NULL }; /**< the communicator */
    int rank_ { 0 };                  /**< rank in comm_ */
    int size_ { 0 };                  /**< size of comm_ */
};

} // namespace fieldsync::mpi
