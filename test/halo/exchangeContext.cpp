// SPDX-License-Identifier: MIT
// Where Communicators' messages travel (src/halo/exchangeContext.cpp): Communicators built over
// one communicator share one cached duplicate of it, each with a window of tags of its own;
// only a declared Communicator, or one built when the tag range has no window left, makes a
// duplicate of its own. Every exchange is checked against a function of the global id.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/scopedWaitTimeout.hpp"

#include "fieldsync/halo/communicator.hpp"
#include "fieldsync/halo/ghostList.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace fieldsync;
using namespace fieldsync::halo;

namespace
{
constexpr LocalIndex owned { 12 }; /**< cells every rank owns */
constexpr LocalIndex depth { 3 };  /**< ghosts from each side */

/** @brief The value of cell @p index of rank @p rank in field @p which. */
double truth(int rank, LocalIndex index, int which)
{
    return 100.0 * which + static_cast<double>(rank * owned + index) + 0.25;
}

/** @brief A ring: the first cells of the next rank and the last cells of the previous one. */
struct Ring
{
    std::vector<LocalIndex> ghosts; /**< local index of each ghost */
    std::vector<GhostOwner> owners; /**< its owner */
};

Ring ringOf(int me, int n)
{
    Ring ring;
    const int next { (me + 1) % n };
    const int previous { (me + n - 1) % n };
    for (LocalIndex k { 0 }; k < depth; ++k)
    {
        ring.ghosts.push_back(owned + k);
        ring.owners.push_back({ next, k });
        ring.ghosts.push_back(owned + depth + k);
        ring.owners.push_back({ previous, owned - 1 - k });
    }
    return ring;
}

/** @brief Field @p which of rank @p me: owned cells hold the truth, ghosts -1. */
std::vector<double> fieldOf(int me, int which)
{
    std::vector<double> field(static_cast<std::size_t>(owned + 2 * depth), -1.0);
    for (LocalIndex i { 0 }; i < owned; ++i)
    {
        field[static_cast<std::size_t>(i)] = truth(me, i, which);
    }
    return field;
}

/** @brief How many ghosts of @p field do not hold their owner's value of field @p which. */
int wrongGhosts(const std::vector<double>& field, const Ring& ring, int which)
{
    int wrong { 0 };
    for (std::size_t k { 0 }; k < ring.ghosts.size(); ++k)
    {
        const double expected { truth(ring.owners[k].rank, ring.owners[k].index, which) };
        wrong += field[static_cast<std::size_t>(ring.ghosts[k])] == expected ? 0 : 1;
    }
    return wrong;
}

/** @brief Whether two Communicators send on the very same MPI communicator. */
bool sameCommunicator(const Communicator& a, const Communicator& b)
{
    int result { MPI_UNEQUAL };
    MPI_Comm_compare(a.environment().comm(), b.environment().comm(), &result);
    return result == MPI_IDENT;
}

/** @brief The windows a duplicate of @p comm holds (MPI_TAG_UB / 65536 - 1), from MPI. */
long windowsOf(MPI_Comm comm)
{
    int* upper { nullptr };
    int flag { 0 };
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &upper, &flag);
    // the windows of 65536 tags from 65536 up to the upper half, which the named buffers keep
    // (include/fieldsync/mpi/detail/tagWindow.hpp); none under 4 windows' worth of tags
    const long bound { *upper };
    return bound < 4 * 65536 ? 0 : (bound / 2 + 1) / 65536 - 1;
}
} // namespace

TEST_CASE("Communicators over one communicator share a duplicate, with tags of their own", "[ctx]")
{
    const mpi::MPIEnvironment env { mpi::MPIEnvironment().duplicate() };
    const int me { env.rank() };
    const int n { env.sizeRank() };
    const Ring ring { ringOf(me, n) };
    GhostList list(env, static_cast<std::size_t>(owned), ring.ghosts, ring.owners);
    Communicator a(env, list.sendMap(), list.receiveMap());
    Communicator b { list.communicator() };
    Communicator c(env, list.sendMap(), list.receiveMap());
    Communicator declared { Communicator::declare(env, list.sendMap(), list.receiveMap()) };
    declared.commit();

    CHECK(sameCommunicator(a, b));
    CHECK(sameCommunicator(a, c));
    CHECK_FALSE(sameCommunicator(a, declared)); // it commits later: a communicator of its own
    int withUsers { MPI_UNEQUAL };
    MPI_Comm_compare(a.environment().comm(), env.comm(), &withUsers);
    CHECK(withUsers == MPI_CONGRUENT); // a duplicate: never the caller's communicator
    CHECK(a.tagOf("k") != b.tagOf("k"));
    CHECK(a.tagOf("k") != c.tagOf("k"));
    CHECK(b.tagOf("k") != c.tagOf("k"));

    // the same key in flight on all four at once, started and finalised in rank-dependent orders
    std::vector<Communicator*> comms { &a, &b, &c, &declared };
    std::vector<std::vector<double>> fields;
    for (int which { 0 }; which < 4; ++which)
    {
        fields.push_back(fieldOf(me, which));
    }
    for (int i { 0 }; i < 4; ++i)
    {
        const int which { me % 2 == 0 ? i : 3 - i };
        comms[static_cast<std::size_t>(which)]->startComm(
            fields[static_cast<std::size_t>(which)], "k"
        );
    }
    for (int i { 0 }; i < 4; ++i)
    {
        const int which { (i + me) % 4 };
        comms[static_cast<std::size_t>(which)]->finaliseComm(
            fields[static_cast<std::size_t>(which)], "k"
        );
    }
    for (int which { 0 }; which < 4; ++which)
    {
        CAPTURE(me, which);
        CHECK(wrongGhosts(fields[static_cast<std::size_t>(which)], ring, which) == 0);
    }
}

