// SPDX-License-Identifier: MIT
// Internal: a Kokkos profiling region around one step of an exchange.
#pragma once

#include <Kokkos_Core.hpp>

namespace fieldsync::halo
{

/**
 * @brief A Kokkos profiling region (Kokkos Tools, Nsight) for the lifetime of the object, when
 * @p on: pushed at construction, popped at destruction (also when an Error leaves the step).
 */
class ProfilingRegion
{
public:
    /** @brief Pushes region @p name when @p on. */
    ProfilingRegion(bool on, const char* name) : on_(on)
    {
        if (on_)
        {
            Kokkos::Profiling::pushRegion(name);
        }
    }
    /** @brief Pops it. */
    ~ProfilingRegion()
    {
        if (on_)
        {
            Kokkos::Profiling::popRegion();
        }
    }
    ProfilingRegion(const ProfilingRegion&) = delete;
    ProfilingRegion& operator=(const ProfilingRegion&) = delete;
    ProfilingRegion(ProfilingRegion&&) = delete;
    ProfilingRegion& operator=(ProfilingRegion&&) = delete;

    /** @brief Whether a Kokkos tool is loaded (regions are worth naming). */
    static bool toolLoaded() noexcept { return Kokkos::Profiling::profileLibraryLoaded(); }

private:
    bool on_; /**< a region was pushed */
};

} // namespace fieldsync::halo
