// SPDX-License-Identifier: MIT
// Test support: which host each rank runs on, from uname(2) and raw MPI only, so that the node
// level of a communicator (MPI_Comm_split_type, CommunicatorHierarchy) can be checked against a
// truth that does not come from the code under test. tools/two-hosts.sh runs the tests on two
// hosts and sets FIELDSYNC_EXPECT_NODES=2, so that a run that silently stayed on one host fails.
#pragma once

#include <mpi.h>
#include <sys/utsname.h>

#include <cstddef>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace fieldsync::test
{

/** @brief This process's host name (uname's nodename; the UTS namespace's in a container). */
inline std::string hostName()
{
    utsname name {};
    ::uname(&name);
    return std::string(name.nodename);
}

/** @brief Collective over @p comm: the host name of each of its ranks, in rank order. */
inline std::vector<std::string> hostNamesOf(MPI_Comm comm)
{
    constexpr std::size_t width { sizeof(utsname::nodename) };
    std::string mine { hostName() };
    mine.resize(width, '\0');
    int size { 0 };
    MPI_Comm_size(comm, &size);
    std::vector<char> all(width * static_cast<std::size_t>(size));
    MPI_Allgather(
        mine.data(),
        static_cast<int>(width),
        MPI_CHAR,
        all.data(),
        static_cast<int>(width),
        MPI_CHAR,
        comm
    );
    std::vector<std::string> names;
    for (std::size_t r { 0 }; r < static_cast<std::size_t>(size); ++r)
    {
        names.emplace_back(all.data() + r * width);
    }
    return names;
}

/** @brief The number of distinct names in @p names. */
inline int distinctHosts(const std::vector<std::string>& names)
{
    return static_cast<int>(std::set<std::string>(names.begin(), names.end()).size());
}

/** @brief FIELDSYNC_EXPECT_NODES (the hosts a multi-host run must span), 0 when not set. */
inline int expectedNodes()
{
    const char* value { std::getenv("FIELDSYNC_EXPECT_NODES") };
    return value == nullptr ? 0 : std::atoi(value);
}

} // namespace fieldsync::test
