// SPDX-License-Identifier: MIT
// The engine's instructions per small exchange, counted by callgrind (issue #37): a test cannot
// time an exchange, but it can count what the engine executes, so that the small exchange's
// fixed cost cannot grow unseen. Run by exchangeInstructions.py under
// `valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no` on 2 ranks, which sums the
// instructions per object and holds them against a ceiling.
//
// Each rank owns 2 G cells and ghosts G cells of the other rank (every other owned cell: a
// gather, not a run; received in place), G = 64 and 512 doubles (0.5 and 4 KiB), a rank-1 View
// in HostSpace. After a warm-up, callgrind collects only inside startComm and finaliseComm, and
// between the two every rank passes two barriers (not collected), so the data is here when the
// wait begins and it completes at its first test: what is counted does not depend on timing
// (test_halo_calls counts the MPI calls the same way). Each size's counts are dumped apart,
// described as "fieldsync-exchange bytes=B exchanges=N". The ghosts are checked against a closed
// form of their global id at every step; a wrong one prints WRONG and the program exits with 1.
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include <mpi.h>
#include <valgrind/callgrind.h>

namespace
{
using Field = Kokkos::View<double*, Kokkos::HostSpace>;
using fieldsync::LocalIndex;
using fieldsync::halo::RankSimplexCommMap;

constexpr int warmUp { 20 };
constexpr int exchanges { 200 };

/** The value of the cell of global id @p id at step @p step (exact in a double). */
double truth(long id, int step)
{
    return static_cast<double>(id) * 8.0 + static_cast<double>(step) * 1.0e6;
}

/** Exchanges of @p ghosts cells per rank; whether every ghost was right at every step. */
bool run(const fieldsync::mpi::MPIEnvironment& env, int ghosts)
{
    const int me = env.rank();
    const int peer = 1 - me;
    const int owned = 2 * ghosts;
    std::vector<LocalIndex> sends(static_cast<std::size_t>(ghosts));
    std::vector<LocalIndex> receives(static_cast<std::size_t>(ghosts));
    for (int j = 0; j < ghosts; ++j)
    {
        sends[static_cast<std::size_t>(j)] = 2 * j;        // every other owned cell
        receives[static_cast<std::size_t>(j)] = owned + j; // the ghosts, one run
    }
    RankSimplexCommMap send(2);
    RankSimplexCommMap receive(2);
    send.setRank(peer, sends);
    receive.setRank(peer, receives);
    fieldsync::halo::Communicator comm(env, send, receive);
    Field field("field", static_cast<std::size_t>(owned + ghosts));
    const fieldsync::CommKey key { "instructions" };
    bool right { true };
    for (int step = 0; step < warmUp + exchanges; ++step)
    {
        for (int i = 0; i < owned + ghosts; ++i)
        {
            field(i) = i < owned ? truth(static_cast<long>(me) * owned + i, step) : -1.0;
        }
        const bool counted = step >= warmUp;
        if (counted)
        {
            CALLGRIND_TOGGLE_COLLECT;
        }
        comm.startComm(field, key);
        if (counted)
        {
            CALLGRIND_TOGGLE_COLLECT;
        }
        // after the first every peer's messages are here, after the second every sender knows
        MPI_Barrier(env.comm());
        MPI_Barrier(env.comm());
        if (counted)
        {
            CALLGRIND_TOGGLE_COLLECT;
        }
        comm.finaliseComm(field, key);
        if (counted)
        {
            CALLGRIND_TOGGLE_COLLECT;
        }
        for (int j = 0; j < ghosts; ++j) // ghost j is the peer's owned cell 2 j
        {
            right =
                right && field(owned + j) == truth(static_cast<long>(peer) * owned + 2 * j, step);
        }
    }
    const std::string description =
        "fieldsync-exchange bytes=" + std::to_string(ghosts * sizeof(double)) +
        " exchanges=" + std::to_string(exchanges);
    CALLGRIND_DUMP_STATS_AT(description.c_str());
    return right;
}
} // namespace

int main(int argc, char** argv)
{
    const fieldsync::mpi::MPIInit init(argc, argv);
    const fieldsync::mpi::MPIEnvironment env;
    if (env.sizeRank() != 2)
    {
        std::printf("exchangeInstructions: WRONG rank count %d (runs on 2)\n", env.sizeRank());
        return 1;
    }
    CALLGRIND_START_INSTRUMENTATION;
    bool right { true };
    for (const int ghosts : { 64, 512 })
    {
        right = run(env, ghosts) && right;
    }
    CALLGRIND_STOP_INSTRUMENTATION;
    std::printf("rank %d: ghosts %s\n", env.rank(), right ? "right" : "WRONG");
    return right ? 0 : 1;
}
