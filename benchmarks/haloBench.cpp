// SPDX-License-Identifier: MIT
// halo_bench: one halo pattern (each rank exchanges N doubles with rank-1 and rank+1) through
// the Communicator and through hand-written MPI_Irecv/MPI_Isend/MPI_Waitall on pre-packed
// buffers, interleaved in one run, from 8 B to 4 MiB per neighbour: 'comm' with the default
// (automatic) choice of requests, 'isend' forcing MPI_Isend/Irecv, 'persist' forcing persistent
// requests, 'scatter' on permuted maps (pack and unpack). Also the pack kernel against
// std::memcpy of the same bytes, and the Communicator's telemetry. Prints tables and writes JSON
// (--json PATH).
//
//   mpiexec -n 2 --bind-to core build/release/benchmarks/halo_bench [--json halo_bench.json]
//           [--quick] [--bytes N (one message size only, for profiling)]
//           [--no-timing (the Communicators keep counters but read no clock)]
#include "median.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

namespace
{
using fieldsync_bench::median;
using Field = Kokkos::View<double*, Kokkos::HostSpace>;
using fieldsync::halo::ExchangeOptions;

struct Pattern
{
    std::vector<int> neighbours; // ascending, without this rank
    fieldsync::halo::RankSimplexCommMap send;
    fieldsync::halo::RankSimplexCommMap receive;
    int nLocal { 0 };
};

// N owned cells; the ghosts of each neighbour follow. Contiguous: send cells 0..N-1, ghosts in
// one run per neighbour (in place). Scattered: both permuted (pack and unpack).
Pattern makePattern(int me, int n, int cells, bool scattered)
{
    Pattern p;
    for (const int r : { (me + n - 1) % n, (me + 1) % n })
    {
        if (r != me && std::find(p.neighbours.begin(), p.neighbours.end(), r) == p.neighbours.end())
        {
            p.neighbours.push_back(r);
        }
    }
    std::sort(p.neighbours.begin(), p.neighbours.end());
    p.send = fieldsync::halo::RankSimplexCommMap(n);
    p.receive = fieldsync::halo::RankSimplexCommMap(n);
    std::vector<fieldsync::LocalIndex> owned(static_cast<std::size_t>(cells));
    std::iota(owned.begin(), owned.end(), 0);
    unsigned state { 12345U + static_cast<unsigned>(me) };
    auto shuffle = [&](std::vector<fieldsync::LocalIndex>& v)
    {
        for (std::size_t i = v.size(); i > 1; --i)
        {
            state = state * 1664525U + 1013904223U;
            std::swap(v[i - 1], v[state % i]);
        }
    };
    int next { cells };
    for (const int r : p.neighbours)
    {
        std::vector<fieldsync::LocalIndex> out = owned;
        std::vector<fieldsync::LocalIndex> in(static_cast<std::size_t>(cells));
        std::iota(in.begin(), in.end(), next);
        next += cells;
        if (scattered)
        {
            shuffle(out);
            shuffle(in);
        }
        p.send.setRank(r, out);
        p.receive.setRank(r, in);
    }
    p.nLocal = next;
    return p;
}

double now()
{
    return MPI_Wtime();
}

// seconds per exchange (max over ranks) of `iterations` calls of fn, after one untimed call
// (every column starts with its own buffers in cache: the columns are interleaved, and a large
// exchange after another column's would otherwise pay that column's cache misses) and a barrier
template<typename Fn>
double timeBatch(int iterations, Fn&& fn)
{
    fn();
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = now();
    for (int i = 0; i < iterations; ++i)
    {
        fn();
    }
    double elapsed = (now() - start) / iterations;
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return elapsed;
}

struct Row
{
    std::size_t bytes;
    double raw, contiguous, isend, immediate, scattered;
    fieldsync::halo::ExchangeStats stats; // the Communicator's telemetry of the 'comm' column
    double statsExchanges;
};

struct PackRow
{
    std::size_t bytes;
    double memcpyTime, packTime, indexedTime;
};
} // namespace

