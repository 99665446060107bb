// SPDX-License-Identifier: MIT
// Internal: the exchange back ends by name (doc/architecture.md, "Adding a back end"). Each back
// end is one file that defines its BackEndEntry; the registry (backEnds.cpp) lists them. Only
// commit consults the registry: the exchange steps see the chosen back end's set-up state.
#pragma once

#include "exchange.hpp"
#include "pattern.hpp"

#include "fieldsync/halo/commitOptions.hpp"
#include "fieldsync/halo/duplexBuffer.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <cstddef>
#include <memory>
#include <source_location>
#include <span>

namespace fieldsync::halo
{

/**
 * @brief What a back end sets up at commit on one Communicator (its graph communicators, the
 * transports bound to each pool buffer), and how it gives a buffer its transports. Destroyed
 * with the Communicator, after its buffers.
 */
class BackEndSetUp
{
public:
    virtual ~BackEndSetUp() = default;

    /**
     * @brief Gives @p buffer (pool entry @p entry, claimed by @p exchange, staging already set:
     * where the messages lie is known) this back end's transports, where it has none fit for
     * the exchange yet. Called at every claim, so it decides quickly that nothing changed.
     */
    virtual void install(Exchange& exchange, DuplexBuffer& buffer, std::size_t entry) = 0;

    /** @brief The pool was emptied (BackEnd::Auto's probes): forgets what its buffers held. */
    virtual void forgetBuffers() noexcept {}
};

/** @brief One registered back end: its names, its traits, its factory. */
struct BackEndEntry
{
    BackEnd value;        /**< its public value (CommitOptions::backEnd, Communicator::backEnd) */
    const char* typeName; /**< its enumerator's spelling, toString(BackEnd) ("PointToPoint") */
    const char* name;     /**< its FIELDSYNC_HALO_BACKEND name ("p2p"), also in the log */
    const char* needs;    /**< what it needs of MPI, for the Error where it is not available */
    bool collective;      /**< a neighbourhood collective: no MPI tag, no message in place */
    bool (*available)() noexcept; /**< this build's MPI library has it (the same on all ranks) */
    /**
     * @brief Collective: its set-up state for @p pattern on @p env (null: none needed; every
     * buffer then moves its messages point-to-point, DuplexBuffer's default).
     */
    std::unique_ptr<BackEndSetUp> (*makeSetUp
    )(const Pattern& pattern, const mpi::MPIEnvironment& env, const std::source_location& where);
};

/** @brief The distributed graph communicators the neighbourhood back ends run on. */
struct NeighbourGraphs
{
    mpi::MPIEnvironment forward; /**< sources: receive map, destinations: send map */
    mpi::MPIEnvironment reverse; /**< the same, reversed */
};

/** @brief Collective: the graphs of @p pattern's neighbours on @p env (neighbourCollective.cpp). */
[[nodiscard]] NeighbourGraphs makeNeighbourGraphs(
    const Pattern& pattern, const mpi::MPIEnvironment& env, const std::source_location& where
);

/** @brief Every registered back end, in the registry's order (the same on every rank). */
[[nodiscard]] std::span<const BackEndEntry* const> backEnds() noexcept;

/**
 * @brief The back end @p options or FIELDSYNC_HALO_BACKEND asks for (null: BackEnd::Auto); an
 * unknown name, or one the MPI library lacks, is an Error (the same on every rank) naming the
 * registered names.
 */
[[nodiscard]] const BackEndEntry*
chooseBackEnd(const CommitOptions& options, const std::source_location& where);

} // namespace fieldsync::halo
