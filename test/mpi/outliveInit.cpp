// SPDX-License-Identifier: MIT
// Lifetimes: a halo Communicator (after an exchange, so its pool holds views) and an unfinished
// Request kept in statics outlive the MPIInit. MPIInit's end must name both with their creation
// lines, and the program must then exit with code 0, not crash in Kokkos or MPI at exit.
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/mpi/reductions.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <optional>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
std::optional<fieldsync::halo::Communicator> communicator; // destroyed after main returns
fm::Request request;                                       // destroyed after main returns
std::vector<double> sum(1, 1.0);
} // namespace

int main(int argc, char** argv)
{
    const fm::MPIInit init(argc, argv);
    const fm::MPIEnvironment env;
    const int P { env.sizeRank() };
    const int next { (env.rank() + 1) % P };
    const int previous { (env.rank() + P - 1) % P };
    // a ring: cell 0 goes to the next rank, whose ghost cell 1 receives it
    fieldsync::halo::RankSimplexCommMap sendMap(P, { next }, { 0, 1 }, { 0 });
    fieldsync::halo::RankSimplexCommMap receiveMap(P, { previous }, { 0, 1 }, { 1 });
    communicator = fieldsync::halo::Communicator(env, sendMap, receiveMap); // line 35: named
    Kokkos::View<double*, Kokkos::HostSpace> field("field", 2);
    field(0) = env.rank();
    communicator->startComm(field);
    communicator->finaliseComm(field);
    const bool right { field(1) == previous };
    request = fm::iAllReduce(sum, fm::ReduceOp::Sum, env.comm()); // line 41: never waited for
    MPI_Barrier(env.comm());
    std::printf("rank %d: exchange %s; main ends\n", env.rank(), right ? "right" : "WRONG");
    return right ? 0 : 1;
}
