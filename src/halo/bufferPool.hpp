// SPDX-License-Identifier: MIT
// Internal: the Communicator's buffers and index arrays, per memory space.
#pragma once

#include "engineNames.hpp"

#include "fieldsync/core/localIndex.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <cstddef>
#include <deque>
#include <memory>
#include <span>
#include <vector>

namespace fieldsync::halo
{

/**
 * @brief The Communicator's buffers: DuplexBuffers per memory space and direction, claimed by
 * one exchange at a time; grows only when every fitting buffer is claimed. An exchange gets the
 * buffer it used last when free (its persistent requests stay valid), else one nobody else used.
 */
class BufferPool
{
public:
    /**
     * @brief A free buffer in @p space for an exchange @p owner (forward or @p reverse, with
     * the transports of @p backEnd), its
     * last entry @p last tried first; a new one sized by @p from and @p to when none is free.
     * Returns the entry index; the entry is claimed.
     */
    std::size_t acquire(
        const mpi::detail::SpaceOps& space,
        bool reverse,
        int backEnd,
        const void* owner,
        std::size_t last,
        const mpi::MPIEnvironment& env,
        const RankSimplexCommMap& from,
        const RankSimplexCommMap& to
    )
    {
        if (last < entries_.size() && fits(entries_[last], space, reverse, backEnd))
        {
            entries_[last].claimed = true; // the exchange's own buffer again: no search
            entries_[last].lastOwner = owner;
            return last;
        }
        return acquireOther(space, reverse, backEnd, owner, env, from, to);
    }

    /** @brief The buffer of entry @p i. */
    [[nodiscard]] DuplexBuffer& operator[](std::size_t i) { return *entries_[i].buffer; }

    /** @brief Frees entry @p i for other exchanges. */
    void release(std::size_t i) noexcept { entries_[i].claimed = false; }

    /** @brief Number of buffers. */
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

private:
    struct Entry
    {
        const mpi::detail::SpaceOps* space { nullptr }; /**< memory space of the buffer */
        bool reverse { false };                         /**< configured for reverse exchanges */
        int backEnd { 0 };                              /**< the back end of its transports */
        bool claimed { false };                         /**< in use by an exchange */
        const void* lastOwner { nullptr };              /**< exchange that used it last */
        std::unique_ptr<DuplexBuffer> buffer;           /**< the buffer */
    };

    /** @brief acquire() when the last buffer does not fit: search, or grow. */
    std::size_t acquireOther(
        const mpi::detail::SpaceOps& space,
        bool reverse,
        int backEnd,
        const void* owner,
        const mpi::MPIEnvironment& env,
        const RankSimplexCommMap& from,
        const RankSimplexCommMap& to
    );

    bool fits(const Entry& e, const mpi::detail::SpaceOps& space, bool reverse, int backEnd)
        const noexcept
    {
        return !e.claimed && e.space == &space && e.reverse == reverse && e.backEnd == backEnd;
    }

    std::vector<Entry> entries_; /**< the buffers (each on the heap: an entry may move) */
};

/** @brief The runs of one map in one memory space (IndexRuns' arrays). */
struct RunArrays
{
    const LocalIndex* first { nullptr }; /**< IndexRuns::first() */
    const std::size_t* at { nullptr };   /**< IndexRuns::at() */
};

/** @brief The send and receive map indices in one memory space (for pack and unpack kernels). */
struct IndexArrays
{
    const LocalIndex* send { nullptr };    /**< send map indices */
    const LocalIndex* receive { nullptr }; /**< receive map indices */
    RunArrays sendRuns;                    /**< runs of the send map (null until asked for) */
    RunArrays receiveRuns;                 /**< runs of the receive map (null until asked for) */
};

/**
 * @brief The map indices and their runs per memory space, copied there on first use and kept. In
 * Kokkos::HostSpace they are not copied: the arrays are the maps' and runs' own (which the
 * Communicator keeps unchanged for its lifetime, and outlives this cache).
 */
class IndexCache
{
public:
    IndexCache() = default;
    ~IndexCache();
    IndexCache(const IndexCache&) = delete;
    IndexCache& operator=(const IndexCache&) = delete;
    IndexCache(IndexCache&&) = delete;
    IndexCache& operator=(IndexCache&&) = delete;

    /**
     * @brief The arrays of @p send and @p receive in @p space, and with @p withRuns those of
     * their runs (copied on the first call that asks for them: execution spaces that never pack
     * by runs, PackChoice::byRuns, leave them null and uncopied).
     */
    const IndexArrays&
    get(const mpi::detail::SpaceOps& space,
        const RankSimplexCommMap& send,
        const RankSimplexCommMap& receive,
        const IndexRuns& sendRuns,
        const IndexRuns& receiveRuns,
        bool withRuns);

private:
    struct Entry
    {
        const mpi::detail::SpaceOps* space { nullptr }; /**< memory space of the arrays */
        IndexArrays arrays;                             /**< the arrays */
        bool borrowed { false }; /**< host: the maps' own arrays, not copies */
        bool withRuns { false }; /**< the runs' arrays are set */
    };

    /** @brief @p values in @p entry's space: their own data when borrowed, else a copy. */
    template<typename T>
    static const T* copy(const Entry& entry, std::span<const T> values);

    std::deque<Entry> entries_; /**< one per memory space (stable addresses) */
};

} // namespace fieldsync::halo
