// SPDX-License-Identifier: MIT
// Lifetimes: a FullDuplexCommBuffer (persistent requests, after an exchange, so it holds bytes
// and MPI requests) and a HalfDuplexCommBuffer (claimed, so it holds bytes) kept in statics
// outlive the MPIInit. MPIInit's end must name both with their creation lines, and the program
// must then exit with code 0, not crash in Kokkos or MPI when the statics are destroyed.
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/halfDuplexCommBuffer.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <cstdio>
#include <vector>

namespace fh = fieldsync::halo;
namespace fm = fieldsync::mpi;

int main(int argc, char** argv)
{
    const fm::MPIInit init(argc, argv);
    const fm::MPIEnvironment env;
    const int P { env.sizeRank() };
    const int next { (env.rank() + 1) % P };
    const int previous { (env.rank() + P - 1) % P };
    using Ranks = std::vector<int>;
    using Counts = std::vector<std::size_t>;
    // function-local statics: destroyed after main returns, so after the MPIInit; a ring: 3
    // values to the next rank, 3 from the previous one (a function of the sender and the step)
    const Ranks to { next };
    const Ranks from { previous };
    static fh::FullDuplexCommBuffer<> full(env, to, Counts { 3 }, from, Counts { 3 }); // named
    full.setPersistent(true);
    bool right { true };
    for (int step = 0; step < 2; ++step)
    {
        full.initComm<double>("ring");
        auto send = full.getSendBuffer<double>(next);
        for (std::size_t i = 0; i < send.size(); ++i)
        {
            send[i] = 100.0 * env.rank() + static_cast<double>(i + step);
        }
        full.startComm();
        full.waitComplete();
        const auto received = full.getReceiveBuffer<double>(previous);
        for (std::size_t i = 0; i < received.size(); ++i)
        {
            right = right && received[i] == 100.0 * previous + static_cast<double>(i + step);
        }
        right = right && received.size() == 3;
        full.finaliseComm();
    }
    static fh::HalfDuplexCommBuffer<> half(env, to, Counts { 4 }); // named
    half.initComm<double>("half"); // claimed: its bytes are allocated in Kokkos
    MPI_Barrier(env.comm());
    std::printf("rank %d: exchange %s; main ends\n", env.rank(), right ? "right" : "WRONG");
    return right ? 0 : 1;
}
