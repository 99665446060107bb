// SPDX-License-Identifier: MIT
// CommunicatorHierarchy: levels made by naming rules, checked against membership computed from
// the rule alone, and every hierarchical allreduce against the native one and a closed form.
#include "fieldsync_test/catch.hpp"
#include "fieldsync_test/hosts.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/communicatorHierarchy.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <complex>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace fm = fieldsync::mpi;

namespace
{
using NameRule = std::function<std::string(int rank, int size)>;

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/** The world ranks of @p env's members, in its rank order (raw MPI, independent of the code). */
std::vector<int> worldRanksOf(const fm::MPIEnvironment& env)
{
    std::vector<int> members(static_cast<std::size_t>(env.sizeRank()));
    int world { 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Allgather(&world, 1, MPI_INT, members.data(), 1, MPI_INT, env.comm());
    return members;
}

/** What a level made from @p names (one per rank of the split communicator) must be. */
struct Expected
{
    std::vector<int> inner;  /**< members of my inner communicator, in order */
    std::vector<int> outer;  /**< members of my outer communicator, in order */
    int minInner { 0 };      /**< smallest group */
    int maxInner { 0 };      /**< largest group */
    bool cartesian { true }; /**< all groups one size */
};

/** From the naming rule only: groups are equal names; outer links equal positions in groups. */
Expected expected(const std::vector<std::string>& names, int me)
{
    const int n = static_cast<int>(names.size());
    std::vector<int> position(names.size());
    std::vector<int> groupSize(names.size());
    for (int r = 0; r < n; ++r)
    {
        const auto ur = static_cast<std::size_t>(r);
        position[ur] = static_cast<int>(std::count(names.begin(), names.begin() + r, names[ur]));
        groupSize[ur] = static_cast<int>(std::count(names.begin(), names.end(), names[ur]));
    }
    Expected e;
    const auto um = static_cast<std::size_t>(me);
    for (int r = 0; r < n; ++r)
    {
        const auto ur = static_cast<std::size_t>(r);
        if (names[ur] == names[um])
        {
            e.inner.push_back(r);
        }
        if (position[ur] == position[um])
        {
            e.outer.push_back(r);
        }
    }
    e.minInner = *std::min_element(groupSize.begin(), groupSize.end());
    e.maxInner = *std::max_element(groupSize.begin(), groupSize.end());
    e.cartesian = e.minInner == e.maxInner;
    return e;
}

std::vector<std::string> namesOf(const NameRule& rule, int size)
{
    std::vector<std::string> names;
    for (int r = 0; r < size; ++r)
    {
        names.push_back(rule(r, size));
    }
    return names;
}

std::string pairs(int rank, int /*size*/)
{
    return std::to_string(rank / 2);
}

std::string uneven(int rank, int /*size*/)
{
    return rank == 0 ? "a" : "b";
}

/** Rank r's value i: (r+1)(i+1), with r - i as imaginary part for complex values. */
template<typename T>
T valueOf(int r, std::size_t i)
{
    const double re = (r + 1.0) * (static_cast<double>(i) + 1.0);
    if constexpr (std::is_same_v<T, std::complex<double>>)
    {
        return T { re, r - static_cast<double>(i) };
    }
    else
    {
        return static_cast<T>(re);
    }
}

/** The closed form of @p op over ranks 0..P-1 of valueOf(r, i). */
template<typename T>
T truth(fm::ReduceOp op, int P, std::size_t i)
{
    const double x = static_cast<double>(i) + 1.0;
    switch (op)
    {
    case fm::ReduceOp::Max:
        return static_cast<T>(P * x);
    case fm::ReduceOp::Min:
        return static_cast<T>(x);
    default:
        if constexpr (std::is_same_v<T, std::complex<double>>)
        {
            const double im = P * (P - 1) / 2.0 - P * (static_cast<double>(i));
            return T { x * P * (P + 1) / 2.0, im };
        }
        else
        {
            return static_cast<T>(x * P * (P + 1) / 2.0);
        }
    }
}

template<typename T>
std::vector<T> inputOf(int rank, std::size_t count)
{
    std::vector<T> v(count);
    for (std::size_t i = 0; i < count; ++i)
    {
        v[i] = valueOf<T>(rank, i);
    }
    return v;
}

/** The first index where @p a and @p b differ, -1 when they are equal (short failure output). */
template<typename T>
long firstMismatch(const T* a, const std::vector<T>& b)
{
    for (std::size_t i = 0; i < b.size(); ++i)
    {
        if (!(a[i] == b[i]))
        {
            return static_cast<long>(i);
        }
    }
    return -1;
}

/** The algorithms a level allows. */
std::vector<fm::Algorithm> algorithmsFor(bool cartesian)
{
    std::vector<fm::Algorithm> all { fm::Algorithm::Native,
                                     fm::Algorithm::Tree3Step,
                                     fm::Algorithm::NodeAware };
    if (cartesian)
    {
        all.push_back(fm::Algorithm::Cartesian2Step);
    }
    return all;
}

/** Every algorithm on vectors, spans, views (rank 1 and 2) and staged views, for counts. */
template<typename T>
void checkAllReduces(const fm::CommunicatorHierarchy& h, fm::ReduceOp op)
{
    const fm::MPIEnvironment& full = h.full(h.level());
    const int P = full.sizeRank();
    const int me = full.rank();
    // the large count: a prime, so it splits unevenly over any rank count, and 40 to 160 KB, past
    // the staging pool's smallest block (4 KiB) and MPI's eager sizes; 100 003 crossed nothing
    // more, and took half of the sanitizer build's run of this test
    const std::size_t counts[] {
        0, 1, static_cast<std::size_t>(P - 1), 2 * std::size_t(P) + 1, 10007
    };
    for (const fm::Algorithm algorithm : algorithmsFor(h.isCartesian()))
    {
        for (const std::size_t count : counts)
        {
            INFO("algorithm " << fm::toString(algorithm) << ", count " << count);
            std::vector<T> native = inputOf<T>(me, count);
            fm::allReduce(native, op, full.comm());
            std::vector<T> viaVector = inputOf<T>(me, count);
            h.allReduce(viaVector, op, algorithm);
            CHECK(firstMismatch(viaVector.data(), native) == -1);
            bool closedForm { true };
            for (std::size_t i = 0; i < count; ++i)
            {
                closedForm = closedForm && native[i] == truth<T>(op, P, i);
            }
            CHECK(closedForm);

            std::vector<T> forSpan = inputOf<T>(me, count);
            h.allReduce(std::span<T>(forSpan), op, algorithm);
            CHECK(firstMismatch(forSpan.data(), native) == -1);

            Kokkos::View<T*> view("view", count);
            const std::vector<T> input = inputOf<T>(me, count);
            Kokkos::deep_copy(view, Kokkos::View<const T*, Kokkos::HostSpace>(input.data(), count));
            h.allReduce(view, op, { .staging = fm::Staging::Always, .algorithm = algorithm });
            const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, view);
            CHECK(firstMismatch(host.data(), native) == -1);

            Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> matrix("matrix", count, 1);
            std::copy(input.begin(), input.end(), matrix.data());
            h.allReduce(matrix, op, algorithm);
            CHECK(firstMismatch(matrix.data(), native) == -1);
        }
    }
}

/** Every level property of @p h's current level against the naming rule. */
void checkLevel(const fm::CommunicatorHierarchy& h, const std::vector<std::string>& names)
{
    const int level = h.level();
    const fm::MPIEnvironment& full = h.full(level);
    const Expected e = expected(names, full.rank());
    const std::vector<int> fullMembers = worldRanksOf(full);
    std::vector<int> inner;
    std::vector<int> outer;
    for (const int r : e.inner)
    {
        inner.push_back(fullMembers[static_cast<std::size_t>(r)]);
    }
    for (const int r : e.outer)
    {
        outer.push_back(fullMembers[static_cast<std::size_t>(r)]);
    }
    CHECK(worldRanksOf(h.inner(level)) == inner);
    CHECK(worldRanksOf(h.outer(level)) == outer);
    CHECK(h.isCartesian() == e.cartesian);
    CHECK(h.isCartesian(level) == e.cartesian);
    CHECK(h.innerSizes(level) == std::pair<int, int> { e.minInner, e.maxInner });
    CHECK(h.name(level) == names[static_cast<std::size_t>(full.rank())]);
}
} // namespace

