// SPDX-License-Identifier: MIT
// Lifetimes: an MPIEnvironment, a collective, a halo Communicator, FullDuplexCommBuffers and a
// GhostList (constructed with the environment, or its communicator() taken) used after the
// MPIInit ended (kept in std::optional past its scope), and a second MPIInit, are
// fieldsync::Errors naming the caller's line (not an abort inside MPI, not a line of the
// library). A non-blocking Request still active at MPI_Finalize and destroyed afterwards is
// reported. Prints one line per Error; any other outcome prints "MISMATCH" and exits non-zero.
//
// Truth: the line of each call, taken with __LINE__ on the line of the call itself (the Error
// must name `afterFinalize.cpp:<that line>`), and the count of calls made.
#include "fieldsync/core/error.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/ghostList.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fh = fieldsync::halo;
namespace fm = fieldsync::mpi;

namespace
{
int raised { 0 };
int mismatches { 0 };

/** Runs @p call, which must throw a fieldsync::Error naming this file at @p line. */
void expectError(const char* what, int line, const std::function<void()>& call)
{
    const std::string site { "afterFinalize.cpp:" + std::to_string(line) + " " };
    try
    {
        call();
        ++mismatches;
        std::printf("MISMATCH %s: no error\n", what);
    }
    catch (const fieldsync::Error& error)
    {
        ++raised;
        const bool named { std::string(error.what()).find(site) != std::string::npos };
        mismatches += named ? 0 : 1;
        std::printf(
            "%s%s: %s\n", named ? "" : "MISMATCH (not at the caller's line) ", what, error.what()
        );
    }
}
} // namespace

int main(int argc, char** argv)
{
    std::optional<fm::MPIEnvironment> env;
    std::optional<fh::Communicator> comm;
    std::optional<fh::FullDuplexCommBuffer<>> buffer;  // one exchange made: free again
    std::optional<fh::FullDuplexCommBuffer<>> claimed; // claimed, not started
    std::optional<fm::Request> request;                // never completed
    std::optional<fh::GhostList> ghostList;            // its communicator() never called
    std::vector<double> field(2, -1.0);
    std::vector<double> sum(1, 1.0);
    int next { 0 };
    int previous { 0 };
    const std::vector<fieldsync::LocalIndex> ghostCells { 1 }; // a ring: cell 1 is a ghost of
    std::vector<fh::GhostOwner> ghostOwners(1);                // the previous rank's cell 0
    {
        const fm::MPIInit init(argc, argv);
        env.emplace();
        const int P { env->sizeRank() };
        next = (env->rank() + 1) % P;
        previous = (env->rank() + P - 1) % P;
        ghostOwners[0] = { previous, 0 };
        // a ring: cell 0 goes to the next rank, whose ghost cell 1 receives it
        const fh::RankSimplexCommMap sendMap(P, { next }, { 0, 1 }, { 0 });
        const fh::RankSimplexCommMap receiveMap(P, { previous }, { 0, 1 }, { 1 });
        comm.emplace(*env, sendMap, receiveMap);
        field[0] = env->rank();
        comm->startComm(field);
        comm->finaliseComm(field);
        const std::vector<int> to { next };
        const std::vector<int> from { previous };
        const std::vector<std::size_t> one { 1 };
        buffer.emplace(*env, to, one, from, one);
        buffer->initComm<double>("ring");
        buffer->getSendBuffer<double>(next)[0] = 1.0;
        buffer->startComm();
        buffer->waitComplete();
        buffer->finaliseComm();
        claimed.emplace(*env, to, one, from, one);
        claimed->initComm<double>("claimed");
        request = fm::iAllReduce(sum, fm::ReduceOp::Sum, env->comm()); // outlives MPI
        MPI_Barrier(env->comm());
        ghostList.emplace(*env, 1, ghostCells, ghostOwners);
    }
    if (field[1] != previous)
    {
        ++mismatches;
        std::printf("MISMATCH: the exchange before the end was wrong\n");
    }
    // a call that needs no MPI: returns true and raises nothing
    const auto expectTrue = [](const char* what, const std::function<bool()>& call)
    {
        try
        {
            const bool result { call() };
            mismatches += result ? 0 : 1;
            std::printf("%s%s: true without an error\n", result ? "" : "MISMATCH (false) ", what);
        }
        catch (const fieldsync::Error& error)
        {
            ++mismatches;
            std::printf("MISMATCH %s: %s\n", what, error.what());
        }
    };
    // each call stays on the line whose __LINE__ it is checked against
    // clang-format off
    expectError("duplicate", __LINE__, [&] { static_cast<void>(env->duplicate()); });
    double value { 1.0 };
    expectError("allReduce", __LINE__, [&] { fm::allReduce(value, fm::ReduceOp::Sum, env->comm()); });
    expectError("second MPIInit", __LINE__, [&] { const fm::MPIInit again(argc, argv); });
    // a Communicator kept past the MPIInit: every entry point that would call MPI
    expectError("Communicator::startComm", __LINE__, [&] { comm->startComm(field); });
    expectError("Communicator::isComplete", __LINE__, [&] { static_cast<void>(comm->isComplete(field)); });
    expectError("Communicator::waitComplete", __LINE__, [&] { comm->waitComplete(field); });
    expectError("Communicator::finaliseComm", __LINE__, [&] { comm->finaliseComm(field); });
    expectError("Communicator::progress", __LINE__, [&] { comm->progress(); });
    expectError("Communicator constructor", __LINE__, [&] { fh::Communicator c(*env, comm->sendMap(), comm->receiveMap()); });
    // FullDuplexCommBuffers kept past the MPIInit
    expectError("FullDuplexCommBuffer::initComm", __LINE__, [&] { buffer->initComm<double>("late"); });
    expectError("FullDuplexCommBuffer::startComm", __LINE__, [&] { claimed->startComm(); });
    expectTrue("FullDuplexCommBuffer::isComplete, never started (NeoN's answer, no MPI call)", [&] { return claimed->isComplete(); });
    expectError("FullDuplexCommBuffer::waitComplete", __LINE__, [&] { claimed->waitComplete(); });
    // a GhostList with an environment kept past the MPIInit, and one made before the end
    expectError("GhostList constructor", __LINE__, [&] { fh::GhostList late(*env, 1, ghostCells, ghostOwners); });
    expectError("GhostList::communicator", __LINE__, [&] { static_cast<void>(ghostList->communicator()); });
    // clang-format on
    std::fflush(stdout);
    request.reset(); // still active at MPI_Finalize: reported here (on stderr)
    std::printf("%d lifetime errors raised, %d mismatches\n", raised, mismatches);
    return raised == 14 && mismatches == 0 ? 0 : 1;
}
