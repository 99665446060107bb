// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/algorithm.hpp"
#include "fieldsync/mpi/broadcast.hpp"
#include "fieldsync/mpi/gathers.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/reductions.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"

#include <array>
#include <cstdint>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

namespace fieldsync::mpi
{

/**
 * @brief What shape the levels that a CommunicatorHierarchy builds may take (seeds/000:
 * set_cartesian_communicator, set_tree_communicator).
 */
enum class HierarchyShape
{
    Cartesian, /**< best effort: a level whose inner communicators are all one size is cartesian */
    Tree       /**< every level is a tree, so its allreduce runs in three steps */
};

/**
 * @brief A stack of communicator levels (seeds/000, doc/hierarchy.md). Each level splits the
 * inner communicator of the level below it (its "full" communicator) in two ways: the inner
 * communicator holds the ranks that gave the same name, the outer communicator the ranks with the
 * same rank in their inner communicator. Level 0 is a duplicate of the environment, named
 * "global". A level is cartesian when all its inner communicators have the same size (and the
 * shape is HierarchyShape::Cartesian), otherwise a tree.
 *
 * allReduce over the current level reduces over its full communicator, natively or in steps over
 * the inner and outer communicators (Algorithm::Cartesian2Step, Tree3Step, NodeAware).
 */
class CommunicatorHierarchy
{
public:
    /**
     * @brief Collective over @p env: a hierarchy of one level, "global", a duplicate of env.
     * @p shape applies to every level built from now on (setShape changes it).
     */
    explicit CommunicatorHierarchy(
        const MPIEnvironment& env,
        HierarchyShape shape = HierarchyShape::Cartesian,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief Collective over @p env: the default levels, "global" (level 0) and the ranks that
     * share memory on one node (level 1, named by the processor name), level 1 current.
     */
    [[nodiscard]] static CommunicatorHierarchy withDefaults(
        const MPIEnvironment& env,
        HierarchyShape shape = HierarchyShape::Cartesian,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief Collective over the current level's inner communicator: ranks giving the same
     * @p name share the new level's inner communicator; ranks with the same inner rank share its
     * outer communicator. Levels above the current one are dropped; the new level is current.
     */
    void pushCommunicator(
        std::string_view name, std::source_location where = std::source_location::current()
    );

    /**
     * @brief Collective over the current level's inner communicator: pushes the level of the
     * ranks that share memory (MPI_COMM_TYPE_SHARED), named by this rank's processor name.
     */
    void pushNodeCommunicator(std::source_location where = std::source_location::current());

    /** @brief Drops the top level (not level 0); the current level stays or moves down to it. */
    void popCommunicator(std::source_location where = std::source_location::current());

    /** @brief Makes @p level current; an Error unless 0 <= level < numLevels(). Local. */
    void setCommunicator(int level, std::source_location where = std::source_location::current());

    /** @brief The current level. */
    [[nodiscard]] int level() const noexcept { return current_; }

    /** @brief How many levels there are (at least 1). */
    [[nodiscard]] int numLevels() const noexcept { return static_cast<int>(levels_.size()); }

    /** @brief Sets the shape of the levels built from now on (seeds/000). Local. */
    void setShape(HierarchyShape shape) noexcept { shape_ = shape; }

    /** @brief The shape of the levels built from now on. */
    [[nodiscard]] HierarchyShape shape() const noexcept { return shape_; }

    /**
     * @brief One line per level: `level 1 "node0": inner 1 of 2, outer 0 of 2, cartesian`, with
     * ` (current)` after the name of the current level.
     */
    [[nodiscard]] std::string communicatorNames() const;

    /** @brief Whether the current level is cartesian (otherwise a tree). */
    [[nodiscard]] bool isCartesian() const noexcept { return levels_[index(current_)].cartesian; }

    /** @brief Whether @p level is cartesian; an Error for a level out of range. */
    [[nodiscard]] bool
    isCartesian(int level, std::source_location where = std::source_location::current()) const;

    /** @brief The name this rank gave to @p level. */
    [[nodiscard]] const std::string&
    name(int level, std::source_location where = std::source_location::current()) const;

    /** @brief The smallest and largest inner communicator size of @p level, {min, max}. */
    [[nodiscard]] std::pair<int, int>
    innerSizes(int level, std::source_location where = std::source_location::current()) const;

    /**
     * @brief Collective over the current inner communicator: the number of shared-memory nodes
     * its ranks run on.
     */
    [[nodiscard]] int
    numNodesInCommunicator(std::source_location where = std::source_location::current()) const;

    /** @brief The inner communicator of @p level: the ranks that gave the same name. */
    [[nodiscard]] const MPIEnvironment&
    inner(int level, std::source_location where = std::source_location::current()) const;

    /** @brief The outer communicator of @p level: the ranks with the same inner rank. */
    [[nodiscard]] const MPIEnvironment&
    outer(int level, std::source_location where = std::source_location::current()) const;

    /** @brief The communicator @p level splits: the inner communicator of the level below. */
    [[nodiscard]] const MPIEnvironment&
    full(int level, std::source_location where = std::source_location::current()) const;

    /**
     * @brief In place over the current level's full communicator: @p data becomes @p op over
     * every rank's data, by options.algorithm (Native, Cartesian2Step, Tree3Step or NodeAware;
     * anything else, or Cartesian2Step on a tree level, is an Error). Staging and fencing as in
     * the collectives.
     */
    template<typename B, typename E = detail::ViewExecutionSpace>
    requires CollectiveBuffer<B>
    void allReduce(
        B&& data,
        ReduceOp op,
        const CallOptions<E>& options,
        std::source_location where = std::source_location::current()
    ) const;

    /** @brief In place over the current level's full communicator, by @p algorithm. */
    template<typename B>
    requires CollectiveBuffer<B>
    void allReduce(
        B&& data,
        ReduceOp op,
        Algorithm algorithm = Algorithm::Native,
        std::source_location where = std::source_location::current()
    ) const
    {
        allReduce(data, op, CallOptions<> { .algorithm = algorithm }, where);
    }

    /** @brief One value in place over the current level's full communicator, by @p algorithm. */
    template<typename T>
    requires MpiCompatible<T>
    void allReduce(
        T& value,
        ReduceOp op,
        Algorithm algorithm = Algorithm::Native,
        std::source_location where = std::source_location::current()
    ) const
    {
        allReduce(std::span<T>(&value, 1), op, CallOptions<> { .algorithm = algorithm }, where);
    }

private:
    /** @brief One level: the communicator it splits, its inner and outer parts, its shape. */
    struct Level
    {
        std::string name;        /**< the name this rank gave */
        MPIEnvironment full;     /**< the communicator split (the inner one of the level below) */
        MPIEnvironment inner;    /**< ranks with the same name */
        MPIEnvironment outer;    /**< ranks with the same inner rank */
        int minInner { 1 };      /**< smallest inner communicator of the level */
        int maxInner { 1 };      /**< largest inner communicator of the level */
        bool cartesian { true }; /**< all inner communicators the same size, shape Cartesian */
    };

    /** @brief The block of each inner rank in NodeAware. */
    struct Blocks
    {
        std::vector<int> counts; /**< values per inner rank */
        std::size_t mine { 0 };  /**< values in this rank's block */
    };

    /** @brief @p level as an index into levels_. */
    [[nodiscard]] static std::size_t index(int level) noexcept
    {
        return static_cast<std::size_t>(level);
    }

    /** @brief Level @p level; an Error naming @p where when it is out of range. */
    [[nodiscard]] const Level& at(int level, const std::source_location& where) const;

    /** @brief The current level, once @p algorithm is checked against it. */
    [[nodiscard]] const Level&
    levelFor(Algorithm algorithm, const std::source_location& where) const;

    /** @brief Collective over @p full: the level of @p full split into @p inner. */
    [[nodiscard]] static Level makeLevel(
        std::string name,
        const MPIEnvironment& full,
        const MPIEnvironment& inner,
        HierarchyShape shape,
        const std::source_location& where
    );

    /**
     * @brief Check mode: every rank of the current inner communicator agrees that it pushes a
     * level (@p call), from the same level with the same shape (agreeOnSetUp).
     */
    void agreeOnPush(detail::SetUpCall call, const std::source_location& where) const;

    /** @brief Pushes the level of the current inner communicator split into @p inner. */
    void
    pushLevel(std::string name, const MPIEnvironment& inner, const std::source_location& where);

    /** @brief NodeAware blocks of @p count values over @p level (tree levels included). */
    [[nodiscard]] static Blocks
    blocks(std::size_t count, const Level& level, const std::source_location& where);

    /** @brief The NodeAware allreduce of @p data, a 1-D span or unmanaged view, over @p level. */
    template<typename Flat, typename E>
    static void nodeAware(
        const Flat& data,
        ReduceOp op,
        const Level& level,
        const CallOptions<E>& options,
        const std::source_location& where
    );

    std::vector<Level> levels_;                          /**< level 0 ("global") first */
    int current_ { 0 };                                  /**< the current level */
    HierarchyShape shape_ { HierarchyShape::Cartesian }; /**< shape of new levels */
};

template<typename B, typename E>
requires CollectiveBuffer<B>
void CommunicatorHierarchy::allReduce(
    B&& data, ReduceOp op, const CallOptions<E>& options, std::source_location where
) const
{
    const Level& level = levelFor(options.algorithm, where);
    using T = detail::ElementOf<B>;
    // check mode: the whole call agreed over the level, not only its steps over the level's parts
    const std::array<std::int64_t, 6> signature {
        static_cast<std::int64_t>(data.size()),
        static_cast<std::int64_t>(sizeof(T)),
        static_cast<std::int64_t>(detail::MpiTypeInfo<T>::typeClass()),
        static_cast<std::int64_t>(op),
        static_cast<std::int64_t>(options.algorithm),
        current_
    };
    agreeOnSetUp(
        level.full.comm(),
        detail::SetUpCall::HierarchyAllReduce,
        where,
        signature,
        "count, element bytes, element class, op, algorithm, level"
    );
    CallOptions<E> native = options;
    native.algorithm = Algorithm::Native;
    using Buffer = std::remove_cvref_t<B>;
    switch (options.algorithm)
    {
    case Algorithm::Cartesian2Step:
        mpi::allReduce(data, op, level.inner.comm(), native, where);
        mpi::allReduce(data, op, level.outer.comm(), native, where);
        return;
    case Algorithm::Tree3Step:
        mpi::reduce(data, op, 0, level.inner.comm(), native, where);
        if (level.inner.rank() == 0)
        {
            mpi::allReduce(data, op, level.outer.comm(), native, where);
        }
        mpi::broadcast(data, 0, level.inner.comm(), native, where);
        return;
    case Algorithm::NodeAware:
        if constexpr (Kokkos::is_view<Buffer>::value)
        {
            detail::requireContiguous(data, "CommunicatorHierarchy::allReduce", where);
            using Flat = Kokkos::
                View<T*, typename Buffer::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
            nodeAware(Flat(data.data(), data.size()), op, level, native, where);
        }
        else
        {
            nodeAware(std::span<T>(data.data(), data.size()), op, level, native, where);
        }
        return;
    default:
        mpi::allReduce(data, op, level.full.comm(), native, where);
    }
}

/**
 * Reduce-scatter inside, allreduce of this rank's block outside, allgather inside. The blocks
 * are the same on every inner communicator of the level, so the outer communicator of inner rank
 * k reduces block k of every group.
 */
template<typename Flat, typename E>
void CommunicatorHierarchy::nodeAware(
    const Flat& data,
    ReduceOp op,
    const Level& level,
    const CallOptions<E>& options,
    const std::source_location& where
)
{
    using T = std::remove_pointer_t<decltype(data.data())>;
    const Blocks b = blocks(data.size(), level, where);
    auto work = [&](auto block)
    {
        mpi::reduceScatter(
            data, block, std::span<const int>(b.counts), op, level.inner.comm(), options, where
        );
        if (b.mine > 0)
        {
            mpi::allReduce(block, op, level.outer.comm(), options, where);
        }
        mpi::allGatherV(
            block, data, std::span<const int>(b.counts), level.inner.comm(), options, where
        );
    };
    if constexpr (Kokkos::is_view<Flat>::value)
    {
        using Block = Kokkos::View<T*, typename Flat::memory_space>;
        work(Block(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fieldsync::block"), b.mine));
    }
    else
    {
        std::vector<T> block(b.mine);
        work(std::span<T>(block));
    }
}

} // namespace fieldsync::mpi
