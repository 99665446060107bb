// SPDX-License-Identifier: MIT
#pragma once

#include <source_location>

namespace fieldsync::mpi
{

/** @brief MPI thread support levels, in increasing order (MPI_THREAD_SINGLE ... MULTIPLE). */
enum class ThreadLevel
{
    Single,     /**< MPI_THREAD_SINGLE */
    Funneled,   /**< MPI_THREAD_FUNNELED: only the main thread calls MPI (Kokkos OpenMP) */
    Serialized, /**< MPI_THREAD_SERIALIZED */
    Multiple    /**< MPI_THREAD_MULTIPLE */
};

/** @brief What MPIInit does with MPI_COMM_WORLD's error handler when it initialises MPI. */
enum class WorldErrors
{
    Return, /**< MPI_ERRORS_RETURN: failing MPI calls become a fieldsync::Error (the default) */
    Keep    /**< leave MPI's handler (MPI_ERRORS_ARE_FATAL: the job aborts in MPI) */
};

/** @brief The name of a thread level, for messages ("Funneled", ...). */
[[nodiscard]] const char* toString(ThreadLevel level) noexcept;

/**
 * @brief RAII start and stop of MPI (and of Kokkos, when fieldsync started it) for a program.
 *
 * The constructor calls MPI_Init_thread (unless MPI is already initialised, in which case it
 * neither initialises nor finalises MPI). It does not start Kokkos: fieldsync starts Kokkos
 * when it first needs it (a Communicator made, its first allocation, or ensureKokkos()) and
 * nobody has, with the arguments given here. So a NeoN program that calls Kokkos::initialize
 * after its MPIInit and Kokkos::finalize before the MPIInit ends runs unchanged (Kokkos 4
 * aborts on a second initialize or finalize), and a program that never calls
 * Kokkos::initialize works too.
 * The destructor finalises Kokkos only when fieldsync started it and it is still running (only
 * the first of nested MPIInit objects does), then MPI if this object initialised it.
 *
 * When it initialises MPI, it sets MPI_ERRORS_RETURN on MPI_COMM_WORLD (unless asked for
 * WorldErrors::Keep), so a failing collective on world (different counts on different ranks:
 * MPI_ERR_TRUNCATE) is a fieldsync::Error, not an abort inside MPI. When the application
 * initialised MPI itself, its handler on MPI_COMM_WORLD is left alone: it chose it.
 *
 * @throws Error when the MPI library provides less than @p required (MPI is finalised again
 * first if this object initialised it, so nothing is left half started), and when MPI was
 * already finalised (MPI cannot be started twice in one process).
 */
class MPIInit
{
public:
    /**
     * @brief Starts MPI with at least @p required thread support; keeps a copy of the arguments
     * for Kokkos, should fieldsync start it.
     * @param argc, argv the program's arguments; MPI may consume its own options.
     * @param required the least thread level the program needs.
     * @param worldErrors the error handler of MPI_COMM_WORLD, when this object initialises MPI.
     * @param where the caller's call site, named by the Errors it raises.
     */
    MPIInit(
        int& argc,
        char**& argv,
        ThreadLevel required = ThreadLevel::Funneled,
        WorldErrors worldErrors = WorldErrors::Return,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief NeoN's MPIInit(argc, argv) by value, so that MPIInit(0, nullptr) compiles; as the
     * constructor above on copies of @p argc and @p argv.
     */
    MPIInit(
        int&& argc,
        char**&& argv,
        ThreadLevel required = ThreadLevel::Funneled,
        WorldErrors worldErrors = WorldErrors::Return,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief Finalises Kokkos when fieldsync started it and it still runs (the first MPIInit
     * only), then MPI if this object initialised it.
     */
    ~MPIInit();

    MPIInit(const MPIInit&) = delete;
    MPIInit& operator=(const MPIInit&) = delete;
    MPIInit(MPIInit&&) = delete;
    MPIInit& operator=(MPIInit&&) = delete;

    /** @brief The thread level the MPI library provides. */
    [[nodiscard]] ThreadLevel provided() const noexcept { return provided_; }

    /** @brief Whether this object initialised (and will finalise) MPI. */
    [[nodiscard]] bool ownsMpi() const noexcept { return ownsMpi_; }

    /**
     * @brief Whether this object will finalise Kokkos: fieldsync started Kokkos (ensureKokkos)
     * and this is the first of the live MPIInit objects.
     */
    [[nodiscard]] bool ownsKokkos() const noexcept;

private:
    ThreadLevel provided_ { ThreadLevel::Single }; /**< level MPI provides */
    bool ownsMpi_ { false };                       /**< finalise MPI in the destructor */
    bool first_ { false }; /**< the first live MPIInit: finalises a Kokkos fieldsync started */
};

/**
 * @brief Starts Kokkos unless it is running: fieldsync calls it before its first allocation in
 * any memory space and when a Communicator is made; a program that makes Kokkos views itself
 * without calling Kokkos::initialize calls it once after its MPIInit. Kokkos started here gets
 * the arguments given to the MPIInit and is finalised by it. Never finalises, and never starts
 * Kokkos twice.
 * @throws Error naming @p where when Kokkos is not running and no MPIInit is alive (call
 * Kokkos::initialize, or make an MPIInit), or when Kokkos was already finalised (it cannot
 * start again).
 */
void ensureKokkos(std::source_location where = std::source_location::current());

} // namespace fieldsync::mpi
