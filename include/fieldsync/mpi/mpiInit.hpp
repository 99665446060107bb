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
 * @brief RAII start and stop of MPI and Kokkos for a program.
 *
 * The constructor calls MPI_Init_thread (unless MPI is already initialised, in which case it
 * neither initialises nor finalises MPI) and Kokkos::initialize (unless Kokkos already is).
 * The destructor finalises what the constructor initialised, Kokkos before MPI.
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
     * @brief Starts MPI with at least @p required thread support, then Kokkos.
     * @param argc, argv the program's arguments; both libraries may consume their own options.
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

    /** @brief Finalises Kokkos, then MPI, each only if this object initialised it. */
    ~MPIInit();

    MPIInit(const MPIInit&) = delete;
    MPIInit& operator=(const MPIInit&) = delete;
    MPIInit(MPIInit&&) = delete;
    MPIInit& operator=(MPIInit&&) = delete;

    /** @brief The thread level the MPI library provides. */
    [[nodiscard]] ThreadLevel provided() const noexcept { return provided_; }

    /** @brief Whether this object initialised (and will finalise) MPI. */
    [[nodiscard]] bool ownsMpi() const noexcept { return ownsMpi_; }

    /** @brief Whether this object initialised (and will finalise) Kokkos. */
    [[nodiscard]] bool ownsKokkos() const noexcept { return ownsKokkos_; }

private:
    ThreadLevel provided_ { ThreadLevel::Single }; /**< level MPI provides */
    bool ownsMpi_ { false };                       /**< finalise MPI in the destructor */
    bool ownsKokkos_ { false };                    /**< finalise Kokkos in the destructor */
};

} // namespace fieldsync::mpi
