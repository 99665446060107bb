// SPDX-License-Identifier: MIT
// NeoN's header NeoN/core/vector/vector.hpp at the path a rename of NeoN to fieldsync gives:
// Vector, a field in host memory that a Communicator exchanges. See fieldsync/compat.hpp and
// doc/porting.md.
#pragma once

#include "fieldsync/core/executor/serialExecutor.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace fieldsync
{

/**
 * @brief NeoN's Vector<T> on a SerialExecutor, as NeoN's tests of its Communicator use it: a
 * field of size() values in host memory, read and written by index with `field(i)` (NeoN's
 * function-like subscript; NeoN's own Vector dropped it, its Communicator test still uses it),
 * exchanged by a Communicator through view(). Copies are deep, as NeoN's.
 *
 * Not NeoN's field module: no executors but SerialExecutor, no arithmetic. A ported solver
 * exchanges Kokkos views in any memory space directly (doc/porting.md).
 */
template<typename T>
class Vector
{
public:
    /** @brief @p size values, uninitialised as NeoN's (Kokkos is started if nobody has). */
    Vector(const SerialExecutor& exec, std::size_t size)
        : exec_(exec), view_(make(size, Kokkos::WithoutInitializing))
    {
    }

    /** @brief @p size copies of @p value. */
    Vector(const SerialExecutor& exec, std::size_t size, const T& value) : Vector(exec, size)
    {
        Kokkos::deep_copy(view_, value);
    }

    /** @brief The values of @p in. */
    Vector(const SerialExecutor& exec, const std::vector<T>& in) : Vector(exec, in.size())
    {
        for (std::size_t i = 0; i < in.size(); ++i)
        {
            view_(i) = in[i];
        }
    }

    /** @brief A deep copy of @p other. */
    Vector(const Vector& other) : Vector(other.exec_, other.size())
    {
        Kokkos::deep_copy(view_, other.view_);
    }

    /** @brief Becomes a deep copy of @p other (its size included). */
    Vector& operator=(const Vector& other)
    {
        if (this != &other)
        {
            Vector copy(other);
            std::swap(view_, copy.view_);
        }
        return *this;
    }

    /** @brief Takes @p other's values; @p other is left empty. */
    Vector(Vector&&) noexcept = default;

    /** @brief Takes @p other's values; @p other is left empty. */
    Vector& operator=(Vector&&) noexcept = default;

    ~Vector() = default;

    /** @brief The executor the Vector was made on. */
    [[nodiscard]] const SerialExecutor& exec() const noexcept { return exec_; }

    /** @brief The number of values. */
    [[nodiscard]] std::size_t size() const noexcept { return view_.extent(0); }

    /** @brief The first value. */
    [[nodiscard]] T* data() const noexcept { return view_.data(); }

    /** @brief The values as the host view a Communicator exchanges. */
    [[nodiscard]] const Kokkos::View<T*, Kokkos::HostSpace>& view() const noexcept { return view_; }

    /** @brief Value @p i (NeoN's function-like subscript; no bounds check). */
    T& operator()(std::size_t i) const noexcept { return view_(i); }

private:
    /** @brief A host view of @p size values, after starting Kokkos if nobody has. */
    template<typename Init>
    static Kokkos::View<T*, Kokkos::HostSpace> make(std::size_t size, Init init)
    {
        mpi::ensureKokkos();
        return Kokkos::View<T*, Kokkos::HostSpace>(
            Kokkos::view_alloc(std::string("Vector"), init), size
        );
    }

    SerialExecutor exec_;                      /**< NeoN's executor (host memory) */
    Kokkos::View<T*, Kokkos::HostSpace> view_; /**< the values */
};

} // namespace fieldsync
