// SPDX-License-Identifier: MIT
// Internal: the state of one key of a Communicator.
#pragma once

#include "exchangeCheck.hpp"
#include "packPlan.hpp"

#include "fieldsync/core/commKey.hpp"
#include "fieldsync/halo/exchangeStats.hpp"
#include "fieldsync/halo/fields.hpp"
#include "fieldsync/halo/reverseOp.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <source_location>
#include <vector>

namespace fieldsync::halo
{

/** @brief One exchange of a Communicator: a key, its tag and its state. */
struct Exchange
{
    static constexpr std::size_t npos = static_cast<std::size_t>(-1); /**< no pool entry */

    CommKey key;                          /**< the key (its name is built only for messages) */
    std::source_location where;           /**< call site of the last start */
    int tag { 0 };                        /**< MPI tag */
    bool reverse { false };               /**< a reverse exchange */
    ReverseOp op { ReverseOp::Replace };  /**< combine op (reverse) */
    bool inFlight { false };              /**< started and not finalised */
    std::vector<FieldShape> fields;       /**< the fields in flight, as started */
    PackChoice pack;                      /**< the forms open to the fields in flight */
    std::unique_ptr<FieldKeeper> keeper;  /**< holds fields MPI uses in place while in flight */
    std::size_t buffer { npos };          /**< pool entry in use */
    std::size_t lastBuffer { npos };      /**< pool entry used last time (persistent requests) */
    ExchangeStats stats;                  /**< telemetry of this key, times in clock ticks */
    mutable ExchangeStats reported;       /**< stats in seconds, as of the last stats() call */
    std::unique_ptr<ExchangeCheck> check; /**< check mode: headers and checksums (else null) */
    /**
     * @brief The back end's state of this key, made by its BackEndSetUp (PersistentNeighbour:
     * the key's persistent collectives), else null.
     */
    std::shared_ptr<void> backEndState;
    std::uint64_t attempts { 0 }; /**< starts of this key attempted (notices name one) */
    std::uint32_t polls { 0 };    /**< incomplete tests of this start (isComplete listens) */

    /** @brief The key's hash with bit 32 set for a reverse exchange (headers, notices). */
    [[nodiscard]] std::uint64_t keyBits() const noexcept
    {
        return key.hash() | (reverse ? (std::uint64_t { 1 } << 32) : 0);
    }
};

} // namespace fieldsync::halo
