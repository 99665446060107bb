// SPDX-License-Identifier: MIT
// Check mode of the halo exchange (doc/reliability.md, "Check mode of the halo exchange"): a
// header and a checksum per message. A correct exchange still gives exact ghosts; ranks that
// start different keys, element types or sizes, send cells written in flight and corrupted
// messages are Errors naming both ranks and both call sites, on every rank involved, long
// before the time-out (the tests run with FIELDSYNC_WAIT_TIMEOUT=1000: a hang is a CTest
// time-out). Run on 2 and 3 ranks, with each back end, and with FIELDSYNC_FAULTS corrupt:1.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/errorText.hpp"
#include "fieldsync_test/scopedWaitTimeout.hpp"

#include "fieldsync/core/faults.hpp"
#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <source_location>
#include <string>
#include <vector>

namespace fh = fieldsync::halo;
namespace fm = fieldsync::mpi;
using fieldsync::CommKey;
using fieldsync::LocalIndex;

namespace
{
constexpr int owned { 4 }; /**< owned cells per rank: 0..3; then 4 ghosts per other rank */

/** @brief Global id of cell @p i owned by rank @p r. */
std::int64_t gid(int r, int i)
{
    return std::int64_t { 100 } * r + i;
}

/** @brief The value of a cell: a known function of its global id. */
double truth(std::int64_t id)
{
    return 0.5 + 3.0 * static_cast<double>(id);
}

/**
 * @brief Every rank sends its owned cells (one run) to every other rank, and receives each
 * other rank's cells into its own run of 4 ghosts: in place both ways. @p sent cells go out.
 */
struct Pattern
{
    fh::RankSimplexCommMap send;      /**< owned cells to every other rank */
    fh::RankSimplexCommMap receive;   /**< ghosts from every other rank */
    std::vector<std::int64_t> ids;    /**< global id of each local cell */
    std::vector<LocalIndex> ghostRun; /**< first ghost of each rank (-1: me) */

    Pattern(const fm::MPIEnvironment& env, int sent = owned)
        : send(env.sizeRank()), receive(env.sizeRank())
    {
        const int me = env.rank();
        for (int i = 0; i < owned; ++i)
        {
            ids.push_back(gid(me, i));
        }
        std::vector<LocalIndex> cells;
        for (int i = 0; i < sent; ++i)
        {
            cells.push_back(i);
        }
        for (int r = 0; r < env.sizeRank(); ++r)
        {
            ghostRun.push_back(r == me ? -1 : static_cast<LocalIndex>(ids.size()));
            if (r == me)
            {
                continue;
            }
            std::vector<LocalIndex> ghosts;
            for (int i = 0; i < owned; ++i)
            {
                ghosts.push_back(static_cast<LocalIndex>(ids.size()));
                ids.push_back(gid(r, i));
            }
            send.setRank(r, cells);
            receive.setRank(r, ghosts);
        }
    }

