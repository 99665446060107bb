// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace fieldsync::halo
{

/**
 * @brief Telemetry of one key of a Communicator (forward or reverse): how often it ran, what
 * it moved and where its time went, accumulated since the key's first start or the last
 * Communicator::resetStats().
 *
 * Counted at each start: `exchanges`, and the MPI messages and bytes posted (self messages are
 * local copies and not counted; in-place neighbours are counted, they are messages too).
 * `bytesReceived` is what the receive map expects, which is what arrived: a message of another
 * size is an Error. Times come from the Communicator's telemetry clock (the time-stamp counter
 * where the kernel trusts it, converted with a factor measured against std::chrono::steady_clock
 * without a calibration loop; else steady_clock),
 * read a few times per exchange (no allocation): `packSeconds` is the pack (kernels or plain
 * copies, and the fence that ends them), `postSeconds` the rest of startComm (key look-up, claim of
 * the pooled buffer, posting receives and sends, self copy), `waitSeconds` the time in waitComplete
 * / isComplete and in the wait of finaliseComm, `unpackSeconds` the rest of finaliseComm (unpack
 * kernels, fence, release; 0 when every neighbour is received in place).
 */
struct ExchangeStats
{
    std::uint64_t exchanges { 0 };     /**< exchanges started */
    std::uint64_t messages { 0 };      /**< MPI messages posted, sends plus receives */
    std::uint64_t bytesSent { 0 };     /**< bytes of the sends posted */
    std::uint64_t bytesReceived { 0 }; /**< bytes of the receives posted */
    double packSeconds { 0.0 };        /**< packing the send cells */
    double postSeconds { 0.0 };        /**< the rest of the start: look-up, claim, posting */
    double waitSeconds { 0.0 };        /**< waiting for completion */
    double unpackSeconds { 0.0 };      /**< unpacking the ghost cells and releasing */
};

} // namespace fieldsync::halo
