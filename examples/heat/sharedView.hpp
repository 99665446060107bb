// SPDX-License-Identifier: MIT
#pragma once

#include "heatSolver.hpp"

#include <Kokkos_Core.hpp>

#include <span>
#include <string>

namespace fieldsync::heat
{

/**
 * @brief @p values (an array of a MeshPiece) as a read-only view in the default memory space:
 * where the kernels run on the host, the same memory and no copy, so the caller keeps @p values
 * alive and unchanged while the view is used; elsewhere a copy named @p name on the device.
 */
template<class T>
[[nodiscard]] Kokkos::View<const T*> sharedView(const std::string& name, std::span<const T> values)
{
    const Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(
        values.data(), values.size()
    );
    if constexpr (kernelsOnHost) // their views are host memory
    {
        (void)name;
        return host;
    }
    else
    {
        const Kokkos::View<T*> copy(name, values.size());
        Kokkos::deep_copy(copy, host);
        return copy;
    }
}

} // namespace fieldsync::heat
