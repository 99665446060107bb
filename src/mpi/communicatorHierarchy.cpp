// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/communicatorHierarchy.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <array>
#include <climits>

namespace fieldsync::mpi
{

namespace
{
/** This process's processor name (MPI_Get_processor_name): the name of its node level. */
std::string processorName(const std::source_location& where)
{
    std::array<char, MPI_MAX_PROCESSOR_NAME> buffer {};
    int length { 0 };
    FIELDSYNC_MPI_AT(MPI_Get_processor_name(buffer.data(), &length), where);
    return std::string(buffer.data(), static_cast<std::size_t>(length));
}

/** `r of n` for a rank in an environment. */
std::string rankOf(const MPIEnvironment& env)
{
    return std::to_string(env.rank()) + " of " + std::to_string(env.sizeRank());
}
} // namespace

CommunicatorHierarchy::CommunicatorHierarchy(
    const MPIEnvironment& env, HierarchyShape shape, std::source_location where
)
    : shape_(shape)
{
    const MPIEnvironment global = env.duplicate(detail::SetUpCall::Hierarchy, where);
    levels_.push_back(makeLevel("global", global, global, shape_, where));
}

CommunicatorHierarchy CommunicatorHierarchy::withDefaults(
    const MPIEnvironment& env, HierarchyShape shape, std::source_location where
)
{
    CommunicatorHierarchy hierarchy(env, shape, where);
    hierarchy.pushNodeCommunicator(where);
    return hierarchy;
}

CommunicatorHierarchy::Level CommunicatorHierarchy::makeLevel(
    std::string name,
    const MPIEnvironment& full,
    const MPIEnvironment& inner,
    HierarchyShape shape,
    const std::source_location& where
)
{
    Level level { std::move(name), full, inner, full.split(inner.rank(), full.rank(), where) };
    // the agreements of later pushes on inner made while its every rank is here, so
    // that a rank that skips one is named (not only "has not made its duplicate")
    prepareSetUpAgreement(inner.comm(), where);
    // the smallest inner size and, negated, the largest, in one reduction over the full level
    std::array<int, 2> sizes { inner.sizeRank(), -inner.sizeRank() };
    mpi::allReduce(std::span<int>(sizes), ReduceOp::Min, full.comm(), {}, where);
    level.minInner = sizes[0];
    level.maxInner = -sizes[1];
    level.cartesian = shape == HierarchyShape::Cartesian && level.minInner == level.maxInner;
    return level;
}

void CommunicatorHierarchy::pushLevel(
    std::string name, const MPIEnvironment& inner, const std::source_location& where
)
{
    Level level = makeLevel(std::move(name), levels_[index(current_)].inner, inner, shape_, where);
    levels_.resize(index(current_) + 1);
    levels_.push_back(std::move(level));
    current_ = numLevels() - 1;
}

void CommunicatorHierarchy::agreeOnPush(detail::SetUpCall call, const std::source_location& where)
    const
{
    const std::array<std::int64_t, 2> values { current_, static_cast<std::int64_t>(shape_) };
    agreeOnSetUp(levels_[index(current_)].inner.comm(), call, where, values, "level, shape");
}

void CommunicatorHierarchy::pushCommunicator(std::string_view name, std::source_location where)
{
    agreeOnPush(detail::SetUpCall::HierarchyPush, where);
    const MPIEnvironment inner = levels_[index(current_)].inner.split(name, where);
    pushLevel(std::string(name), inner, where);
}

void CommunicatorHierarchy::pushNodeCommunicator(std::source_location where)
{
    agreeOnPush(detail::SetUpCall::HierarchyPushNode, where);
    const MPIEnvironment inner = levels_[index(current_)].inner.splitShared(where);
    pushLevel(processorName(where), inner, where);
}

void CommunicatorHierarchy::popCommunicator(std::source_location where)
{
    FIELDSYNC_CHECK_AT(
        levels_.size() > 1,
        "CommunicatorHierarchy::popCommunicator: only level 0 (\"global\") is left; it cannot be "
        "popped",
        where
    );
    levels_.pop_back();
    current_ = std::min(current_, numLevels() - 1);
}

void CommunicatorHierarchy::setCommunicator(int level, std::source_location where)
{
    static_cast<void>(at(level, where));
    current_ = level;
}

const CommunicatorHierarchy::Level&
CommunicatorHierarchy::at(int level, const std::source_location& where) const
{
    FIELDSYNC_CHECK_AT(
        level >= 0 && level < numLevels(),
        "CommunicatorHierarchy: level " + std::to_string(level) +
            " is out of range (the "
            "hierarchy has " +
            std::to_string(numLevels()) + " levels, 0 to " + std::to_string(numLevels() - 1) + ")",
        where
    );
    return levels_[index(level)];
}

std::string CommunicatorHierarchy::communicatorNames() const
{
    std::string names;
    for (int i = 0; i < numLevels(); ++i)
    {
        const Level& level = levels_[index(i)];
        names.append(i == 0 ? "level " : "\nlevel ").append(std::to_string(i));
        names.append(" \"").append(level.name).append("\"");
        names.append(i == current_ ? " (current): inner " : ": inner ");
        names.append(rankOf(level.inner)).append(", outer ").append(rankOf(level.outer));
        names.append(level.cartesian ? ", cartesian" : ", tree");
    }
    return names;
}

bool CommunicatorHierarchy::isCartesian(int level, std::source_location where) const
{
    return at(level, where).cartesian;
}

const std::string& CommunicatorHierarchy::name(int level, std::source_location where) const
{
    return at(level, where).name;
}

std::pair<int, int> CommunicatorHierarchy::innerSizes(int level, std::source_location where) const
{
    const Level& l = at(level, where);
    return { l.minInner, l.maxInner };
}

int CommunicatorHierarchy::numNodesInCommunicator(std::source_location where) const
{
    const MPIEnvironment& inner = levels_[index(current_)].inner;
    const MPIEnvironment node = inner.splitShared(where);
    int leaders { node.rank() == 0 ? 1 : 0 };
    mpi::allReduce(leaders, ReduceOp::Sum, inner.comm(), {}, where);
    return leaders;
}

const MPIEnvironment& CommunicatorHierarchy::inner(int level, std::source_location where) const
{
    return at(level, where).inner;
}

const MPIEnvironment& CommunicatorHierarchy::outer(int level, std::source_location where) const
{
    return at(level, where).outer;
}

const MPIEnvironment& CommunicatorHierarchy::full(int level, std::source_location where) const
{
    return at(level, where).full;
}

const CommunicatorHierarchy::Level&
CommunicatorHierarchy::levelFor(Algorithm algorithm, const std::source_location& where) const
{
    const Level& level = levels_[index(current_)];
    const std::string what = "CommunicatorHierarchy::allReduce: ";
    switch (algorithm)
    {
    case Algorithm::Native:
    case Algorithm::Tree3Step:
    case Algorithm::NodeAware:
        return level;
    case Algorithm::Cartesian2Step:
        FIELDSYNC_CHECK_AT(
            level.cartesian,
            what + "Cartesian2Step needs a cartesian level, but level " + std::to_string(current_) +
                " \"" + level.name +
                "\" is a tree (inner "
                "communicators of " +
                std::to_string(level.minInner) + " to " + std::to_string(level.maxInner) +
                " ranks" +
                (level.minInner == level.maxInner ? ", built as HierarchyShape::Tree" : "") +
                "); use Tree3Step or NodeAware",
            where
        );
        return level;
    default:
        throw Error(
            what + "Algorithm " + toString(algorithm) +
                " is not a hierarchical allreduce; use "
                "Native, Cartesian2Step, Tree3Step or NodeAware",
            where
        );
    }
}

CommunicatorHierarchy::Blocks CommunicatorHierarchy::blocks(
    std::size_t count, const Level& level, const std::source_location& where
)
{
    FIELDSYNC_CHECK_AT(
        count <= static_cast<std::size_t>(INT_MAX),
        "CommunicatorHierarchy::allReduce: " + std::to_string(count) +
            " values do not fit MPI's int counts",
        where
    );
    // minInner blocks, so every inner communicator of a tree level has a rank for each block
    const int n = static_cast<int>(count);
    const int parts = level.minInner;
    Blocks b;
    b.counts.assign(static_cast<std::size_t>(level.inner.sizeRank()), 0);
    for (int k = 0; k < parts; ++k)
    {
        b.counts[index(k)] = n / parts + (k < n % parts ? 1 : 0);
    }
    b.mine = static_cast<std::size_t>(b.counts[index(level.inner.rank())]);
    return b;
}

} // namespace fieldsync::mpi