TEST_CASE("level 0 is a duplicate of the environment named global", "[hierarchy]")
{
    const fm::MPIEnvironment world;
    const fm::CommunicatorHierarchy h(world);
    CHECK(h.numLevels() == 1);
    CHECK(h.level() == 0);
    CHECK(h.inner(0).comm() != world.comm());
    CHECK(h.inner(0).ownsComm());
    checkLevel(h, std::vector<std::string>(static_cast<std::size_t>(world.sizeRank()), "global"));
    const std::string line = "level 0 \"global\" (current): inner " + std::to_string(world.rank()) +
                             " of " + std::to_string(world.sizeRank()) +
                             ", outer 0 of 1, cartesian";
    CHECK(h.communicatorNames() == line);
}

TEST_CASE("pairs of ranks: cartesian on 2 and 4 ranks", "[hierarchy]")
{
    const fm::MPIEnvironment world;
    const int P = world.sizeRank();
    fm::CommunicatorHierarchy h(world);
    h.pushCommunicator(pairs(world.rank(), P));
    CHECK(h.level() == 1);
    CHECK(h.numLevels() == 2);
    const auto names = namesOf(pairs, P);
    checkLevel(h, names);
    if (P == 2 || P == 4)
    {
        CHECK(h.isCartesian());
    }
    if (P == 3)
    {
        CHECK_FALSE(h.isCartesian());
    }
    const Expected e = expected(names, world.rank());
    const auto inner =
        static_cast<int>(std::find(e.inner.begin(), e.inner.end(), world.rank()) - e.inner.begin());
    const auto outer =
        static_cast<int>(std::find(e.outer.begin(), e.outer.end(), world.rank()) - e.outer.begin());
    const std::string level1 = "level 1 \"" + names[static_cast<std::size_t>(world.rank())] +
                               "\" (current): inner " + std::to_string(inner) + " of " +
                               std::to_string(e.inner.size()) + ", outer " + std::to_string(outer) +
                               " of " + std::to_string(e.outer.size()) + ", " +
                               (e.cartesian ? "cartesian" : "tree");
    const std::string names0 = h.communicatorNames();
    CHECK(names0.substr(names0.find('\n') + 1) == level1);
    checkAllReduces<int>(h, fm::ReduceOp::Sum);
    checkAllReduces<double>(h, fm::ReduceOp::Sum);
    checkAllReduces<std::complex<double>>(h, fm::ReduceOp::Sum);
    checkAllReduces<int>(h, fm::ReduceOp::Max);
    checkAllReduces<double>(h, fm::ReduceOp::Min);
}