TEST_CASE("A Communicator's destruction takes none of another's queued messages", "[ctx]")
{
    // rank 0 sends its part of b's exchange before the others start it, so the messages wait
    // in their MPI queue on the shared duplicate while they destroy a (which drops what was
    // sent to a and never received); a short error time-out turns a lost message into an Error
    const fieldsync::test::ScopedWaitTimeout timeout("5", "error");
    const mpi::MPIEnvironment env { mpi::MPIEnvironment().duplicate() };
    const int me { env.rank() };
    const Ring ring { ringOf(me, env.sizeRank()) };
    GhostList list(env, static_cast<std::size_t>(owned), ring.ghosts, ring.owners);
    std::optional<Communicator> a { Communicator(env, list.sendMap(), list.receiveMap()) };
    Communicator b { list.communicator() };
    std::vector<double> field { fieldOf(me, 1) };
    if (me == 0)
    {
        b.startComm(field, "queued");
    }
    MPI_Barrier(env.comm());
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // rank 0's messages land
    a.reset();
    if (me != 0)
    {
        b.startComm(field, "queued");
    }
    b.finaliseComm(field, "queued");
    CHECK(wrongGhosts(field, ring, 1) == 0);
}

TEST_CASE("A Communicator outlives the communicator it was built over", "[ctx]")
{
    const int me { mpi::MPIEnvironment().rank() };
    const Ring ring { ringOf(me, mpi::MPIEnvironment().sizeRank()) };
    std::optional<mpi::MPIEnvironment> env { mpi::MPIEnvironment().duplicate() };
    GhostList list(*env, static_cast<std::size_t>(owned), ring.ghosts, ring.owners);
    Communicator fromMaps(*env, list.sendMap(), list.receiveMap());
    Communicator fromList { list.communicator() };
    env.reset(); // the last owner: MPI frees the communicator (and drops its cached duplicate)
    std::vector<double> first { fieldOf(me, 2) };
    std::vector<double> second { fieldOf(me, 3) };
    fromMaps.startComm(first);
    fromList.startComm(second);
    fromList.finaliseComm(second);
    fromMaps.finaliseComm(first);
    CHECK(wrongGhosts(first, ring, 2) == 0);
    CHECK(wrongGhosts(second, ring, 3) == 0);
}

TEST_CASE("When the tag windows run out, a Communicator gets a duplicate of its own", "[ctx]")
{
    const mpi::MPIEnvironment env { mpi::MPIEnvironment().duplicate() };
    const int me { env.rank() };
    const Ring ring { ringOf(me, env.sizeRank()) };
    const long windows { windowsOf(env.comm()) };
    CAPTURE(windows);
    GhostList list(env, static_cast<std::size_t>(owned), ring.ghosts, ring.owners); // window 1
    Communicator first { list.communicator() };
    for (long w { 2 }; w < windows; ++w) // windows 2 .. windows - 1, made and dropped
    {
        const Communicator dropped(env, list.sendMap(), list.receiveMap());
    }
    Communicator last(env, list.sendMap(), list.receiveMap()); // the last window
    Communicator beyond(env, list.sendMap(), list.receiveMap());
    GhostList listBeyond(env, static_cast<std::size_t>(owned), ring.ghosts, ring.owners);
    Communicator fromListBeyond { listBeyond.communicator() };
    CHECK((windows < 2 || sameCommunicator(first, last)));
    CHECK_FALSE(sameCommunicator(first, beyond));
    CHECK_FALSE(sameCommunicator(beyond, fromListBeyond)); // each a duplicate of its own
    std::vector<Communicator*> comms { &first, &last, &beyond, &fromListBeyond };
    for (std::size_t which { 0 }; which < comms.size(); ++which)
    {
        std::vector<double> field { fieldOf(me, static_cast<int>(which)) };
        comms[which]->startComm(field);
        comms[which]->finaliseComm(field);
        CAPTURE(which);
        CHECK(wrongGhosts(field, ring, static_cast<int>(which)) == 0);
    }
}
