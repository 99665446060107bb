// SPDX-License-Identifier: MIT
// Lifetimes: an MPIEnvironment or a collective used after the MPIInit ended, and a second
// MPIInit, are fieldsync::Errors (not an abort inside MPI). Prints one line per Error.
#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <cstdio>
#include <functional>
#include <optional>

namespace fm = fieldsync::mpi;

namespace
{
int raised { 0 };

void expectError(const char* what, const std::function<void()>& call)
{
    try
    {
        call();
        std::printf("%s: no error\n", what);
    }
    catch (const fieldsync::Error& error)
    {
        ++raised;
        std::printf("%s: %s\n", what, error.what());
    }
}
} // namespace

int main(int argc, char** argv)
{
    std::optional<fm::MPIEnvironment> env;
    {
        const fm::MPIInit init(argc, argv);
        env.emplace();
    }
    expectError("duplicate", [&] { static_cast<void>(env->duplicate()); });
    expectError(
        "allReduce",
        [&]
        {
            double value { 1.0 };
            fm::allReduce(value, fm::ReduceOp::Sum, env->comm());
        }
    );
    expectError("second MPIInit", [&] { const fm::MPIInit again(argc, argv); });
    std::printf("%d lifetime errors raised\n", raised);
    return raised == 3 ? 0 : 1;
}
