// SPDX-License-Identifier: MIT
/**
 * @file deprecated.hpp
 * @brief The names that moved into a layer's namespace (fieldsync::halo, fieldsync::mpi,
 * fieldsync::partition), kept under their old names for one minor release.
 *
 * Each alias is [[deprecated]] with the new name in its message: code written against the old
 * names compiles with one warning per use that says what to write instead. compat.hpp includes
 * this header, and the umbrella fieldsync/fieldsync.hpp includes compat.hpp, so code that
 * included either keeps compiling; code that included only a class's own header (for example
 * fieldsync/partition/haloBuilder.hpp) adds `#include "fieldsync/compat.hpp"` or moves to the
 * new names (doc/porting.md, "Names that moved"). CHANGELOG.md lists them under "Deprecated".
 */
#pragma once

#include "fieldsync/halo/commBufferCore.hpp"
#include "fieldsync/halo/duplexBuffer.hpp"
#include "fieldsync/halo/exchangeStats.hpp"
#include "fieldsync/halo/fields.hpp"
#include "fieldsync/halo/indexRuns.hpp"
#include "fieldsync/halo/packKernels.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/mpi/callOptions.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#include "fieldsync/partition/cellGraph.hpp"
#include "fieldsync/partition/distributedGraph.hpp"
#include "fieldsync/partition/haloBuilder.hpp"
#include "fieldsync/partition/haloLayout.hpp"
#include "fieldsync/partition/metisPartitioner.hpp"
#include "fieldsync/partition/ownerDirectory.hpp"
#include "fieldsync/partition/partition.hpp"

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include <mpi.h>

namespace fieldsync
{

// halo: moved from fieldsync:: to fieldsync::halo::
/** @brief Old name of halo::ExchangeStats. */
using ExchangeStats [[deprecated("use fieldsync::halo::ExchangeStats")]] = halo::ExchangeStats;
/** @brief Old name of halo::ReverseOp. */
using ReverseOp [[deprecated("use fieldsync::halo::ReverseOp")]] = halo::ReverseOp;

/** @brief Old name of halo::toReverseOp(). */
[[deprecated("use fieldsync::halo::toReverseOp")]] [[nodiscard]] inline halo::ReverseOp
toReverseOp(mpi::ReduceOp op, std::source_location where = std::source_location::current())
{
    return halo::toReverseOp(op, where);
}

// partition: moved from fieldsync:: to fieldsync::partition::
/** @brief Old name of partition::GlobalIndex. */
using GlobalIndex [[deprecated("use fieldsync::partition::GlobalIndex")]] = partition::GlobalIndex;
/** @brief Old name of partition::CellGraph. */
using CellGraph [[deprecated("use fieldsync::partition::CellGraph")]] = partition::CellGraph;
/** @brief Old name of partition::DistributedGraph. */
using DistributedGraph [[deprecated("use fieldsync::partition::DistributedGraph")]] =
    partition::DistributedGraph;
/** @brief Old name of partition::HaloBuilder. */
using HaloBuilder [[deprecated("use fieldsync::partition::HaloBuilder")]] = partition::HaloBuilder;
/** @brief Old name of partition::HaloLayout. */
using HaloLayout [[deprecated("use fieldsync::partition::HaloLayout")]] = partition::HaloLayout;
/** @brief Old name of partition::OwnerDirectory. */
using OwnerDirectory [[deprecated("use fieldsync::partition::OwnerDirectory")]] =
    partition::OwnerDirectory;
/** @brief Old name of partition::Partition. */
using Partition [[deprecated("use fieldsync::partition::Partition")]] = partition::Partition;
/** @brief Old name of partition::MetisPartitioner. */
using MetisPartitioner [[deprecated("use fieldsync::partition::MetisPartitioner")]] =
    partition::MetisPartitioner;

// the sparse exchange: moved from fieldsync:: (partition/) to fieldsync::mpi:: (mpi/)
/** @brief Old name of mpi::SparseMessage. */
using SparseMessage [[deprecated("use fieldsync::mpi::SparseMessage")]] = mpi::SparseMessage;

/** @brief Old name of mpi::sparseExchange(). */
[[deprecated("use fieldsync::mpi::sparseExchange"
)]] [[nodiscard]] inline std::vector<mpi::SparseMessage>
sparseExchange(
    MPI_Comm comm,
    int tag,
    const std::vector<mpi::SparseMessage>& outgoing,
    const std::string& what,
    std::source_location where = std::source_location::current()
)
{
    return mpi::sparseExchange(comm, tag, outgoing, what, where);
}

/** @brief Old name of mpi::raiseIfAnyFailed(). */
[[deprecated("use fieldsync::mpi::raiseIfAnyFailed")]] inline void raiseIfAnyFailed(
    MPI_Comm comm,
    const std::string& localError,
    std::source_location where = std::source_location::current()
)
{
    mpi::raiseIfAnyFailed(comm, localError, where);
}

} // namespace fieldsync

