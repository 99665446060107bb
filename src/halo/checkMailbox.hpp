// SPDX-License-Identifier: MIT
// Internal: the check-mode headers a Communicator received and no exchange took yet
// (doc/reliability.md, "Check mode of the halo exchange").
#pragma once

#include "exchangeCheck.hpp"

#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include <mpi.h>

namespace fieldsync::halo
{

/**
 * @brief Every check-mode header that arrived on a Communicator's check tag, until an exchange
 * takes it. Headers are matched to exchanges by sender and key, so ranks may start the
 * exchanges they share in different orders; MPI keeps one sender's messages in order, so a
 * sender's headers of one key are taken in its start order. Every header a correct program
 * sends is taken by the exchange it belongs to: nothing is left unreceived.
 */
class CheckMailbox
{
public:
    /**
     * @brief Takes only headers of the Communicator @p id from now on: one queued for a freed
     * Communicator and received by a later one that reuses its MPI context is dropped.
     */
    void accept(std::uint64_t id) noexcept { id_ = id; }

    /** @brief Receives everything that arrived on @p tag of @p comm (never blocks). */
    void pump(MPI_Comm comm, int tag, const std::source_location& where);

    /**
     * @brief Moves the oldest header from @p source of the exchange @p key (hash with the
     * reverse bit) into @p out; false when none arrived.
     */
    bool take(int source, std::uint64_t key, CheckHeader& out);

    /**
     * @brief Moves the oldest header from @p source of an exchange other than @p key into
     * @p out (what that rank started instead); false when none arrived.
     */
    bool takeOther(int source, std::uint64_t key, CheckHeader& out);

    /** @brief What arrived from @p source that no exchange took, for time-out reports. */
    [[nodiscard]] std::string describe(int source) const;

private:
    /** @brief One header and its sender. */
    struct Arrival
    {
        int source { 0 };      /**< the sender's rank */
        CheckHeader header {}; /**< its header */
    };

    /** @brief Moves the oldest arrival that @p match accepts into @p out. */
    bool takeIf(CheckHeader& out, const std::function<bool(const Arrival&)>& match);

    std::vector<Arrival> arrived_; /**< in arrival order */
    std::uint64_t id_ { 0 };       /**< the Communicator whose headers are kept */
};

} // namespace fieldsync::halo
