// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/mpiInit.hpp"

#include "fieldsync/mpi/detail/privateComm.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <atomic>
#include <mutex>
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

namespace
{
/** What fieldsync knows about Kokkos: who started it, whether it ended, the arguments to give. */
struct KokkosOwnership
{
    std::mutex mutex;                    /**< one start at a time */
    int liveInits { 0 };                 /**< MPIInit objects alive */
    bool started { false };              /**< fieldsync called Kokkos::initialize */
    std::atomic<bool> watched { false }; /**< the finalize hook below is pushed */
    std::atomic<bool> ended { false };   /**< Kokkos::finalize ran (seen by that hook) */
    std::vector<std::string> arguments;  /**< the program's arguments, from the first MPIInit */
};

KokkosOwnership& kokkosOwnership()
{
    static KokkosOwnership ownership;
    return ownership;
}

/** Learns when Kokkos ends, whoever ends it (Kokkos 3.4 has no Kokkos::is_finalized). */
void watchKokkosEnd(KokkosOwnership& ownership)
{
    if (!ownership.watched.exchange(true))
    {
        Kokkos::push_finalize_hook(
            []
            {
                kokkosOwnership().ended = true;
                kokkosOwnership().watched = false;
            }
        );
    }
}

bool kokkosEnded(const KokkosOwnership& ownership)
{
#if KOKKOS_VERSION >= 30700
    return Kokkos::is_finalized() || ownership.ended;
#else
    return ownership.ended;
#endif
}

/** Kokkos::initialize with a copy of the program's arguments (Kokkos may remove its own). */
void startKokkos(KokkosOwnership& ownership)
{
    std::vector<std::string> copies = ownership.arguments;
    std::vector<char*> argv;
    for (std::string& argument : copies)
    {
        argv.push_back(argument.data());
    }
    argv.push_back(nullptr);
    int argc { static_cast<int>(copies.size()) };
    Kokkos::initialize(argc, argv.data());
    ownership.started = true;
}
} // namespace

void ensureKokkos(std::source_location where)
{
    KokkosOwnership& ownership = kokkosOwnership();
    if (Kokkos::is_initialized())
    {
        if (!ownership.watched.load(std::memory_order_relaxed))
        {
            watchKokkosEnd(ownership);
        }
        return;
    }
    const std::lock_guard lock(ownership.mutex);
    if (Kokkos::is_initialized())
    {
        return;
    }
    FIELDSYNC_CHECK_AT(
        !kokkosEnded(ownership),
        "Kokkos was already finalised and cannot start again: destroy fieldsync objects (and "
        "make none) after Kokkos::finalize",
        where
    );
    FIELDSYNC_CHECK_AT(
        ownership.liveInits > 0,
        "Kokkos is not initialised: call Kokkos::initialize (or hold a Kokkos::ScopeGuard), or "
        "construct a fieldsync::mpi::MPIInit, which starts Kokkos when fieldsync first needs it",
        where
    );
    startKokkos(ownership);
    watchKokkosEnd(ownership);
    logger().debug("fieldsync started Kokkos (MPIInit finalises it)");
}

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
    // the set-up agreement's private duplicate of world, made while every rank is
    // here (made later, by the first set-up call, a rank that skips that call would leave it
    // pending on world)
    prepareSetUpAgreement(MPI_COMM_WORLD, where);
    // the library's private duplicate of world, made while every rank is here
    detail::makePrivateComm(MPI_COMM_WORLD, where);
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
    KokkosOwnership& ownership = kokkosOwnership();
    {
        const std::lock_guard lock(ownership.mutex);
        first_ = ownership.liveInits++ == 0;
        if (first_ && argv != nullptr)
        {
            ownership.arguments.assign(argv, argv + argc);
        }
    }
    if (first_)
    {
        int rank { 0 };
        FIELDSYNC_MPI_AT(MPI_Comm_rank(MPI_COMM_WORLD, &rank), where);
        static_cast<void>(logSettings(rank));
    }
    logger().debug(
        "MPIInit: MPI thread level {} (owns MPI: {}; Kokkos started when fieldsync needs it)",
        toString(provided_),
        ownsMpi_
    );
}

MPIInit::MPIInit(
    int&& argc,
    char**&& argv,
    ThreadLevel required,
    WorldErrors worldErrors,
    std::source_location where
)
    : MPIInit(argc, argv, required, worldErrors, where)
{
}

bool MPIInit::ownsKokkos() const noexcept
{
    return first_ && kokkosOwnership().started;
}

MPIInit::~MPIInit()
{
    KokkosOwnership& ownership = kokkosOwnership();
    bool endKokkos { false };
    {
        const std::lock_guard lock(ownership.mutex);
        --ownership.liveInits;
        // only what fieldsync started, and only while it still runs (the program may have
        // finalised it: Kokkos 4 aborts on a second finalize)
        endKokkos = first_ && ownership.started && Kokkos::is_initialized();
    }
    if (endKokkos || ownsMpi_)
    {
        reportAtEnd();
        markRuntimeEnded();
    }
    if (endKokkos)
    {
        Kokkos::finalize();
        ownership.started = false;
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