    /** @brief The options: check mode on, global ids for the order check. */
    fh::CommitOptions options(bool checkPattern = true) const
    {
        fh::CommitOptions o;
        o.check = true;
        o.globalIds = ids;
        o.checkPattern = checkPattern;
        return o;
    }
};

/** @brief A field of @p cells cells: owned cells their truth, ghosts -1. */
template<typename T>
Kokkos::View<T*, Kokkos::HostSpace> field(const std::vector<std::int64_t>& ids)
{
    Kokkos::View<T*, Kokkos::HostSpace> f("f", ids.size());
    for (std::size_t c = 0; c < ids.size(); ++c)
    {
        f(c) = c < owned ? static_cast<T>(truth(ids[c])) : T(-1);
    }
    return f;
}

/** @brief Whether the corrupt fault is on (only the corruption test runs then). */
bool corrupting()
{
    return fieldsync::faultSettings().on && fieldsync::faultSettings().corrupt > 0.0;
}

int worldRank()
{
    int rank { 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/**
 * @brief Runs @p call; the ranks with @p mustRaise get an Error naming this rank, this file
 * and each of @p parts, the others none; checked on every rank, and every rank's outcome is
 * compared. Returns the seconds the call took.
 *
 * @p ownParts are checked only where the rank found the mismatch itself. A rank may instead get
 * a peer's notice first (the peer found it and left the exchange): that Error carries the peer's
 * message, which names the peer's view of the pair, so it must hold @p parts and say that a rank
 * left the exchange with an Error. Which comes first is a race the library does not order.
 */
double expectError(
    const std::function<void()>& call,
    const std::vector<std::string>& parts,
    bool mustRaise = true,
    const std::vector<std::string>& ownParts = {}
)
{
    const auto begin = std::chrono::steady_clock::now();
    const auto what = fieldsync::test::errorText(call);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    INFO((what ? *what : std::string("no Error")));
    CHECK(what.has_value() == mustRaise);
    if (what)
    {
        CHECK(what->find("rank " + std::to_string(worldRank()) + ":") != std::string::npos);
        CHECK(what->find("exchangeCheck.cpp:") != std::string::npos);
        for (const std::string& part : parts)
        {
            INFO(part);
            CHECK(what->find(part) != std::string::npos);
        }
        const bool notice = what->find("left this exchange with an Error") != std::string::npos;
        for (const std::string& part : ownParts)
        {
            INFO(part);
            CHECK((notice || what->find(part) != std::string::npos));
        }
    }
    const int ok { what.has_value() == mustRaise ? 1 : 0 };
    int all { 0 };
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK(all == 1);
    return seconds;
}

/** @brief "exchangeCheck.cpp:L" of a key made at line L. */
std::string at(const CommKey& key)
{
    return "exchangeCheck.cpp:" + std::to_string(key.where().line());
}

/** @brief Checks every cell of @p f against the truth of its global id. */
template<typename View>
void checkExact(const View& f, const std::vector<std::int64_t>& ids)
{
    int wrong { 0 };
    for (std::size_t c = 0; c < ids.size(); ++c)
    {
        wrong += f(c) == static_cast<typename View::value_type>(truth(ids[c])) ? 0 : 1;
    }
    CHECK(wrong == 0);
}
} // namespace

TEST_CASE("check mode: a correct exchange gives exact ghosts", "[check]")
{
    if (corrupting())
    {
        return;
    }
    fm::MPIEnvironment env;
    const Pattern p(env);
    fh::Communicator comm(env, p.send, p.receive, p.options());
    for (const bool inPlace : { true, false })
    {
        comm.setOptions({ .staging = inPlace ? fm::Staging::Auto : fm::Staging::Always,
                          .inPlace = inPlace });
        auto f = field<double>(p.ids);
        for (int step = 0; step < 3; ++step) // the header counter goes on
        {
            comm.startComm(f, "T");
            comm.finaliseComm(f, "T");
            checkExact(f, p.ids);
        }
        auto a = field<double>(p.ids);
        auto b = field<double>(p.ids);
        comm.startComm({ a, b }, "a and b"); // two fields, one message per neighbour
        static_cast<void>(comm.progress());  // a test of every exchange in flight, checked
        comm.finaliseComm({ a, b }, "a and b");
        checkExact(a, p.ids);
        checkExact(b, p.ids);
    }
    // a reverse exchange: ghosts back to their owners, added
    auto g = field<double>(p.ids);
    for (std::size_t c = owned; c < p.ids.size(); ++c)
    {
        g(c) = 1.0;
    }
    for (int c = 0; c < owned; ++c)
    {
        g(c) = 0.0;
    }
    comm.startReverse(g, fh::ReverseOp::Sum, "back");
    comm.finaliseReverse(g, "back");
    for (int c = 0; c < owned; ++c)
    {
        CHECK(g(c) == static_cast<double>(env.sizeRank() - 1));
    }
}

TEST_CASE("check mode: ranks that start different keys are found, not left waiting", "[check]")
{
    if (corrupting())
    {
        return;
    }
    // found at the time-out: the time-out report becomes a mismatch Error naming both keys. It
    // needs the peers' headers here by then: a correct exchange of these sizes took at most
    // 0.05 s on 3 ranks on 2 cores (MPICH, sanitizers, check mode), so 0.5 s keeps a 10x margin
    // (it was 2 s: 4 s of each run)
    const fieldsync::test::ScopedWaitTimeout timeout("0.5", "error");
    fm::MPIEnvironment env;
    const Pattern p(env);
    fh::Communicator comm(env, p.send, p.receive, p.options());
    const CommKey keyA { std::source_location::current() };
    const CommKey keyB { std::source_location::current() };
    const int me = env.rank();
    const CommKey& mine = me == 0 ? keyA : keyB;
    const CommKey& other = me == 0 ? keyB : keyA;
    for (const int components : { 1, 10000 }) // small (eager) and large (rendezvous) messages
    {
        Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> f(
            "f", p.ids.size(), components
        );
        // rank 0 starts key A, the others key B; rank 0 hears from every rank, the others
        // from rank 0
        std::vector<std::string> parts { "rank " + std::to_string(me) + " started key '",
                                         at(mine) + "' at ",
                                         "but rank " + std::string(me == 0 ? "1" : "0") +
                                             " started key '",
                                         at(other),
                                         "and has not started it" };
        const double seconds = expectError(
            [&]
            {
                comm.startComm(f, mine);
                comm.finaliseComm(f, mine);
            },
            parts
        );
        CHECK(seconds < 30.0); // found at the 0.5 s time-out, not left waiting
        CHECK(comm.describeInFlight() == " none");
    }
    // the Communicator is still usable
    auto f = field<double>(p.ids);
    comm.startComm(f, "after");
    comm.finaliseComm(f, "after");
    checkExact(f, p.ids);
}

TEST_CASE("check mode: ranks that exchange different element types", "[check]")
{
    if (corrupting())
    {
        return;
    }
    const fieldsync::test::ScopedWaitTimeout timeout("1000", "warn");
    fm::MPIEnvironment env;
    const Pattern p(env);
    fh::Communicator comm(env, p.send, p.receive, p.options());
    const CommKey key { "U" };
    auto d = field<double>(p.ids);
    auto s = field<float>(p.ids);
    const int me = env.rank();
    const std::string peer = me == 0 ? "1" : "0";
    expectError(
        [&]
        {
            if (me == 0)
            {
                comm.startComm(d, key);
                comm.finaliseComm(d, key);
            }
            else
            {
                comm.startComm(s, key);
                comm.finaliseComm(s, key);
            }
        },
        { "exchange 'U'", "they disagree: element type '", "(8 bytes per cell) on rank 0" },
        true,
        { "(4 bytes per cell) on rank " + std::string(me == 0 ? peer : std::to_string(me)),
          "rank " + peer + " sends " }
    );
}

TEST_CASE("check mode: a send map that sends fewer cells than the peer expects", "[check]")
{
    if (corrupting())
    {
        return;
    }
    const fieldsync::test::ScopedWaitTimeout timeout("1000", "warn");
    fm::MPIEnvironment env;
    const Pattern p(env, owned - 1); // every rank sends 3 cells, every receiver expects 4
    fh::Communicator comm(env, p.send, p.receive, p.options(false)); // commit would catch it
    auto f = field<double>(p.ids);
    const int me = env.rank();
    const std::string peer = me == 0 ? "1" : "0";
    expectError(
        [&]
        {
            comm.startComm(f, "short");
            comm.finaliseComm(f, "short");
        },
        { "exchange 'short'",
          "rank " + peer + " sends 24 bytes, rank " + std::to_string(me) + " expects 32 bytes" }
    );
}

TEST_CASE("check mode: send cells written while in flight", "[check]")
{
    if (corrupting())
    {
        return;
    }
    fm::MPIEnvironment env;
    const Pattern p(env);
    fh::Communicator comm(env, p.send, p.receive, p.options());
    comm.setOptions({ .staging = fm::Staging::Auto });
    auto f = field<double>(p.ids);
    const CommKey key { "written" };
    // the neighbourhood back end never sends in place: it sends a packed copy, so writing the
    // cells after the start changes nothing that travels
    const bool inPlace = comm.backEnd() == fh::BackEnd::PointToPoint;
    const int me = env.rank();
    expectError(
        [&]
        {
            comm.startComm(f, key);
            f(1) = -7.0; // the send cells go to MPI from the field itself
            comm.finaliseComm(f, key);
        },
        { "exchange 'written'",
          "send cells changed while in flight: rank " + std::to_string(me) +
              " wrote the cells it sends in place to rank " },
        inPlace
    );
}

TEST_CASE("check mode: a message corrupted on the way (FIELDSYNC_FAULTS corrupt)", "[check]")
{
    if (!corrupting())
    {
        return; // runs in test_halo_exchange_check.corrupt
    }
    fm::MPIEnvironment env;
    const Pattern p(env);
    fh::Communicator comm(env, p.send, p.receive, p.options());
    comm.setOptions({ .inPlace = false }
    ); // the fault flips a byte of a packed message, never of the field
    auto f = field<double>(p.ids);
    const int me = env.rank();
    const std::string peer = me == 0 ? "1" : "0";
    expectError(
        [&]
        {
            comm.startComm(f, "corrupt");
            comm.finaliseComm(f, "corrupt");
        },
        { "exchange 'corrupt'",
          "found a corrupted message",
          "the message from rank " + peer,
          "arrived at rank " + std::to_string(me) + " with another checksum than rank " + peer }
    );
}

TEST_CASE("check mode off: no header, no check", "[check]")
{
    if (corrupting())
    {
        return;
    }
    fm::MPIEnvironment env;
    const Pattern p(env);
    fh::CommitOptions options = p.options();
    options.check = false;
    fh::Communicator comm(env, p.send, p.receive, options);
    comm.setOptions({ .staging = fm::Staging::Auto });
    auto f = field<double>(p.ids);
    comm.startComm(f, "free");
    comm.finaliseComm(f, "free");
    checkExact(f, p.ids);
}
