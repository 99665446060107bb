// SPDX-License-Identifier: MIT
// gpu_bench: the device side of fieldsync, each part as ratios of variants measured side by side
// in one run (variants interleaved, rotating order, one warm-up call each, median of the rounds,
// the slowest rank, the device fenced before every clock read):
//  1. kernels: the library's pack and unpack kernels (halo/packKernels.hpp, called as the
//     Communicator calls them) on the halo of a 3-D structured block, against a device-to-device
//     Kokkos::deep_copy of the same bytes;
//  2. staging: one exchange with rank r^1 split into device-to-host copy, MPI, host-to-device
//     copy, through pinned and through pageable host buffers; and the Communicator's whole
//     staged exchange of a device view under both staging memories;
//  3. collectives: allReduce, broadcast and allGather on device views against host views.
// "Device" is Kokkos' default memory space: CudaSpace in a CUDA build; HostSpace in a host build,
// where every table still prints (the ratios are then near 1). Prints tables, ends with a
// summary, writes JSON (--json PATH).
//
//   mpiexec -n 2 build/cuda/benchmarks/gpu_bench [--json gpu_bench.json] [--quick]
//       [--only kernels,staging,collectives]
#include "median.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/indexRuns.hpp"
#include "fieldsync/halo/packKernels.hpp"
#include "fieldsync/halo/structuredBlock.hpp"
#include "fieldsync/mpi/cartesianTopology.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <vector>

