// SPDX-License-Identifier: MIT
// A NeoN main: MPIInit first, then the program's own Kokkos::initialize, the work, its own
// Kokkos::finalize, then the end of MPIInit's scope. fieldsync must not start Kokkos a second
// time nor finalise it again (Kokkos 4 aborts on either), and must still end MPI. The work is a
// ring exchange through a Communicator and an all-reduce, checked against values each rank
// computes itself. A buffer and a Communicator made in main's scope, as a solver's objects are,
// are destroyed after Kokkos::finalize and must then free no Kokkos memory (Kokkos 3.4 warns,
// Kokkos 4 aborts).
#include "allToAllCheck.hpp"

#include "fieldsync/fieldsync.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <vector>

namespace
{
/** A ring: cell 0 goes to the next rank, whose ghost cell 1 receives it. */
fieldsync::halo::Communicator ringCommunicator(const fieldsync::mpi::MPIEnvironment& env)
{
    const int n { env.sizeRank() };
    const int next { (env.rank() + 1) % n };
    const int previous { (env.rank() + n - 1) % n };
    fieldsync::halo::RankSimplexCommMap sendMap(n, { next }, { 0, 1 }, { 0 });
    fieldsync::halo::RankSimplexCommMap receiveMap(n, { previous }, { 0, 1 }, { 1 });
    return fieldsync::halo::Communicator(env, sendMap, receiveMap);
}

/** One exchange through @p comm (ringCommunicator) and an all-reduce; true when right. */
bool ringExchange(const fieldsync::mpi::MPIEnvironment& env, fieldsync::halo::Communicator& comm)
{
    const int n { env.sizeRank() };
    const int previous { (env.rank() + n - 1) % n };
    Kokkos::View<double*, Kokkos::HostSpace> field("field", 2);
    field(0) = 10.0 + env.rank();
    field(1) = -1.0;
    comm.startComm(field);
    comm.finaliseComm(field);
    double ranks { 1.0 };
    fieldsync::mpi::allReduce(ranks, fieldsync::mpi::ReduceOp::Sum, env.comm());
    return field(1) == 10.0 + previous && ranks == n;
}

} // namespace

int main(int argc, char** argv)
{
    bool right { true };
    {
        fieldsync::mpi::MPIInit mpi(argc, argv);
        right = right && !Kokkos::is_initialized(); // left to whoever needs it first
        Kokkos::initialize(argc, argv);
        const fieldsync::mpi::MPIEnvironment env;
        const std::vector<std::size_t> ones(static_cast<std::size_t>(env.sizeRank()), 1);
        fieldsync::mpi::FullDuplexCommBuffer<> outlivesKokkos(env, ones, ones);
        right = right && fieldsync_test::allToAllThrough(env, outlivesKokkos, "neon main");
        fieldsync::halo::Communicator outlivingComm = ringCommunicator(env);
        right = right && ringExchange(env, outlivingComm);
        right = right && !mpi.ownsKokkos();
        Kokkos::finalize();
    } // outlivesKokkos and outlivingComm end here: after Kokkos::finalize, before MPI_Finalize
    int finalised { 0 };
    MPI_Finalized(&finalised);
    right = right && finalised != 0;
    std::printf("NeoN main: %s\n", right ? "right" : "WRONG");
    return right ? 0 : 1;
}
