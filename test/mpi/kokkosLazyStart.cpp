// SPDX-License-Identifier: MIT
// The seed's and the README's programs never call Kokkos::initialize: MPIInit leaves Kokkos
// alone, fieldsync starts it at its first allocation (here a FullDuplexCommBuffer's claim),
// and the MPIInit finalises it at its end. Afterwards Kokkos cannot start again, and saying so
// is an Error. The exchange is checked against values each rank computes itself.
#include "allToAllCheck.hpp"

#include "fieldsync/fieldsync.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    bool right { true };
    {
        fieldsync::mpi::MPIInit init(argc, argv);
        right = right && !Kokkos::is_initialized() && !init.ownsKokkos();
        const fieldsync::mpi::MPIEnvironment env;
        const std::vector<std::size_t> ones(static_cast<std::size_t>(env.sizeRank()), 1);
        fieldsync::mpi::FullDuplexCommBuffer<> buffer(env, ones, ones);
        right = right && fieldsync_test::allToAllThrough(env, buffer, "lazy start");
        right = right && Kokkos::is_initialized() && init.ownsKokkos();
    }
    right = right && !Kokkos::is_initialized();
#if KOKKOS_VERSION >= 30700
    right = right && Kokkos::is_finalized();
#endif
    try
    {
        fieldsync::mpi::ensureKokkos();
        right = false;
    }
    catch (const fieldsync::Error& error)
    {
        right = right && std::string(error.what()).find("already finalised") != std::string::npos;
    }
    std::printf("lazy Kokkos: %s\n", right ? "right" : "WRONG");
    return right ? 0 : 1;
}
