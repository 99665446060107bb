// SPDX-License-Identifier: MIT
// Fault injection for tests (FIELDSYNC_FAULTS): doc/reliability.md.
#pragma once

#include <cstdint>

namespace fieldsync
{

namespace detail
{

/**
 * @brief The faults FIELDSYNC_FAULTS asks for, read once per process.
 *
 * `FIELDSYNC_FAULTS=seed:S` turns fault injection on with the default probabilities;
 * `delay:P`, `early:P`, `staging:P`, `order:P`, `corrupt:P` (comma separated, after the seed)
 * set them. Off
 * when unset. The random sequence of a process depends on the seed and its rank in
 * MPI_COMM_WORLD only, so a failing run repeats.
 */
struct FaultSettings
{
    bool on { false };        /**< any fault injection at all */
    std::uint64_t seed { 0 }; /**< the seed */
    double delay { 0.1 };     /**< a random delay (up to 200 us) before posting sends, and
                                   before a poll of an answered exchange in its agreement */
    double early { 0.3 };     /**< a test returns "not yet" without asking MPI */
    double staging { 0.2 };   /**< an exchange or collective is staged through the host */
    double order { 0.5 };     /**< a duplex buffer tests its receives before its sends */
    double corrupt { 0.0 };   /**< check mode: a packed message gets a byte flipped after its
                                   checksum was computed (tests the check; off by default) */
};

} // namespace detail

/** @brief The settings of this process (FIELDSYNC_FAULTS). */
[[nodiscard]] const detail::FaultSettings& faultSettings();

namespace detail
{
/** @brief Whether FIELDSYNC_FAULTS turned fault injection on (read once). */
[[nodiscard]] bool faultsOn();
/** @brief True with probability @p probability (the process's random sequence). */
[[nodiscard]] bool faultDraw(double probability) noexcept;
} // namespace detail

/**
 * @brief True with probability @p probability when faults are on; false, and nearly free (one
 * test of an inline static, no call), when off.
 * @throws Error naming FIELDSYNC_FAULTS and its value at the first call when it is malformed.
 */
[[nodiscard]] inline bool faultHappens(double probability)
{
    static const bool on = detail::faultsOn();
    return on && detail::faultDraw(probability);
}

/** @brief faultHappens with the probability FIELDSYNC_FAULTS gives @p fault (read only when on). */
[[nodiscard]] inline bool faultHappens(double detail::FaultSettings::*fault)
{
    static const bool on = detail::faultsOn();
    return on && detail::faultDraw(faultSettings().*fault);
}

/** @brief Sleeps a random 1 to 200 us (used with faultHappens(&FaultSettings::delay)). */
void faultDelay() noexcept;

} // namespace fieldsync