TEST_CASE("uneven groups (1 and 3 ranks): a tree", "[hierarchy]")
{
    const fm::MPIEnvironment world;
    const int P = world.sizeRank();
    fm::CommunicatorHierarchy h(world);
    h.pushCommunicator(uneven(world.rank(), P));
    checkLevel(h, namesOf(uneven, P));
    if (P >= 3)
    {
        CHECK_FALSE(h.isCartesian());
        CHECK(h.innerSizes(1) == std::pair<int, int> { 1, P - 1 });
    }
    checkAllReduces<int>(h, fm::ReduceOp::Sum);
    checkAllReduces<double>(h, fm::ReduceOp::Sum);
    checkAllReduces<std::complex<double>>(h, fm::ReduceOp::Sum);
    checkAllReduces<double>(h, fm::ReduceOp::Max);
    checkAllReduces<int>(h, fm::ReduceOp::Min);
    double value = world.rank() + 1.0;
    h.allReduce(value, fm::ReduceOp::Sum, fm::Algorithm::NodeAware);
    CHECK(value == P * (P + 1) / 2.0);
}

TEST_CASE("HierarchyShape::Tree builds only trees", "[hierarchy]")
{
    const fm::MPIEnvironment world;
    fm::CommunicatorHierarchy h(world, fm::HierarchyShape::Tree);
    h.pushCommunicator(pairs(world.rank(), world.sizeRank()));
    CHECK_FALSE(h.isCartesian());
    CHECK_THROWS_AS(
        h.allReduce(std::vector<int>(3, 1), fm::ReduceOp::Sum, fm::Algorithm::Cartesian2Step),
        fieldsync::Error
    );
    h.setShape(fm::HierarchyShape::Cartesian);
    h.pushCommunicator("all in one");
    CHECK(h.isCartesian());
    checkAllReduces<double>(h, fm::ReduceOp::Sum);
}