int main(int argc, char** argv)
{
    fieldsync::mpi::MPIInit init(argc, argv);
    fieldsync::mpi::ensureKokkos(); // Kokkos now: this program makes Kokkos views itself
    std::string jsonPath { "halo_bench.json" };
    bool quick { false };
    std::size_t onlyBytes { 0 }; // --bytes N: only this message size (profiling)
    bool timing { true };        // --no-timing: ExchangeOptions::timing false (counters only)
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc)
        {
            jsonPath = argv[++i];
        }
        else if (arg == "--quick")
        {
            quick = true;
        }
        else if (arg == "--no-timing")
        {
            timing = false;
        }
        else if (arg == "--bytes" && i + 1 < argc)
        {
            onlyBytes = std::stoul(argv[++i]);
        }
    }
    const fieldsync::mpi::MPIEnvironment world;
    const int me = world.rank();
    const int n = world.sizeRank();
    const int rounds = quick ? 3 : 11;
    std::vector<Row> rows;
    for (std::size_t bytes = 8; bytes <= (std::size_t { 4 } << 20); bytes *= (bytes < 4096 ? 8 : 4))
    {
        if (onlyBytes != 0 && bytes != onlyBytes)
        {
            continue;
        }
        const int cells = static_cast<int>(bytes / sizeof(double));
        const int iterations = static_cast<int>(
            std::clamp<std::size_t>((quick ? 2000000 : 20000000) / (bytes + 2000), 5, 2000)
        );
        const Pattern contiguous = makePattern(me, n, cells, false);
        const Pattern scattered = makePattern(me, n, cells, true);
        fieldsync::halo::Communicator commContiguous(world, contiguous.send, contiguous.receive);
        fieldsync::halo::Communicator commImmediate(world, contiguous.send, contiguous.receive);
        // the column 'persist': MPI_Send_init/Recv_init at every size
        commImmediate.setOptions({ .persistentFrom = 0 });
        fieldsync::halo::Communicator commIsend(world, contiguous.send, contiguous.receive);
        // the column 'isend': MPI_Isend/Irecv at every size
        commIsend.setOptions({ .persistentFrom = ExchangeOptions::neverPersistent });
        fieldsync::halo::Communicator commScattered(world, scattered.send, scattered.receive);
        for (auto* comm : { &commContiguous, &commImmediate, &commIsend, &commScattered })
        {
            ExchangeOptions options { comm->options() };
            options.timing = timing;
            comm->setOptions(options);
        }
        Field field("field", contiguous.nLocal);
        Field field2("field2", scattered.nLocal);
        Kokkos::deep_copy(field, 1.0);
        Kokkos::deep_copy(field2, 1.0);
        const fieldsync::CommKey key { "halo_bench" };

        // raw MPI baseline on pre-packed buffers, on its own duplicate communicator
        MPI_Comm raw { MPI_COMM_NULL };
        MPI_Comm_dup(MPI_COMM_WORLD, &raw);
        const std::size_t k = contiguous.neighbours.size();
        std::vector<double> sendBuffer(k * static_cast<std::size_t>(cells), 1.0);
        std::vector<double> receiveBuffer(k * static_cast<std::size_t>(cells), 0.0);
        std::vector<MPI_Request> requests(2 * k);
        auto rawExchange = [&]
        {
            for (std::size_t j = 0; j < k; ++j)
            {
                MPI_Irecv(
                    receiveBuffer.data() + j * static_cast<std::size_t>(cells),
                    cells,
                    MPI_DOUBLE,
                    contiguous.neighbours[j],
                    7,
                    raw,
                    &requests[j]
                );
            }
            for (std::size_t j = 0; j < k; ++j)
            {
                MPI_Isend(
                    sendBuffer.data() + j * static_cast<std::size_t>(cells),
                    cells,
                    MPI_DOUBLE,
                    contiguous.neighbours[j],
                    7,
                    raw,
                    &requests[k + j]
                );
            }
            MPI_Waitall(static_cast<int>(2 * k), requests.data(), MPI_STATUSES_IGNORE);
        };
        auto commExchange = [&](fieldsync::halo::Communicator& comm, Field& f)
        {
            return [&]
            {
                comm.startComm(f, key);
                comm.finaliseComm(f, key);
            };
        };
        std::vector<double> tRaw, tContiguous, tIsend, tImmediate, tScattered;
        // warm-up (sets up persistent requests and index arrays); telemetry counts the rounds
        commContiguous.resetStats();
        timeBatch(3, rawExchange);
        timeBatch(3, commExchange(commContiguous, field));
        commContiguous.resetStats();
        timeBatch(3, commExchange(commIsend, field));
        timeBatch(3, commExchange(commImmediate, field));
        timeBatch(3, commExchange(commScattered, field2));
        // the column order changes each round (stride 1, 2, 3, 4 through the 5 columns, so each
        // column follows each other one in some rounds): a batch right after the raw batch was
        // measured up to 4x slower at 1 MiB whichever column it was (an effect of the order, not
        // of the column), so no column may always take that place
        constexpr int columns { 5 };
        for (int round = 0; round < rounds; ++round)
        {
            const int step { 1 + round % (columns - 1) };
            for (int c = 0; c < columns; ++c)
            {
                switch ((round + c * step) % columns)
                {
                case 0:
                    tRaw.push_back(timeBatch(iterations, rawExchange));
                    break;
                case 1:
                    tContiguous.push_back(timeBatch(iterations, commExchange(commContiguous, field))
                    );
                    break;
                case 2:
                    tIsend.push_back(timeBatch(iterations, commExchange(commIsend, field)));
                    break;
                case 3:
                    tImmediate.push_back(timeBatch(iterations, commExchange(commImmediate, field)));
                    break;
                default:
                    tScattered.push_back(timeBatch(iterations, commExchange(commScattered, field2))
                    );
                    break;
                }
            }
        }
        MPI_Comm_free(&raw);
        const fieldsync::halo::ExchangeStats& stats = commContiguous.stats(key);
        rows.push_back({ bytes,
                         median(tRaw),
                         median(tContiguous),
                         median(tIsend),
                         median(tImmediate),
                         median(tScattered),
                         stats,
                         static_cast<double>(stats.exchanges) });
    }

    // pack kernel vs memcpy of the same bytes (contiguous indices), on one rank
    std::vector<PackRow> packRows;
    for (std::size_t bytes = 4096; bytes <= (std::size_t { 4 } << 20); bytes *= 4)
    {
        if (onlyBytes != 0 && bytes != onlyBytes)
        {
            continue;
        }
        const std::size_t cells = bytes / sizeof(double);
        Field field("field", cells);
        Kokkos::deep_copy(field, 2.0);
        Kokkos::View<fieldsync::LocalIndex*, Kokkos::HostSpace> indices("indices", cells);
        for (std::size_t i = 0; i < cells; ++i)
        {
            indices(i) = static_cast<fieldsync::LocalIndex>(i);
        }
        Field buffer("buffer", cells);
        std::vector<double> target(cells);
        const int iterations = static_cast<int>(
            std::clamp<std::size_t>((quick ? 20000000 : 200000000) / bytes, 5, 20000)
        );
        std::vector<double> tMemcpy, tPack, tIndexed;
        for (int round = 0; round < rounds; ++round)
        {
            double start = now();
            for (int i = 0; i < iterations; ++i)
            {
                std::memcpy(target.data(), field.data(), bytes);
                asm volatile("" : : "r"(target.data()) : "memory");
            }
            tMemcpy.push_back((now() - start) / iterations);
            start = now();
            for (int i = 0; i < iterations; ++i)
            {
                // one contiguous neighbour packed as one copy (the library's former packNeighbour)
                std::memcpy(buffer.data(), field.data(), cells * sizeof(double));
                asm volatile("" : : "r"(buffer.data()) : "memory");
            }
            Kokkos::DefaultHostExecutionSpace().fence();
            tPack.push_back((now() - start) / iterations);
            start = now();
            for (int i = 0; i < iterations; ++i)
            {
                fieldsync::halo::pack(field, buffer, indices, 0, cells, 1, 0);
                asm volatile("" : : "r"(buffer.data()) : "memory");
            }
            Kokkos::DefaultHostExecutionSpace().fence();
            tIndexed.push_back((now() - start) / iterations);
        }
        packRows.push_back({ bytes, median(tMemcpy), median(tPack), median(tIndexed) });
    }

    if (me == 0)
    {
        std::printf(
            "halo_bench: %d ranks, neighbours rank-1 and rank+1, median of %d interleaved rounds\n",
            n,
            rounds
        );
        std::printf(
            "%10s %10s %10s %7s %10s %7s %10s %7s %10s %7s\n",
            "bytes/nbr",
            "raw us",
            "comm us",
            "ratio",
            "isend us",
            "ratio",
            "persist us",
            "ratio",
            "scatter us",
            "ratio"
        );
        for (const auto& r : rows)
        {
            std::printf(
                "%10zu %10.2f %10.2f %7.3f %10.2f %7.3f %10.2f %7.3f %10.2f %7.3f\n",
                r.bytes,
                r.raw * 1e6,
                r.contiguous * 1e6,
                r.contiguous / r.raw,
                r.isend * 1e6,
                r.isend / r.raw,
                r.immediate * 1e6,
                r.immediate / r.raw,
                r.scattered * 1e6,
                r.scattered / r.raw
            );
        }
        std::printf(
            "\nCommunicator telemetry of the 'comm' column, rank 0, mean us per exchange\n"
            "%10s %10s %10s %10s %10s %10s\n",
            "bytes/nbr",
            "pack",
            "post",
            "wait",
            "unpack",
            "messages"
        );
        for (const auto& r : rows)
        {
            const double e = std::max(1.0, r.statsExchanges);
            std::printf(
                "%10zu %10.3f %10.3f %10.3f %10.3f %10.2f\n",
                r.bytes,
                r.stats.packSeconds / e * 1e6,
                r.stats.postSeconds / e * 1e6,
                r.stats.waitSeconds / e * 1e6,
                r.stats.unpackSeconds / e * 1e6,
                static_cast<double>(r.stats.messages) / e
            );
        }
        std::printf(
            "\npack of a contiguous neighbour (run copy) and the indexed kernel vs memcpy, rank "
            "0\n%10s %12s %12s %10s %12s %10s\n",
            "bytes",
            "memcpy GB/s",
            "pack GB/s",
            "pack/memcpy",
            "indexed GB/s",
            "idx/memcpy"
        );
        for (const auto& r : packRows)
        {
            const auto b = static_cast<double>(r.bytes);
            std::printf(
                "%10zu %12.2f %12.2f %10.3f %12.2f %10.3f\n",
                r.bytes,
                b / r.memcpyTime * 1e-9,
                b / r.packTime * 1e-9,
                r.memcpyTime / r.packTime,
                b / r.indexedTime * 1e-9,
                r.memcpyTime / r.indexedTime
            );
        }
        std::ofstream json(jsonPath);
        json << "{\n  \"ranks\": " << n << ",\n  \"rounds\": " << rounds
             << ",\n  \"exchange\": [\n";
        for (std::size_t i = 0; i < rows.size(); ++i)
        {
            const auto& r = rows[i];
            json << "    {\"bytes_per_neighbour\": " << r.bytes << ", \"raw_s\": " << r.raw
                 << ", \"communicator_contiguous_s\": " << r.contiguous
                 << ", \"communicator_isend_s\": " << r.isend
                 << ", \"communicator_persistent_s\": " << r.immediate
                 << ", \"communicator_scattered_s\": " << r.scattered
                 << ", \"ratio_contiguous\": " << r.contiguous / r.raw
                 << ", \"telemetry_exchanges\": " << r.stats.exchanges
                 << ", \"telemetry_post_s\": " << r.stats.postSeconds
                 << ", \"telemetry_wait_s\": " << r.stats.waitSeconds
                 << ", \"telemetry_unpack_s\": " << r.stats.unpackSeconds << "}"
                 << (i + 1 < rows.size() ? "," : "") << "\n";
        }
        json << "  ],\n  \"pack\": [\n";
        for (std::size_t i = 0; i < packRows.size(); ++i)
        {
            const auto& r = packRows[i];
            json << "    {\"bytes\": " << r.bytes << ", \"memcpy_s\": " << r.memcpyTime
                 << ", \"pack_s\": " << r.packTime
                 << ", \"pack_over_memcpy_speed\": " << r.memcpyTime / r.packTime
                 << ", \"indexed_s\": " << r.indexedTime
                 << ", \"indexed_over_memcpy_speed\": " << r.memcpyTime / r.indexedTime << "}"
                 << (i + 1 < packRows.size() ? "," : "") << "\n";
        }
        json << "  ]\n}\n";
        std::printf("\nwrote %s\n", jsonPath.c_str());
    }
    return 0;
}
