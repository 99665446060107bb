// SPDX-License-Identifier: MIT
#pragma once

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

/** @brief The name of a thread level, for messages ("Funneled", ...). */
[[nodiscard]] const char* toString(ThreadLevel level) noexcept;

/**
 * @brief RAII start and stop of MPI and Kokkos for a program.
 *
 * The constructor calls MPI_Init_thread (unless MPI is already initialised, in which case it
 * neither initialises nor finalises MPI) and Kokkos::initialize (unless Kokkos already is).
 * The destructor finalises what the constructor initialised, Kokkos before MPI.
 *
 * @throws Error when the MPI library provides less than @p required; MPI is finalised again
 * first if this object initialised it, so nothing is left half started.
 */
class MPIInit
{
public:
    /**
     * @brief Starts MPI with at least @p required thread support, then Kokkos.
     * @param argc, argv the program's arguments; both libraries may consume their own options.
     */
    MPIInit(int& argc, char**& argv, ThreadLevel required = ThreadLevel::Funneled);

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
