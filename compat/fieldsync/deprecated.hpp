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

#include "fieldsync/core/callerValue.hpp"
#include "fieldsync/core/clock.hpp"
#include "fieldsync/core/faults.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/halo/blockShape.hpp"
#include "fieldsync/halo/commBufferCore.hpp"
#include "fieldsync/halo/duplexBuffer.hpp"
#include "fieldsync/halo/exchangeStats.hpp"
#include "fieldsync/halo/fields.hpp"
#include "fieldsync/halo/indexRuns.hpp"
#include "fieldsync/halo/packKernels.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/mpi/callOptions.hpp"
#include "fieldsync/mpi/dataType.hpp"
#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/reductions.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#include "fieldsync/mpi/stagingBytes.hpp"
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
#include <utility>
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

// the core layer's machinery: moved from fieldsync:: to fieldsync::detail:: (#31)
/** @brief Old name of detail::CallerValue, a value with the caller's source location. */
template<typename T>
using CallerValue [[deprecated("internal: now fieldsync::detail::CallerValue; pass the plain "
                               "value")]] = detail::CallerValue<T>;
/** @brief Old name of detail::FaultSettings, what FIELDSYNC_FAULTS asks for. */
using FaultSettings [[deprecated("internal: now fieldsync::detail::FaultSettings; set "
                                 "FIELDSYNC_FAULTS")]] = detail::FaultSettings;
/** @brief Old name of detail::LiveObject, an entry of the live-object registry. */
using LiveObject [[deprecated("internal: now fieldsync::detail::LiveObject; see "
                              "liveObjects()")]] = detail::LiveObject;
/** @brief Old name of detail::Setting, one row of settingsTable(). */
using Setting [[deprecated("internal: now fieldsync::detail::Setting")]] = detail::Setting;
/** @brief Old name of detail::TelemetryClock, what telemetryClock() chose. */
using TelemetryClock [[deprecated("internal: now fieldsync::detail::TelemetryClock")]] =
    detail::TelemetryClock;

} // namespace fieldsync

namespace fieldsync::mpi
{

// the buffers' engine: moved from fieldsync::mpi:: to fieldsync::halo::
/** @brief Old name of halo::detail::BufferState. */
using BufferState [[deprecated("internal: now fieldsync::halo::detail::BufferState")]] =
    halo::detail::BufferState;
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

// the mpi layer's type traits, memory-space interface and set-up calls: moved from
// fieldsync::mpi:: to fieldsync::mpi::detail:: (#31)
/** @brief Old name of detail::MpiTypeInfo, how a T goes to MPI. */
template<typename T>
using MpiTypeInfo [[deprecated("internal: now fieldsync::mpi::detail::MpiTypeInfo; use "
                               "getType<T>()")]] = detail::MpiTypeInfo<T>;
/** @brief Old name of detail::ScalarTraits, the predefined MPI datatype of a scalar. */
template<typename T>
using ScalarTraits [[deprecated("internal: now fieldsync::mpi::detail::ScalarTraits; register "
                                "aggregates with FIELDSYNC_REGISTER_AGGREGATE")]] =
    detail::ScalarTraits<T>;
/** @brief Old name of detail::TypeClass, the kind of values a type holds. */
using TypeClass [[deprecated("internal: now fieldsync::mpi::detail::TypeClass")]] =
    detail::TypeClass;
/** @brief Old name of detail::SpaceOps, the compiled interface of one memory space. */
using SpaceOps [[deprecated("internal: now fieldsync::mpi::detail::SpaceOps")]] = detail::SpaceOps;
/** @brief Old name of detail::StagingBytes, a block of the staging pool. */
using StagingBytes [[deprecated("internal: now fieldsync::mpi::detail::StagingBytes; choose the "
                                "memory with setStagingMemory")]] = detail::StagingBytes;
/** @brief Old name of detail::SetUpCall, the set-up calls agreeOnSetUp() agrees on. */
using SetUpCall [[deprecated("internal: now fieldsync::mpi::detail::SetUpCall")]] =
    detail::SetUpCall;

/** @brief Old name of detail::spaceOps(). */
template<typename MemorySpace>
[[deprecated("internal: now fieldsync::mpi::detail::spaceOps")]] const detail::SpaceOps& spaceOps()
{
    return detail::spaceOps<MemorySpace>();
}

/** @brief Old name of detail::stagingSpaceOps(). */
[[deprecated("internal: now fieldsync::mpi::detail::stagingSpaceOps"
)]] inline const detail::SpaceOps&
stagingSpaceOps()
{
    return detail::stagingSpaceOps();
}

// one in-place spelling per collective (#31): the reductions' is the one-buffer form
/** @brief Old spelling of allReduce(data, op, comm): inPlace in the send position. */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
[[deprecated("use allReduce(data, op, comm): the reductions' one in-place spelling")]] void
allReduce(
    InPlace,
    B&& data,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    allReduce(std::forward<B>(data), op, comm, options, where);
}

/** @brief Old spelling of iAllReduce(data, op, comm): inPlace in the send position. */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
[[deprecated("use iAllReduce(data, op, comm): the reductions' one in-place spelling"
)]] [[nodiscard]] Request
iAllReduce(
    InPlace,
    B&& data,
    ReduceOp op,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iAllReduce(std::forward<B>(data), op, comm, options, where);
}

/** @brief Old spelling of reduce(data, op, root, comm): inPlace in the send position. */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
[[deprecated("use reduce(data, op, root, comm): the reductions' one in-place spelling")]] void
reduce(
    InPlace,
    B&& data,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    reduce(std::forward<B>(data), op, root, comm, options, where);
}

/** @brief Old spelling of iReduce(data, op, root, comm): inPlace in the send position. */
template<typename B, typename E = detail::ViewExecutionSpace>
requires CollectiveBuffer<B>
[[deprecated("use iReduce(data, op, root, comm): the reductions' one in-place spelling"
)]] [[nodiscard]] Request
iReduce(
    InPlace,
    B&& data,
    ReduceOp op,
    int root,
    MPI_Comm comm,
    const CallOptions<E>& options = {},
    std::source_location where = std::source_location::current()
)
{
    return iReduce(std::forward<B>(data), op, root, comm, options, where);
}

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
/** @brief Old name of detail::BufferState, where a buffer is in its seven steps. */
using BufferState [[deprecated("internal: now fieldsync::halo::detail::BufferState; ask "
                               "isCommInit() and isComplete()")]] = detail::BufferState;
/** @brief Old name of detail::BlockShape, the padded array a StructuredBlock's maps index. */
using BlockShape [[deprecated("internal: now fieldsync::halo::detail::BlockShape")]] =
    detail::BlockShape;

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
