// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/mpiInit.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <string>
#include <vector>

namespace fieldsync::mpi
{

namespace
{
int toMpi(ThreadLevel level)
{
    switch (level)
    {
    case ThreadLevel::Single:
        return MPI_THREAD_SINGLE;
    case ThreadLevel::Funneled:
        return MPI_THREAD_FUNNELED;
    case ThreadLevel::Serialized:
        return MPI_THREAD_SERIALIZED;
    case ThreadLevel::Multiple:
        return MPI_THREAD_MULTIPLE;
    }
    return MPI_THREAD_MULTIPLE;
}

ThreadLevel fromMpi(int level)
{
    if (level >= MPI_THREAD_MULTIPLE)
    {
        return ThreadLevel::Multiple;
    }
    if (level >= MPI_THREAD_SERIALIZED)
    {
        return ThreadLevel::Serialized;
    }
    if (level >= MPI_THREAD_FUNNELED)
    {
        return ThreadLevel::Funneled;
    }
    return ThreadLevel::Single;
}
} // namespace

namespace
{
/** Logs the objects that outlive this MPIInit and a deferred error nobody raised. Objects in
 * flight are not waited for: a peer may never complete them. */
void reportAtEnd() noexcept
{
    try
    {
        const std::vector<std::string> live = liveObjects();
        std::string text;
        for (const std::string& object : live)
        {
            text.append(text.empty() ? "" : "; ").append(object);
        }
        if (!live.empty())
        {
            logger().warn(
                "MPIInit ends while {} fieldsync object(s) still live; they are left allocated "
                "(never freed after MPI and Kokkos end; destroy them before the MPIInit): {}",
                live.size(),
                text
            );
        }
        const std::string deferred = takeDeferredError();
        if (!deferred.empty())
        {
            logger().error("MPIInit ends with an error nobody raised (check mode): {}", deferred);
        }
    }
    catch (...) // logging failed: nothing more can be said at exit
    {
    }
}
} // namespace

const char* toString(ThreadLevel level) noexcept
{
    switch (level)
    {
    case ThreadLevel::Single:
        return "Single";
    case ThreadLevel::Funneled:
        return "Funneled";
    case ThreadLevel::Serialized:
        return "Serialized";
    case ThreadLevel::Multiple:
        return "Multiple";
    }
    return "unknown";
}

MPIInit::MPIInit(
    int& argc,
    char**& argv,
    ThreadLevel required,
    WorldErrors worldErrors,
    std::source_location where
)
{
    int initialised { 0 };
    int finalised { 0 };
    FIELDSYNC_MPI_AT(MPI_Initialized(&initialised), where);
    FIELDSYNC_MPI_AT(MPI_Finalized(&finalised), where);
    FIELDSYNC_CHECK_AT(
        !finalised,
        "MPIInit: MPI was already finalised in this process (by an earlier MPIInit or "
        "MPI_Finalize); MPI cannot be initialised twice: keep one MPIInit for the whole program",
        where
    );
    int providedMpi { MPI_THREAD_SINGLE };
    if (initialised)
    {
        FIELDSYNC_MPI_AT(MPI_Query_thread(&providedMpi), where);
    }
    else
    {
        FIELDSYNC_MPI_AT(MPI_Init_thread(&argc, &argv, toMpi(required), &providedMpi), where);
        ownsMpi_ = true;
        if (worldErrors == WorldErrors::Return)
        {
            FIELDSYNC_MPI_AT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), where);
        }
    }
    // check mode: the set-up agreement's private duplicate of world, made while every rank is
    // here (made later, by the first set-up call, a rank that skips that call would leave it
    // pending on world)
    prepareSetUpAgreement(MPI_COMM_WORLD, where);
    provided_ = fromMpi(providedMpi);
    if (static_cast<int>(provided_) < static_cast<int>(required))
    {
        const std::string message = std::string("MPIInit: MPI thread level ") + toString(required) +
                                    " required, but the MPI library provides only " +
                                    toString(provided_);
        Error error(message, where);
        if (ownsMpi_)
        {
            MPI_Finalize();
        }
        throw error;
    }
    if (!Kokkos::is_initialized())
    {
        Kokkos::initialize(argc, argv);
        ownsKokkos_ = true;
    }
    logger().debug(
        "MPIInit: MPI thread level {} (owns MPI: {}, owns Kokkos: {})",
        toString(provided_),
        ownsMpi_,
        ownsKokkos_
    );
}

MPIInit::~MPIInit()
{
    if (ownsKokkos_ || ownsMpi_)
    {
        reportAtEnd();
        markRuntimeEnded();
    }
    if (ownsKokkos_)
    {
        Kokkos::finalize();
    }
    if (ownsMpi_)
    {
        int finalised { 0 };
        MPI_Finalized(&finalised);
        if (!finalised)
        {
            MPI_Finalize();
        }
    }
}

} // namespace fieldsync::mpi