TEST_CASE("nested levels, set and pop", "[hierarchy]")
{
    const fm::MPIEnvironment world;
    const int me = world.rank();
    fm::CommunicatorHierarchy h(world);
    h.pushCommunicator(pairs(me, world.sizeRank()));
    h.pushCommunicator(std::to_string(me)); // every rank alone inside its pair
    CHECK(h.numLevels() == 3);
    CHECK(h.full(2).sizeRank() == h.inner(1).sizeRank());
    CHECK(h.inner(2).sizeRank() == 1);
    CHECK(h.outer(2).sizeRank() == h.inner(1).sizeRank());
    checkAllReduces<int>(h, fm::ReduceOp::Sum); // over the pair
    h.setCommunicator(1);
    h.pushCommunicator("again"); // drops level 2
    CHECK(h.numLevels() == 3);
    CHECK(h.name(2) == "again");
    h.popCommunicator();
    CHECK(h.level() == 1);
    h.popCommunicator();
    CHECK(h.level() == 0);
    CHECK_THROWS_AS(h.popCommunicator(), fieldsync::Error);
}

TEST_CASE("default levels: global and node", "[hierarchy]")
{
    const fm::MPIEnvironment world;
    const auto h = fm::CommunicatorHierarchy::withDefaults(world);
    CHECK(h.numLevels() == 2);
    CHECK(h.level() == 1);
    // the node of each rank by its processor name, gathered with raw MPI
    std::array<char, MPI_MAX_PROCESSOR_NAME> mine {};
    int length { 0 };
    MPI_Get_processor_name(mine.data(), &length);
    std::vector<char> all(mine.size() * static_cast<std::size_t>(world.sizeRank()));
    MPI_Allgather(
        mine.data(),
        MPI_MAX_PROCESSOR_NAME,
        MPI_CHAR,
        all.data(),
        MPI_MAX_PROCESSOR_NAME,
        MPI_CHAR,
        world.comm()
    );
    std::vector<std::string> names;
    for (std::size_t r = 0; r < static_cast<std::size_t>(world.sizeRank()); ++r)
    {
        names.emplace_back(all.data() + r * mine.size());
    }
    checkLevel(h, names);
    CHECK(h.numNodesInCommunicator() == 1); // the inner communicator of a node level: one node
    checkAllReduces<double>(h, fm::ReduceOp::Sum);
    auto global = h;
    global.setCommunicator(0);
    CHECK(
        global.numNodesInCommunicator() ==
        static_cast<int>(std::set<std::string>(names.begin(), names.end()).size())
    );
}

TEST_CASE("the node level is the hosts, by their host names", "[hierarchy][nodes]")
{
    const fm::MPIEnvironment world;
    const int P = world.sizeRank();
    auto h = fm::CommunicatorHierarchy::withDefaults(world);
    // the truth: uname's host name of every rank, gathered with raw MPI
    const auto hosts = fieldsync::test::hostNamesOf(world.comm());
    const int nodes = fieldsync::test::distinctHosts(hosts);
    const Expected e = expected(hosts, world.rank());
    CHECK(worldRanksOf(h.inner(1)) == e.inner); // the ranks on my host
    CHECK(worldRanksOf(h.outer(1)) == e.outer); // one rank of every host with as many
    CHECK(h.numNodesInCommunicator() == 1);
    const int expectedNodes = fieldsync::test::expectedNodes(); // set by tools/two-hosts.sh
    if (expectedNodes > 0)
    {
        INFO("hosts of the ranks: " << hosts.front() << " ... " << hosts.back());
        CHECK(nodes == expectedNodes);
        CHECK(e.minInner == P / expectedNodes);
        CHECK(e.maxInner == P / expectedNodes);
    }
    // every hierarchical allreduce over the node level crosses the hosts
    checkAllReduces<double>(h, fm::ReduceOp::Sum);
    checkAllReduces<int>(h, fm::ReduceOp::Max);
    h.setCommunicator(0);
    CHECK(h.numNodesInCommunicator() == nodes);
}

