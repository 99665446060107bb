// SPDX-License-Identifier: MIT
// The registry of exchange back ends (src/halo/backEnds.hpp) against the names the user guide
// gives (README.md, "Settings"; doc/topology.md, "Back ends"): each back end this build has is
// listed once, FIELDSYNC_HALO_BACKEND selects each by its name and its exchange delivers every
// ghost, and an unknown name is an Error naming every registered one.
#include "fieldsync_test/catch.hpp"

#include "backEnds.hpp"
#include "haloPatterns.hpp"

#include "fieldsync/config.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/halo/communicator.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>

using fieldsync::halo::BackEnd;
using fieldsync::halo::BackEndEntry;
using fieldsync::halo::Communicator;
namespace mpi = fieldsync::mpi;

namespace
{
/** @brief What the user guide says of one back end, and whether this build has it. */
struct Expected
{
    BackEnd value;        /**< its public value */
    const char* name;     /**< its FIELDSYNC_HALO_BACKEND name */
    const char* typeName; /**< toString's spelling */
    bool available;       /**< this build has it (fieldsync/config.hpp) */
};

constexpr Expected expected[] {
    { BackEnd::PointToPoint, "p2p", "PointToPoint", true },
    { BackEnd::NeighbourCollective, "neighbour", "NeighbourCollective", true },
    { BackEnd::PersistentNeighbour,
      "neighbour-persistent",
      "PersistentNeighbour",
      FIELDSYNC_HAVE_PERSISTENT_NEIGHBOUR != 0 },
};

/** @brief FIELDSYNC_HALO_BACKEND set to a value for the scope, restored after. */
class ScopedSetting
{
public:
    explicit ScopedSetting(const char* value)
    {
        const char* before = std::getenv(variable);
        had_ = before != nullptr;
        saved_ = had_ ? before : "";
        setenv(variable, value, 1);
    }
    ~ScopedSetting()
    {
        if (had_)
        {
            setenv(variable, saved_.c_str(), 1);
        }
        else
        {
            unsetenv(variable);
        }
    }
    ScopedSetting(const ScopedSetting&) = delete;
    ScopedSetting& operator=(const ScopedSetting&) = delete;

private:
    static constexpr const char* variable { "FIELDSYNC_HALO_BACKEND" };
    bool had_ { false };
    std::string saved_;
};
} // namespace

TEST_CASE("back ends: the registry lists each back end once, with its names")
{
    const auto registered = fieldsync::halo::backEnds();
    REQUIRE(registered.size() == std::size(expected));
    std::set<std::string> names;
    for (const Expected& e : expected)
    {
        CAPTURE(e.name);
        const auto isIt = [&](const BackEndEntry* entry)
        {
            return entry->value == e.value;
        };
        REQUIRE(std::count_if(registered.begin(), registered.end(), isIt) == 1);
        const BackEndEntry& entry = **std::find_if(registered.begin(), registered.end(), isIt);
        REQUIRE(std::string(entry.name) == e.name);
        REQUIRE(std::string(fieldsync::halo::toString(e.value)) == e.typeName);
        REQUIRE(entry.available() == e.available);
        REQUIRE(entry.collective == (e.value != BackEnd::PointToPoint));
        names.insert(entry.name);
    }
    REQUIRE(names.size() == std::size(expected));
    REQUIRE(std::string(fieldsync::halo::toString(BackEnd::Auto)) == "Auto");
}

TEST_CASE("back ends: FIELDSYNC_HALO_BACKEND selects each available one by its name")
{
    const mpi::MPIEnvironment env;
    const auto setup = fieldsync::test::makeSetup(
        env.rank(), env.sizeRank(), fieldsync::test::Shape::Ring, 3, 4, true
    );
    for (const Expected& e : expected)
    {
        if (!e.available)
        {
            continue; // asking for it is an Error: test/halo/persistentNeighbour.cpp
        }
        CAPTURE(e.name);
        const ScopedSetting setting(e.name);
        Communicator comm(env, setup.send, setup.receive);
        REQUIRE(comm.backEnd() == e.value);
        Kokkos::View<double*, Kokkos::HostSpace> field(
            "field", static_cast<std::size_t>(setup.nLocal)
        );
        for (int step = 0; step < 2; ++step)
        {
            for (int i = 0; i < setup.nLocal; ++i)
            {
                const auto g = setup.globalId[static_cast<std::size_t>(i)];
                field(i) = i < setup.nOwned ? fieldsync::test::truth(g, 0, step) : -1.0;
            }
            comm.startComm(field);
            comm.finaliseComm(field);
            for (int i = setup.nOwned; i < setup.nLocal; ++i)
            {
                REQUIRE(
                    field(i) ==
                    fieldsync::test::truth(setup.globalId[static_cast<std::size_t>(i)], 0, step)
                );
            }
        }
    }
}

TEST_CASE("back ends: an unknown FIELDSYNC_HALO_BACKEND is an Error naming every registered one")
{
    const mpi::MPIEnvironment env;
    const auto setup = fieldsync::test::makeSetup(
        env.rank(), env.sizeRank(), fieldsync::test::Shape::Ring, 3, 4, true
    );
    const ScopedSetting setting("pigeon-post");
    REQUIRE_THROWS_WITH(
        Communicator(env, setup.send, setup.receive),
        Catch::Contains("FIELDSYNC_HALO_BACKEND='pigeon-post' is none of "
                        "p2p, neighbour, neighbour-persistent, auto")
    );
}
