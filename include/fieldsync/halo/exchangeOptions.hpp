// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <cstddef>
#include <optional>

namespace fieldsync::halo
{

/**
 * @brief How a Communicator's exchanges run: its knobs, changed with Communicator::setOptions
 * between exchanges and read back with Communicator::options(). Where CommitOptions says how the
 * pattern is checked and moved (once, at commit), these say how each exchange runs; a start reads
 * them, so a change holds from each key's next start on (an exchange in flight keeps its own).
 *
 * A default ExchangeOptions is what a Communicator starts with. Change one knob by reading the
 * others first: `auto options = comm.options(); options.inPlace = false;
 * comm.setOptions(options);`.
 */
struct ExchangeOptions
{
    /** @brief persistentFrom's value for "never": MPI_Isend/MPI_Irecv at every size. */
    static constexpr std::size_t neverPersistent = static_cast<std::size_t>(-1);

    /**
     * @brief The time-out policy of the waits (mpi::WaitPolicy: seconds, then warn or throw);
     * empty: the environment's (FIELDSYNC_WAIT_TIMEOUT, FIELDSYNC_WAIT_TIMEOUT_ACTION), read when
     * the Communicator is made or setOptions is called. Communicator::options() has it filled in.
     * Its seconds must be finite and greater than 0.
     */
    std::optional<mpi::WaitPolicy> waitPolicy {};
    /**
     * @brief Point-to-point back end: persistent requests (MPI_Send_init/MPI_Recv_init, then
     * MPI_Startall) for an exchange whose largest message to one neighbour has at least this many
     * bytes, MPI_Isend/MPI_Irecv below; 0: always persistent; neverPersistent: never.
     */
    std::size_t persistentFrom { 512 };
    /**
     * @brief Staging::Auto: messages go through host memory only where MPI cannot reach the
     * field's memory; Staging::Always: always (tests the device path on a host build).
     */
    mpi::Staging staging { mpi::Staging::Auto };
    /**
     * @brief Neighbours whose cells are one ascending run go to MPI from and into the field
     * directly, without pack or unpack (doc/halo.md, "In place"); false: always through the
     * buffer.
     */
    bool inPlace { true };
    /**
     * @brief true: time pack, post, wait and unpack in ExchangeStats (four to six clock reads per
     * exchange, a few percent of a small one); false (the default): only the counters are kept.
     */
    bool timing { false };
};

} // namespace fieldsync::halo