TEST_CASE("CommunicatorHierarchy errors name the level and the call site", "[hierarchy]")
{
    const fm::MPIEnvironment world;
    const int P = world.sizeRank();
    fm::CommunicatorHierarchy h(world);
    h.pushCommunicator(uneven(world.rank(), P));
    std::vector<double> data(4, 1.0);
    const auto thrownBy = [](auto&& call) -> fieldsync::Error
    {
        try
        {
            call();
        }
        catch (const fieldsync::Error& error)
        {
            return error;
        }
        FAIL("no fieldsync::Error thrown");
        return fieldsync::Error("unreachable");
    };
    const auto inThisFile = [](const fieldsync::Error& error)
    {
        return std::string(error.where().file_name()).find("test/mpi/communicatorHierarchy.cpp") !=
               std::string::npos;
    };
    if (!h.isCartesian())
    {
        const auto error =
            thrownBy([&] { h.allReduce(data, fm::ReduceOp::Sum, fm::Algorithm::Cartesian2Step); });
        CHECK(contains(error.message(), "level 1"));
        CHECK(contains(error.message(), "1 to " + std::to_string(P - 1) + " ranks"));
        CHECK(inThisFile(error));
    }
    const auto ring = thrownBy([&] { h.allReduce(data, fm::ReduceOp::Sum, fm::Algorithm::Ring); });
    CHECK(contains(ring.message(), "Ring"));
    CHECK(inThisFile(ring));
    const auto level = thrownBy([&] { h.setCommunicator(5); });
    CHECK(contains(level.message(), "level 5 is out of range"));
    CHECK(inThisFile(level));
    CHECK_THROWS_AS(h.inner(-1), fieldsync::Error);
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> matrix("matrix", 4, 2);
    const auto column = Kokkos::subview(matrix, Kokkos::ALL, 0);
    const auto strided =
        thrownBy([&] { h.allReduce(column, fm::ReduceOp::Sum, fm::Algorithm::NodeAware); });
    CHECK(contains(strided.message(), "not contiguous"));
}

TEST_CASE("doc/hierarchy.md example", "[hierarchy][doc]")
{
    const fm::MPIEnvironment env;
    const int rank = env.rank();
    // [hierarchy-example]
    auto hierarchy = fm::CommunicatorHierarchy::withDefaults(env); // "global", then the node
    hierarchy.pushCommunicator(std::to_string(rank / 2));          // pairs inside each node
    std::vector<double> residuals(10, 1.0);
    const auto algorithm =
        hierarchy.isCartesian() ? fm::Algorithm::Cartesian2Step : fm::Algorithm::Tree3Step;
    hierarchy.allReduce(residuals, fm::ReduceOp::Sum, algorithm); // over the node, pair-wise
    hierarchy.popCommunicator(); // back to the node level: reduces over all ranks
    Kokkos::View<double*> flux("flux", 7);
    Kokkos::deep_copy(flux, 1.0);
    hierarchy.allReduce(flux, fm::ReduceOp::Sum, fm::Algorithm::NodeAware);
    // [hierarchy-example]
    // level 2 reduces over its full communicator, the node: in pairs, then across them
    CHECK(residuals[9] == static_cast<double>(hierarchy.inner(1).sizeRank()));
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace {}, flux);
    CHECK(host(6) == static_cast<double>(env.sizeRank()));
}