namespace fieldsync::mpi
{

// the buffers' engine: moved from fieldsync::mpi:: to fieldsync::halo::
/** @brief Old name of halo::BufferState. */
using BufferState [[deprecated("use fieldsync::halo::BufferState")]] = halo::BufferState;
/** @brief Old name of halo::detail::CommBufferCore. */
using CommBufferCore [[deprecated("internal: now fieldsync::halo::detail::CommBufferCore; use "
                                  "HalfDuplexCommBuffer")]] = halo::detail::CommBufferCore;

// CallOptions' helper types: moved from fieldsync::mpi:: to fieldsync::mpi::detail:: (#31)
/** @brief Old name of detail::ViewExecutionSpace, CallOptions' default ExecutionSpace. */
using ViewExecutionSpace [[deprecated("internal: now fieldsync::mpi::detail::ViewExecutionSpace; "
                                      "write CallOptions<> for no execution space")]] =
    detail::ViewExecutionSpace;
/** @brief Old name of detail::NoDependencies, CallOptions<>::dependsOn's type. */
using NoDependencies [[deprecated("internal: now fieldsync::mpi::detail::NoDependencies")]] =
    detail::NoDependencies;
/** @brief Old name of detail::DependenciesOf, CallOptions<E>::dependsOn's type. */
template<typename ExecutionSpace>
using DependenciesOf [[deprecated("internal: now fieldsync::mpi::detail::DependenciesOf; "
                                  "name CallOptions<E>::dependsOn's type by decltype")]] =
    detail::DependenciesOf<ExecutionSpace>;

} // namespace fieldsync::mpi

namespace fieldsync::halo
{

// the halo engine's vocabulary: moved from fieldsync::halo:: to fieldsync::halo::detail:: (#31)
/** @brief Old name of detail::CommBufferCore, the engine of HalfDuplexCommBuffer. */
using CommBufferCore [[deprecated("internal: now fieldsync::halo::detail::CommBufferCore; use "
                                  "HalfDuplexCommBuffer")]] = detail::CommBufferCore;
/** @brief Old name of detail::Message, one message of a buffer's direction. */
using Message [[deprecated("internal: now fieldsync::halo::detail::Message")]] = detail::Message;
/** @brief Old name of detail::DuplexBuffer, the engine of FullDuplexCommBuffer. */
using DuplexBuffer [[deprecated("internal: now fieldsync::halo::detail::DuplexBuffer; use "
                                "FullDuplexCommBuffer")]] = detail::DuplexBuffer;
/** @brief Old name of detail::FieldShape. */
using FieldShape [[deprecated("internal: now fieldsync::halo::detail::FieldShape")]] =
    detail::FieldShape;
/** @brief Old name of detail::RunRange. */
using RunRange [[deprecated("internal: now fieldsync::halo::detail::RunRange")]] = detail::RunRange;
/** @brief Old name of detail::FieldKeeper. */
using FieldKeeper [[deprecated("internal: now fieldsync::halo::detail::FieldKeeper")]] =
    detail::FieldKeeper;
/** @brief Old name of detail::Fields, the type-erased fields of one exchange. */
using Fields [[deprecated("internal: now fieldsync::halo::detail::Fields; pass views to "
                          "Communicator")]] = detail::Fields;
/** @brief Old name of detail::ViewKeeper. */
template<typename V>
using ViewKeeper [[deprecated("internal: now fieldsync::halo::detail::ViewKeeper")]] =
    detail::ViewKeeper<V>;
/** @brief Old name of detail::ViewFields. */
template<typename V, typename Exec = typename V::execution_space>
using ViewFields [[deprecated("internal: now fieldsync::halo::detail::ViewFields; pass views to "
                              "Communicator")]] = detail::ViewFields<V, Exec>;
/** @brief Old name of detail::IndexRuns, the runs of a map's lists found at set-up. */
using IndexRuns [[deprecated("internal: now fieldsync::halo::detail::IndexRuns")]] =
    detail::IndexRuns;
/** @brief Old name of detail::ThreadCells. */
using ThreadCells [[deprecated("internal: now fieldsync::halo::detail::ThreadCells")]] =
    detail::ThreadCells;
/** @brief Old name of detail::ValueOrder, how a field's values lie in memory. */
using ValueOrder [[deprecated("internal: now fieldsync::halo::detail::ValueOrder")]] =
    detail::ValueOrder;

/** @brief Old name of detail::valueOrder(). */
[[deprecated("internal: now fieldsync::halo::detail::valueOrder")]] constexpr detail::ValueOrder
valueOrder(std::size_t components, std::size_t cellStride, std::size_t componentStride) noexcept
{
    return detail::valueOrder(components, cellStride, componentStride);
}

/** @brief Old name of detail::valueOrderOf(). */
template<typename V>
[[deprecated("internal: now fieldsync::halo::detail::valueOrderOf")]] detail::ValueOrder
valueOrderOf(const V& field)
{
    return detail::valueOrderOf(field);
}

/**
 * @brief The old loop per run of packRuns()/unpackRuns() (#37): f(i, cell, c) for every list
 * position of the runs [runBegin, runEnd) and component c < @p comps, cells inner for
 * @p byCells; now forEachRun() gives each run once and the kernels loop themselves.
 */
template<typename Exec, typename R, typename P, typename F>
[[deprecated("internal: packRuns and unpackRuns loop over forEachRun's runs themselves")]] void
forEachRunElement(
    const std::string& label,
    const Exec& exec,
    const R& first,
    const P& at,
    std::size_t runBegin,
    std::size_t runEnd,
    std::size_t comps,
    bool byCells,
    const F& f
)
{
    forEachRun(
        label,
        exec,
        first,
        at,
        runBegin,
        runEnd,
        [=](const std::size_t pos, const std::size_t cell, const std::size_t len)
        {
            const std::size_t outer = byCells ? comps : len;
            const std::size_t inner = byCells ? len : comps;
            for (std::size_t a = 0; a < outer; ++a)
            {
                for (std::size_t b = 0; b < inner; ++b)
                {
                    const std::size_t j = byCells ? b : a;
                    f(pos + j, static_cast<std::int64_t>(cell + j), byCells ? a : b);
                }
            }
        }
    );
}

} // namespace fieldsync::halo