namespace
{
using fieldsync_bench::median;
namespace fm = fieldsync::mpi;
namespace fh = fieldsync::halo;
using fieldsync::LocalIndex;
using Exec = Kokkos::DefaultExecutionSpace;
using DeviceSpace = Exec::memory_space;
#ifdef KOKKOS_ENABLE_CUDA
using PinnedSpace = Kokkos::CudaHostPinnedSpace;
#else
using PinnedSpace = Kokkos::HostSpace; // a host build has no pinned memory: both columns alike
#endif
using PageableSpace = Kokkos::HostSpace;
using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
constexpr std::size_t kiB { 1024 };
constexpr std::size_t MiB { 1024 * kiB };

struct Settings
{
    bool quick { false };
    std::string only; // --only: the parts to run (kernels,staging,collectives), all when empty
    int rounds { 11 };
    std::string jsonPath { "gpu_bench.json" };
    int me { 0 };
    int size { 1 };
};

double now()
{
    return MPI_Wtime();
}

// calls fn(column) for every column, `rounds` times, in an order that changes each round
// (rotated by the round, reversed on odd rounds), so no column always follows the same one
template<typename Fn>
void interleave(int columns, int rounds, Fn&& fn)
{
    for (int round = 0; round < rounds; ++round)
    {
        for (int c = 0; c < columns; ++c)
        {
            fn((round + (round % 2 == 1 ? columns - 1 - c : c)) % columns);
        }
    }
}

// calls per batch: about `budget` bytes, at least 3, at most 1000
int iterationsFor(std::size_t bytes, std::size_t budget)
{
    return static_cast<int>(std::clamp<std::size_t>(budget / bytes, 3, 1000));
}

// seconds per call (max over ranks) of `iterations` calls of fn, after one untimed call and a
// barrier; the device is fenced before the clock is read
template<typename Fn>
double timeBatch(int iterations, Fn&& fn)
{
    fn();
    Exec().fence();
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = now();
    for (int i = 0; i < iterations; ++i)
    {
        fn();
    }
    Exec().fence();
    double elapsed = (now() - start) / iterations;
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return elapsed;
}

// ---- 1. pack and unpack kernels --------------------------------------------------------------

constexpr int haloWidth { 2 };

struct KernelRow
{
    int components;
    std::size_t bytes; // packed bytes (cells x components x 8)
    std::int64_t edge; // the block's owned cells per dimension
    double copy, pack, unpack;
    double packRuns, unpackRuns; // the same lists packed by runs (halo::IndexRuns), as commit does
    // a rank-1 field (1 component): the gather with one cell per thread, the kernel before
    // halo::cellsPerThread, beside the library's (0 for more components)
    double packOne, unpackOne;
    double meanRun; // mean run length of the send lists (cells)
};

// this rank's n^3 block on a periodic 1 x 1 x 1 grid of its own: 26 neighbour offsets (faces,
// edges, corners), all this rank, with haloWidth ghost layers, LayoutRight; n is the smallest
// that packs at least `bytes` of `components` doubles
fh::StructuredBlock blockFor(std::size_t bytes, int components)
{
    const auto shell = [](std::int64_t n)
    {
        const std::int64_t padded = n + 2 * haloWidth;
        return padded * padded * padded - n * n * n; // ghost cells = send cells
    };
    std::int64_t n { 2 * haloWidth };
    while (static_cast<std::size_t>(shell(n) * components) * sizeof(double) < bytes)
    {
        ++n;
    }
    const fm::CartesianTopology topology(
        fm::MPIEnvironment(MPI_COMM_SELF), { 1, 1, 1 }, { true, true, true }
    );
    return fh::StructuredBlock(
        topology, { n, n, n }, haloWidth, fh::BlockGhosts::All, fh::BlockOrder::LayoutRight
    );
}

template<typename T = LocalIndex>
Kokkos::View<T*, DeviceSpace> toDevice(std::span<const T> indices)
{
    Kokkos::View<T*, DeviceSpace> device("gpu_bench::indices", indices.size());
    const Kokkos::View<const T*, Kokkos::HostSpace, Unmanaged> host(indices.data(), indices.size());
    Kokkos::deep_copy(device, host);
    return device;
}

/**
 * @brief The runs of @p first and @p at (IndexRuns' layout) copied from @p field into @p buffer
 * (@p ToBuffer) or back, @p comps values per cell, with a team per run on Exec: the kernel the
 * library dropped once the engine packed by runs on the host only (the gather was faster on a
 * GPU on every pattern measured, doc/notes/gpu.md); kept here so that the table still compares
 * the two forms.
 */
template<bool ToBuffer, typename V, typename B, typename R, typename P>
void runsByTeams(
    const V& field,
    const B& buffer,
    const R& first,
    const P& at,
    std::size_t runs,
    std::size_t comps
)
{
    using Policy = Kokkos::TeamPolicy<Exec>;
    // consecutive threads along the field's memory
    const bool byCells = fh::detail::valueOrderOf(field) == fh::detail::ValueOrder::Columns;
    Kokkos::parallel_for(
        "gpu_bench::runs",
        Policy(Exec(), static_cast<int>(runs), Kokkos::AUTO),
        KOKKOS_LAMBDA(const typename Policy::member_type& team) {
            const auto r = static_cast<std::size_t>(team.league_rank());
            const std::size_t pos = at(r);
            const std::size_t len = at(r + 1) - pos;
            const auto cell = static_cast<std::int64_t>(first(r));
            Kokkos::parallel_for(
                Kokkos::TeamThreadRange(team, len * comps),
                [&](const std::size_t k)
                {
                    const std::size_t j = byCells ? k % len : k / comps;
                    const std::size_t c = byCells ? k / len : k % comps;
                    auto& value = fh::cellAt(field, cell + static_cast<std::int64_t>(j), c);
                    auto& slot = buffer((pos + j) * comps + c);
                    if constexpr (ToBuffer)
                    {
                        slot = value;
                    }
                    else
                    {
                        value = slot;
                    }
                }
            );
        }
    );
}

// deep_copy, pack and unpack of one block's halo into and out of a buffer, interleaved; the
// kernels get unmanaged views of buffer and indices, as the Communicator passes them
template<typename Field>
KernelRow measureKernels(
    const Field& field, const fh::StructuredBlock& block, int components, const Settings& s
)
{
    const auto send = toDevice(block.sendMap().indices());
    const auto receive = toDevice(block.receiveMap().indices());
    // the lists' runs of consecutive cells, as the Communicator analyses them at commit
    const fh::detail::IndexRuns sendRuns(block.sendMap());
    const fh::detail::IndexRuns receiveRuns(block.receiveMap());
    const auto sendFirst = toDevice(sendRuns.first());
    const auto receiveFirst = toDevice(receiveRuns.first());
    const auto sendAt = toDevice<std::size_t>(sendRuns.at());
    const auto receiveAt = toDevice<std::size_t>(receiveRuns.at());
    double meanRun { 0.0 };
    for (std::size_t k = 0; k < block.sendMap().neighbourCount(); ++k)
    {
        meanRun +=
            sendRuns.meanRunLength(k) / static_cast<double>(block.sendMap().neighbourCount());
    }
    const std::size_t cells = send.extent(0);
    const std::size_t values = cells * static_cast<std::size_t>(components);
    const auto stride = static_cast<std::size_t>(components);
    const Kokkos::View<double*, DeviceSpace> buffer("gpu_bench::buffer", values);
    const Kokkos::View<double*, DeviceSpace> source("gpu_bench::source", values);
    const Kokkos::View<double*, DeviceSpace, Unmanaged> packed(buffer.data(), values);
    const Kokkos::View<const LocalIndex*, DeviceSpace, Unmanaged> sendIdx(send.data(), cells);
    const Kokkos::View<const LocalIndex*, DeviceSpace, Unmanaged> receiveIdx(receive.data(), cells);
    Kokkos::deep_copy(field, 1.0);
    Kokkos::deep_copy(source, 2.0);
    const std::size_t bytes = values * sizeof(double);
    const int iterations = iterationsFor(bytes, s.quick ? 32 * MiB : 512 * MiB);
    constexpr bool rankOne = Field::rank == 1;
    std::array<std::vector<double>, 7> t;
    interleave(
        rankOne ? 7 : 5,
        s.rounds,
        [&](int column)
        {
            if (column == 0)
            {
                t[0].push_back(
                    timeBatch(iterations, [&] { Kokkos::deep_copy(Exec(), buffer, source); })
                );
            }
            else if (column == 1)
            {
                t[1].push_back(timeBatch(
                    iterations, [&] { fh::pack(field, packed, sendIdx, 0, cells, stride, 0); }
                ));
            }
            else if (column == 2)
            {
                t[2].push_back(timeBatch(
                    iterations,
                    [&] {
                        fh::unpack(
                            field, packed, receiveIdx, 0, cells, stride, 0, fh::ReverseOp::Replace
                        );
                    }
                ));
            }
            else if (column == 5)
            {
                if constexpr (rankOne)
                {
                    t[5].push_back(timeBatch(
                        iterations,
                        [&] { fh::packCells<1>(field, packed, sendIdx, 0, cells, 1, 0, Exec()); }
                    ));
                }
            }
            else if (column == 6)
            {
                if constexpr (rankOne)
                {
                    t[6].push_back(timeBatch(
                        iterations,
                        [&] {
                            fh::unpackCells<1>(
                                field,
                                packed,
                                receiveIdx,
                                0,
                                cells,
                                1,
                                0,
                                fh::ReverseOp::Replace,
                                Exec()
                            );
                        }
                    ));
                }
            }
            else if (column == 3)
            {
                t[3].push_back(timeBatch(
                    iterations,
                    [&] {
                        runsByTeams<true>(
                            field, packed, sendFirst, sendAt, sendRuns.runCount(), stride
                        );
                    }
                ));
            }
            else
            {
                t[4].push_back(timeBatch(
                    iterations,
                    [&] {
                        runsByTeams<false>(
                            field, packed, receiveFirst, receiveAt, receiveRuns.runCount(), stride
                        );
                    }
                ));
            }
        }
    );
    const auto medianOr0 = [](const std::vector<double>& v)
    {
        return v.empty() ? 0.0 : median(v);
    };
    return { components,      bytes,           block.extent(0), median(t[0]),
             median(t[1]),    median(t[2]),    median(t[3]),    median(t[4]),
             medianOr0(t[5]), medianOr0(t[6]), meanRun };
}

std::vector<KernelRow> kernelRows(const Settings& s)
{
    const std::vector<std::size_t> sizes =
        s.quick ? std::vector<std::size_t> { MiB, 4 * MiB }
                : std::vector<std::size_t> { MiB, 4 * MiB, 16 * MiB, 64 * MiB };
    const std::vector<int> componentCounts =
        s.quick ? std::vector<int> { 1, 3, 8 } : std::vector<int> { 1, 2, 3, 4, 8 };
    std::vector<KernelRow> rows;
    for (const int components : componentCounts)
    {
        for (const std::size_t bytes : sizes)
        {
            const fh::StructuredBlock block = blockFor(bytes, components);
            if (components == 1) // a rank-1 field, as double*
            {
                const Kokkos::View<double*, DeviceSpace> field(
                    "gpu_bench::field", block.paddedSize()
                );
                rows.push_back(measureKernels(field, block, components, s));
            }
            else
            {
                const Kokkos::View<double**, Kokkos::LayoutRight, DeviceSpace> field(
                    "gpu_bench::field", block.paddedSize(), static_cast<std::size_t>(components)
                );
                rows.push_back(measureKernels(field, block, components, s));
            }
        }
    }
    return rows;
}

// ---- 2. staged exchange: pinned against pageable host buffers ----------------------------------

struct Split
{
    double toHost { 0.0 }, mpi { 0.0 }, toDevice { 0.0 };
    [[nodiscard]] double total() const { return toHost + mpi + toDevice; }
};

struct StagingRow
{
    std::size_t bytes;
    std::array<Split, 2> split;    // [0] pinned, [1] pageable
    std::array<double, 2> library; // the Communicator's exchange, pinned and pageable staging
};

template<typename Space>
struct Buffers
{
    Kokkos::View<char*, Space> send, receive;
    explicit Buffers(std::size_t bytes)
        : send("gpu_bench::send", bytes), receive("gpu_bench::receive", bytes)
    {
    }
};

// `iterations` staged exchanges of device.send into device.receive through host, with `partner`
// (none when negative: the copies only); per part the mean seconds, max over ranks
template<typename HostSpace>
Split stagedExchange(
    const Buffers<DeviceSpace>& device, const Buffers<HostSpace>& host, int partner, int iterations
)
{
    const auto count = static_cast<int>(device.send.extent(0));
    std::array<double, 3> parts {};
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iterations; ++i)
    {
        const double t0 = now();
        Kokkos::deep_copy(Exec(), host.send, device.send);
        Exec().fence();
        const double t1 = now();
        if (partner >= 0)
        {
            std::array<MPI_Request, 2> requests {};
            MPI_Irecv(
                host.receive.data(), count, MPI_BYTE, partner, 11, MPI_COMM_WORLD, &requests[0]
            );
            MPI_Isend(host.send.data(), count, MPI_BYTE, partner, 11, MPI_COMM_WORLD, &requests[1]);
            MPI_Waitall(2, requests.data(), MPI_STATUSES_IGNORE);
        }
        const double t2 = now();
        Kokkos::deep_copy(Exec(), device.receive, host.receive);
        Exec().fence();
        parts[0] += t1 - t0;
        parts[1] += t2 - t1;
        parts[2] += now() - t2;
    }
    for (double& p : parts)
    {
        p /= iterations;
    }
    MPI_Allreduce(MPI_IN_PLACE, parts.data(), 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return { parts[0], parts[1], parts[2] };
}

constexpr std::array<fm::StagingMemory, 2> stagingMemories { fm::StagingMemory::Pinned,
                                                             fm::StagingMemory::Pageable };

// the Communicator's exchange of `bytes` per rank with the partner (itself without one): sends
// the first half of a device field, receives into the second half, always staged (as without
// GPU-aware MPI); one Communicator per staging memory, each set before its exchanges (and the
// choice in force before restored after, for the sections that follow)
std::array<double, 2>
libraryExchanges(std::size_t bytes, int partner, int iterations, const Settings& s)
{
    constexpr int columns { static_cast<int>(stagingMemories.size()) };
    const fm::StagingMemory before { fm::stagingMemory() };
    std::array<double, 2> result {};
    const auto cells = static_cast<LocalIndex>(bytes / sizeof(double));
    const fm::MPIEnvironment world;
    const int peer = partner >= 0 ? partner : s.me;
    fh::RankSimplexCommMap send(s.size);
    fh::RankSimplexCommMap receive(s.size);
    std::vector<LocalIndex> owned(static_cast<std::size_t>(cells));
    std::vector<LocalIndex> ghosts(static_cast<std::size_t>(cells));
    for (LocalIndex i = 0; i < cells; ++i)
    {
        owned[static_cast<std::size_t>(i)] = i;
        ghosts[static_cast<std::size_t>(i)] = cells + i;
    }
    send.setRank(peer, owned);
    receive.setRank(peer, ghosts);
    std::vector<fh::Communicator> comms;
    for (int m = 0; m < columns; ++m)
    {
        comms.emplace_back(world, send, receive);
        comms.back().setOptions({ .staging = fm::Staging::Always });
    }
    const Kokkos::View<double*, DeviceSpace> field("gpu_bench::exchanged", 2 * std::size_t(cells));
    Kokkos::deep_copy(field, 1.0);
    const fieldsync::CommKey key { "gpu_bench" };
    std::array<std::vector<double>, 2> t;
    interleave(
        columns,
        s.rounds,
        [&](int m)
        {
            fm::setStagingMemory(stagingMemories[static_cast<std::size_t>(m)]);
            auto& comm = comms[static_cast<std::size_t>(m)];
            // a region for a Kokkos tool (tools/gpu/kokkosTimer.cpp) to scope its timings to
            const std::string region =
                "gpu_bench::library " + std::to_string(bytes) + (m == 0 ? " pinned" : " pageable");
            Kokkos::Profiling::pushRegion(region);
            t[static_cast<std::size_t>(m)].push_back(timeBatch(
                iterations,
                [&]
                {
                    comm.startComm(field, key);
                    comm.finaliseComm(field, key);
                }
            ));
            Kokkos::Profiling::popRegion();
        }
    );
    fm::setStagingMemory(before);
    for (int m = 0; m < columns; ++m)
    {
        result[static_cast<std::size_t>(m)] = median(t[static_cast<std::size_t>(m)]);
    }
    return result;
}

std::vector<StagingRow> stagingRows(const Settings& s)
{
    const int partner = (s.me ^ 1) < s.size ? s.me ^ 1 : -1;
    std::vector<StagingRow> rows;
    for (std::size_t bytes = 64 * kiB; bytes <= 64 * MiB; bytes *= (s.quick ? 16 : 4))
    {
        const Buffers<DeviceSpace> device(bytes);
        const Buffers<PinnedSpace> pinned(bytes);
        const Buffers<PageableSpace> pageable(bytes);
        Kokkos::deep_copy(device.send, 1);
        const int iterations = iterationsFor(bytes, s.quick ? 16 * MiB : 256 * MiB);
        stagedExchange(device, pinned, partner, 1); // warm-up: first touch, registration
        stagedExchange(device, pageable, partner, 1);
        std::array<std::vector<Split>, 2> t;
        interleave(
            2,
            s.rounds,
            [&](int column)
            {
                Kokkos::Profiling::pushRegion(
                    "gpu_bench::by hand " + std::to_string(bytes) +
                    (column == 0 ? " pinned" : " pageable")
                );
                t[static_cast<std::size_t>(column)].push_back(
                    column == 0 ? stagedExchange(device, pinned, partner, iterations)
                                : stagedExchange(device, pageable, partner, iterations)
                );
                Kokkos::Profiling::popRegion();
            }
        );
        StagingRow row { bytes, {}, libraryExchanges(bytes, partner, iterations, s) };
        for (std::size_t c = 0; c < 2; ++c)
        {
            std::vector<double> toHost, mpi, toDevice;
            for (const Split& split : t[c])
            {
                toHost.push_back(split.toHost);
                mpi.push_back(split.mpi);
                toDevice.push_back(split.toDevice);
            }
            row.split[c] = { median(toHost), median(mpi), median(toDevice) };
        }
        rows.push_back(row);
    }
    return rows;
}

// ---- 3. collectives on device views against host views ---------------------------------------

enum class Collective
{
    AllReduce,
    Broadcast,
    AllGather
};
constexpr std::array<const char*, 3> collectiveNames { "allReduce", "broadcast", "allGather" };

struct CollectiveRow
{
    Collective op;
    std::size_t bytes; // per rank
    double device, host;
    double copies;    // the floor of a staged call: one copy into pinned memory and one back, each
                      // enqueued on the instance and fenced, no MPI
    double rawCopies; // the same with cudaMemcpyAsync and cudaStreamSynchronize (CUDA), else 0
};

template<typename Space>
struct CollectiveViews
{
    Kokkos::View<double*, Space> send, sum, gathered;
    CollectiveViews(std::size_t count, int ranks)
        : send("gpu_bench::send", count), sum("gpu_bench::sum", count),
          gathered("gpu_bench::gathered", count * static_cast<std::size_t>(ranks))
    {
        Kokkos::deep_copy(send, 1.0);
    }
};

// the copies of a staged call written against CUDA itself: one cudaMemcpyAsync to pinned memory on
// the default instance's stream and one back, each followed by cudaStreamSynchronize
#ifdef KOKKOS_ENABLE_CUDA
constexpr bool rawCopiesColumn { true };
void rawCopies(void* pinned, const void* from, void* to, std::size_t bytes)
{
    const cudaStream_t stream = Exec().cuda_stream();
    cudaMemcpyAsync(pinned, from, bytes, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    cudaMemcpyAsync(to, pinned, bytes, cudaMemcpyHostToDevice, stream);
    cudaStreamSynchronize(stream);
}
#else
constexpr bool rawCopiesColumn { false };
void rawCopies(void*, const void*, void*, std::size_t) {}
#endif

template<typename Space>
void runCollective(Collective op, const CollectiveViews<Space>& v)
{
    if (op == Collective::AllReduce)
    {
        fm::allReduce(v.send, v.sum, fm::ReduceOp::Sum, MPI_COMM_WORLD);
    }
    else if (op == Collective::Broadcast)
    {
        fm::broadcast(v.send, 0, MPI_COMM_WORLD);
    }
    else
    {
        fm::allGather(v.send, v.gathered, MPI_COMM_WORLD);
    }
}

std::vector<CollectiveRow> collectiveRows(const Settings& s)
{
    const std::vector<std::size_t> sizes =
        s.quick ? std::vector<std::size_t> { 8, 4 * kiB, 256 * kiB, 4 * MiB }
                : std::vector<std::size_t> { 8,        64,        512,     4 * kiB,
                                             32 * kiB, 256 * kiB, 2 * MiB, 4 * MiB };
    std::vector<CollectiveRow> rows;
    for (const Collective op :
         { Collective::AllReduce, Collective::Broadcast, Collective::AllGather })
    {
        for (const std::size_t bytes : sizes)
        {
            const std::size_t count = bytes / sizeof(double);
            const CollectiveViews<DeviceSpace> device(count, s.size);
            const CollectiveViews<Kokkos::HostSpace> host(count, s.size);
            const Kokkos::View<double*, PinnedSpace> pinned("gpu_bench::pinned", count);
            const int iterations = iterationsFor(bytes + 64 * kiB, s.quick ? 8 * MiB : 64 * MiB);
            std::array<std::vector<double>, 4> t;
            interleave(
                rawCopiesColumn ? 4 : 3,
                s.rounds,
                [&](int column)
                {
                    const auto copies = [&]
                    {
                        Kokkos::deep_copy(Exec(), pinned, device.send);
                        Exec().fence();
                        Kokkos::deep_copy(Exec(), device.sum, pinned);
                        Exec().fence();
                    };
                    const auto raw = [&]
                    {
                        rawCopies(pinned.data(), device.send.data(), device.sum.data(), bytes);
                    };
                    t[static_cast<std::size_t>(column)].push_back(
                        column == 0   ? timeBatch(iterations, [&] { runCollective(op, device); })
                        : column == 1 ? timeBatch(iterations, [&] { runCollective(op, host); })
                        : column == 2 ? timeBatch(iterations, copies)
                                      : timeBatch(iterations, raw)
                    );
                }
            );
            rows.push_back({ op,
                             bytes,
                             median(t[0]),
                             median(t[1]),
                             median(t[2]),
                             t[3].empty() ? 0.0 : median(t[3]) });
        }
    }
    return rows;
}

// ---- output -----------------------------------------------------------------------------------

double us(double seconds)
{
    return seconds * 1e6;
}

// "8 B", "64 KiB", "16 MiB"
std::string sizeText(std::size_t bytes)
{
    if (bytes >= MiB && bytes % MiB == 0)
    {
        return std::to_string(bytes / MiB) + " MiB";
    }
    if (bytes >= kiB && bytes % kiB == 0)
    {
        return std::to_string(bytes / kiB) + " KiB";
    }
    return std::to_string(bytes) + " B";
}

// a table cell of `width` characters: the value with one decimal, or "n/a" when not measured
std::string cell(double value, int width)
{
    char text[32];
    if (std::isnan(value))
    {
        std::snprintf(text, sizeof(text), "%*s", width, "n/a");
    }
    else
    {
        std::snprintf(text, sizeof(text), "%*.*f", width, width > 7 ? 1 : 3, value);
    }
    return text;
}

// bytes moved per second: the values read plus the values written, 2 x `bytes`
double gbPerSecond(std::size_t bytes, double seconds)
{
    return 2.0 * static_cast<double>(bytes) / seconds * 1e-9;
}

void printKernels(const std::vector<KernelRow>& rows, const Settings& s)
{
    std::printf(
        "\n1. pack/unpack kernels (fieldsync::halo::pack, unpack; runs by a team per run "
        "over "
        "the lists' runs) against deep_copy of "
        "the same bytes, device to device\n   pattern: the 26-neighbour halo of an n^3 block, %d "
        "ghost layers, LayoutRight (StructuredBlock); %d rank(s) at once\n   GB/s = (values "
        "read + values written) / time = 2 x packed bytes / time (index reads not counted)\n"
        "   1/thread: the rank-1 gather with one cell per thread (the kernel before %d per "
        "thread), as a share of the copy\n"
        "%5s %10s %6s %10s %10s %9s %11s %11s %8s %9s %11s %11s %13s\n",
        haloWidth,
        s.size,
        fh::cellsPerThread,
        "comps",
        "packed MiB",
        "n",
        "copy GB/s",
        "pack GB/s",
        "pack/copy",
        "unpack GB/s",
        "unpack/copy",
        "mean run",
        "runs pack",
        "runs unpack",
        "1/thr pack",
        "1/thr unpack"
    );
    for (const KernelRow& r : rows)
    {
        std::printf(
            "%5d %10.2f %6lld %10.1f %10.1f %9.3f %11.1f %11.3f %8.1f %9.3f %11.3f %11.3f %13.3f\n",
            r.components,
            static_cast<double>(r.bytes) / static_cast<double>(MiB),
            static_cast<long long>(r.edge),
            gbPerSecond(r.bytes, r.copy),
            gbPerSecond(r.bytes, r.pack),
            r.copy / r.pack,
            gbPerSecond(r.bytes, r.unpack),
            r.copy / r.unpack,
            r.meanRun,
            r.copy / r.packRuns,
            r.copy / r.unpackRuns,
            r.packOne > 0.0 ? r.copy / r.packOne : 0.0,
            r.unpackOne > 0.0 ? r.copy / r.unpackOne : 0.0
        );
    }
}

void printStaging(const std::vector<StagingRow>& rows, const Settings& s)
{
    std::printf(
        "\n2. staged exchange with rank r^1 (%s), us per exchange: device-to-host copy, MPI, "
        "host-to-device copy\n   host buffers pinned (%s) and pageable (%s); 'lib': "
        "Communicator startComm+finaliseComm of a device view, staged\n"
        "%9s %8s %8s %8s %8s | %8s %8s %8s %8s | %7s | %9s %9s %7s\n",
        s.size > 1 ? "MPI between the pair" : "1 rank: the copies only, no MPI",
        PinnedSpace::name(),
        PageableSpace::name(),
        "bytes",
        "pin d2h",
        "pin mpi",
        "pin h2d",
        "pin sum",
        "pg d2h",
        "pg mpi",
        "pg h2d",
        "pg sum",
        "pg/pin",
        "lib pin",
        "lib pg",
        "pg/pin"
    );
    for (const StagingRow& r : rows)
    {
        const Split& pin = r.split[0];
        const Split& pg = r.split[1];
        std::printf(
            "%9zu %8.1f %8.1f %8.1f %8.1f | %8.1f %8.1f %8.1f %8.1f | %7.3f | %s %s %s\n",
            r.bytes,
            us(pin.toHost),
            us(pin.mpi),
            us(pin.toDevice),
            us(pin.total()),
            us(pg.toHost),
            us(pg.mpi),
            us(pg.toDevice),
            us(pg.total()),
            pg.total() / pin.total(),
            cell(us(r.library[0]), 9).c_str(),
            cell(us(r.library[1]), 9).c_str(),
            cell(r.library[1] / r.library[0], 7).c_str()
        );
    }
}

void printCollectives(const std::vector<CollectiveRow>& rows)
{
    std::printf(
        "\n3. collectives on device views against the same call on host views, us per call\n"
        "   copies: a copy to pinned memory and one back, each enqueued and fenced, no MPI (the "
        "floor of a staged call)\n"
        "   raw: the same two copies with cudaMemcpyAsync and cudaStreamSynchronize (CUDA builds)\n"
        "%10s %9s %10s %10s %11s %10s %8s %15s\n",
        "op",
        "bytes",
        "device us",
        "host us",
        "device/host",
        "copies us",
        "raw us",
        "device-host us"
    );
    for (const CollectiveRow& r : rows)
    {
        std::printf(
            "%10s %9zu %10.2f %10.2f %11.3f %10.2f %8.2f %15.2f\n",
            collectiveNames[static_cast<std::size_t>(r.op)],
            r.bytes,
            us(r.device),
            us(r.host),
            r.device / r.host,
            us(r.copies),
            us(r.rawCopies),
            us(r.device - r.host)
        );
    }
}

// one ratio per measured point and where it was measured
struct Ratios
{
    std::vector<double> values;
    std::vector<std::string> where;
    void add(double value, std::string at)
    {
        if (!std::isnan(value))
        {
            values.push_back(value);
            where.push_back(std::move(at));
        }
    }
};

// one summary line: the worst ratio (the smallest when higher is better), the median, where
// the worst was, and whether the goal holds there (a goal of 0: none)
void printSummaryLine(const char* what, const Ratios& r, double goal, bool higherIsBetter)
{
    if (r.values.empty())
    {
        std::printf("%-44s %7s %7s %7s  %s\n", what, "n/a", "n/a", "n/a", "not measured");
        return;
    }
    const auto worst = higherIsBetter ? std::min_element(r.values.begin(), r.values.end())
                                      : std::max_element(r.values.begin(), r.values.end());
    const bool met = higherIsBetter ? *worst >= goal : *worst <= goal;
    char goalText[16];
    std::snprintf(goalText, sizeof(goalText), "%s%.2f", higherIsBetter ? ">=" : "<=", goal);
    std::printf(
        "%-44s %7s %7.3f %7.3f  %s%s\n",
        what,
        goal > 0.0 ? goalText : "-",
        *worst,
        median(r.values),
        r.where[static_cast<std::size_t>(worst - r.values.begin())].c_str(),
        goal > 0.0 ? (met ? "  met" : "  MISSED") : ""
    );
}

void printSummary(
    const std::vector<KernelRow>& kernels,
    const std::vector<StagingRow>& staging,
    const std::vector<CollectiveRow>& collectives,
    const Settings& s
)
{
    Ratios pack, unpack, runsPack, runsUnpack, staged, library;
    for (const KernelRow& r : kernels)
    {
        const std::string at =
            std::to_string(r.components) + " comps, " + std::to_string(r.bytes / MiB) + " MiB";
        pack.add(r.copy / r.pack, at);
        unpack.add(r.copy / r.unpack, at);
        runsPack.add(r.copy / r.packRuns, at);
        runsUnpack.add(r.copy / r.unpackRuns, at);
    }
    for (const StagingRow& r : staging)
    {
        if (r.bytes >= MiB)
        {
            const std::string at = sizeText(r.bytes);
            staged.add(r.split[1].total() / r.split[0].total(), at);
            library.add(r.library[1] / r.library[0], at);
        }
    }
    std::array<Ratios, 3> perOp;
    for (const CollectiveRow& r : collectives)
    {
        perOp[static_cast<std::size_t>(r.op)].add(r.device / r.host, sizeText(r.bytes));
    }
    std::printf(
        "\ngpu_bench summary: %d rank(s), execution space %s, medians of %d interleaved rounds\n"
        "%-44s %7s %7s %7s  %s\n",
        s.size,
        Exec::name(),
        s.rounds,
        "ratio",
        "goal",
        "worst",
        "median",
        "worst at"
    );
    printSummaryLine("pack bandwidth / deep_copy", pack, 0.5, true);
    printSummaryLine("unpack bandwidth / deep_copy", unpack, 0.5, true);
    printSummaryLine("runs pack bandwidth / deep_copy", runsPack, 0.5, true);
    printSummaryLine("runs unpack bandwidth / deep_copy", runsUnpack, 0.5, true);
    printSummaryLine("staged: pageable / pinned time, >= 1 MiB", staged, 1.5, true);
    printSummaryLine("library: pageable / pinned time, >= 1 MiB", library, 1.5, true);
    for (std::size_t op = 0; op < perOp.size(); ++op)
    {
        const std::string what = std::string(collectiveNames[op]) + ": device / host time";
        printSummaryLine(what.c_str(), perOp[op], 0.0, false);
    }
}

// a JSON number; null for a value not measured
std::string number(double value)
{
    if (std::isnan(value))
    {
        return "null";
    }
    char text[32];
    std::snprintf(text, sizeof(text), "%.6g", value);
    return text;
}

void writeJson(
    const std::vector<KernelRow>& kernels,
    const std::vector<StagingRow>& staging,
    const std::vector<CollectiveRow>& collectives,
    const Settings& s
)
{
    std::ofstream json(s.jsonPath);
    json << "{\n  \"ranks\": " << s.size << ",\n  \"rounds\": " << s.rounds
         << ",\n  \"execution_space\": \"" << Exec::name() << "\",\n  \"pinned_space\": \""
         << PinnedSpace::name() << "\",\n  \"halo_width\": " << haloWidth
         << ",\n  \"bytes_moved\": \"2 x packed bytes (values read + written)\",\n  \"kernels\": "
            "[\n";
    for (std::size_t i = 0; i < kernels.size(); ++i)
    {
        const KernelRow& r = kernels[i];
        json << "    {\"components\": " << r.components << ", \"packed_bytes\": " << r.bytes
             << ", \"block_edge\": " << r.edge << ", \"deep_copy_s\": " << number(r.copy)
             << ", \"pack_s\": " << number(r.pack) << ", \"unpack_s\": " << number(r.unpack)
             << ", \"pack_over_copy_bandwidth\": " << number(r.copy / r.pack)
             << ", \"unpack_over_copy_bandwidth\": " << number(r.copy / r.unpack)
             << ", \"mean_run_cells\": " << number(r.meanRun)
             << ", \"runs_pack_s\": " << number(r.packRuns)
             << ", \"runs_unpack_s\": " << number(r.unpackRuns)
             << ", \"runs_pack_over_copy_bandwidth\": " << number(r.copy / r.packRuns)
             << ", \"runs_unpack_over_copy_bandwidth\": " << number(r.copy / r.unpackRuns)
             << ", \"one_per_thread_pack_s\": " << number(r.packOne)
             << ", \"one_per_thread_unpack_s\": " << number(r.unpackOne) << "}"
             << (i + 1 < kernels.size() ? "," : "") << "\n";
    }
    json << "  ],\n  \"staging\": [\n";
    for (std::size_t i = 0; i < staging.size(); ++i)
    {
        const StagingRow& r = staging[i];
        json << "    {\"bytes\": " << r.bytes;
        for (std::size_t c = 0; c < 2; ++c)
        {
            const char* name = c == 0 ? "pinned" : "pageable";
            json << ", \"" << name << "_to_host_s\": " << number(r.split[c].toHost) << ", \""
                 << name << "_mpi_s\": " << number(r.split[c].mpi) << ", \"" << name
                 << "_to_device_s\": " << number(r.split[c].toDevice) << ", \"library_" << name
                 << "_s\": " << number(r.library[c]);
        }
        json << ", \"pageable_over_pinned\": " << number(r.split[1].total() / r.split[0].total())
             << ", \"library_pageable_over_pinned\": " << number(r.library[1] / r.library[0]) << "}"
             << (i + 1 < staging.size() ? "," : "") << "\n";
    }
    json << "  ],\n  \"collectives\": [\n";
    for (std::size_t i = 0; i < collectives.size(); ++i)
    {
        const CollectiveRow& r = collectives[i];
        json << "    {\"op\": \"" << collectiveNames[static_cast<std::size_t>(r.op)]
             << "\", \"bytes\": " << r.bytes << ", \"device_s\": " << number(r.device)
             << ", \"host_s\": " << number(r.host)
             << ", \"device_over_host\": " << number(r.device / r.host)
             << ", \"copies_s\": " << number(r.copies)
             << ", \"raw_copies_s\": " << number(r.rawCopies) << "}"
             << (i + 1 < collectives.size() ? "," : "") << "\n";
    }
    json << "  ]\n}\n";
}
} // namespace

int main(int argc, char** argv)
{
    fm::MPIInit init(argc, argv);
    fm::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    Settings s;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc)
        {
            s.jsonPath = argv[++i];
        }
        else if (arg == "--quick")
        {
            s.quick = true;
        }
        else if (arg == "--only" && i + 1 < argc)
        {
            s.only = argv[++i];
        }
    }
    const fm::MPIEnvironment world;
    s.me = world.rank();
    s.size = world.sizeRank();
    s.rounds = s.quick ? 5 : 11;
    const auto part = [&](const char* name)
    {
        return s.only.empty() || s.only.find(name) != std::string::npos;
    };
    const std::vector<KernelRow> kernels =
        part("kernels") ? kernelRows(s) : std::vector<KernelRow> {};
    const std::vector<StagingRow> staging =
        part("staging") ? stagingRows(s) : std::vector<StagingRow> {};
    const std::vector<CollectiveRow> collectives =
        part("collectives") ? collectiveRows(s) : std::vector<CollectiveRow> {};
    if (s.me == 0)
    {
        printKernels(kernels, s);
        printStaging(staging, s);
        printCollectives(collectives);
        writeJson(kernels, staging, collectives, s);
        std::printf("\nwrote %s\n", s.jsonPath.c_str());
        printSummary(kernels, staging, collectives, s);
    }
    return 0;
}
