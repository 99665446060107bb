// SPDX-License-Identifier: MIT
// A non-blocking collective's reference to a Kokkos view's memory, held until completion
// (doc/collectives.md, "Cost"), without naming Kokkos in the headers that carry it.
#pragma once

#include <utility>

namespace fieldsync::mpi::detail
{

/**
 * @brief One counted reference to a Kokkos allocation: what keeps a non-blocking call's view
 * alive until the call completes. It holds the allocation's record and the function that drops
 * the reference, so that the call's state can carry it without the Kokkos headers. Made by
 * keepAllocation (detail/describe.hpp) with one reference-count increment; moving it changes no
 * count; reset() or the destructor is the one decrement. Empty for a view with no record to
 * count (an unmanaged view, which a copy would not keep either).
 */
class KeptAllocation
{
public:
    /** @brief Drops the reference to @p record (a Kokkos reference-count decrement). */
    using Release = void (*)(void* record) noexcept;

    /** @brief Keeps nothing. */
    KeptAllocation() noexcept = default;

    /** @brief Takes over a reference to @p record already counted, dropped by @p release. */
    KeptAllocation(void* record, Release release) noexcept : record_(record), release_(release) {}

    KeptAllocation(const KeptAllocation&) = delete;
    KeptAllocation& operator=(const KeptAllocation&) = delete;

    /** @brief Takes over @p other's reference (no count changes); @p other keeps nothing. */
    KeptAllocation(KeptAllocation&& other) noexcept
        : record_(std::exchange(other.record_, nullptr)), release_(other.release_)
    {
    }

    /** @brief Drops the reference held, then takes over @p other's. */
    KeptAllocation& operator=(KeptAllocation&& other) noexcept
    {
        if (this != &other)
        {
            reset();
            record_ = std::exchange(other.record_, nullptr);
            release_ = other.release_;
        }
        return *this;
    }

    /** @brief Drops the reference held. */
    ~KeptAllocation() { reset(); }

    /** @brief Drops the reference held, if any: the allocation goes when it was the last. */
    void reset() noexcept
    {
        if (record_ != nullptr)
        {
            release_(std::exchange(record_, nullptr));
        }
    }

    /** @brief Whether a reference is held. */
    [[nodiscard]] bool holds() const noexcept { return record_ != nullptr; }

private:
    void* record_ { nullptr };    /**< the allocation's record, null when empty */
    Release release_ { nullptr }; /**< drops the reference to record_ */
};

} // namespace fieldsync::mpi::detail
