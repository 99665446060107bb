// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/faults.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstring>
#include <typeinfo>

namespace fieldsync::mpi
{

/** @brief How memory reaches MPI: Auto follows the rules below, Always forces host staging. */
enum class Staging
{
    Auto,  /**< direct when MPI can reach the memory, staged through the host otherwise */
    Always /**< always through a host staging buffer (tests the device path on host builds) */
};

/**
 * @brief Whether kernels of @p Exec run to completion in the calling thread before
 * parallel_for returns (Serial, OpenMP), so its work needs no fence and the host may copy its
 * memory with std::memcpy right away.
 */
template<typename Exec>
inline constexpr bool synchronousHost = false;
#ifdef KOKKOS_ENABLE_SERIAL
template<>
inline constexpr bool synchronousHost<Kokkos::Serial> = true;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
template<>
inline constexpr bool synchronousHost<Kokkos::OpenMP> = true;
#endif

/** @brief Whether the host can dereference memory of @p MemorySpace (Kokkos decides). */
template<typename MemorySpace>
inline constexpr bool hostAccessible =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

/**
 * @brief Whether the MPI library accepts device pointers. FIELDSYNC_GPU_AWARE_MPI=0|1 decides
 * when set; otherwise the MPI library is asked at run time where it offers a query (Open MPI's
 * MPIX_Query_cuda_support), and the answer is no where it does not. Evaluated once.
 */
[[nodiscard]] bool gpuAwareMpi();

/** @brief Whether FIELDSYNC_FORCE_STAGING=1 forces staging everywhere. Read once. */
[[nodiscard]] bool stagingForcedByEnvironment();

/**
 * @brief The one rule for every operation on memory of @p MemorySpace: stage through the host
 * when asked to (@p staging or FIELDSYNC_FORCE_STAGING, or at random under fault injection,
 * FIELDSYNC_FAULTS), or when MPI can reach neither the memory from the host nor, lacking
 * GPU-aware MPI, the device pointer.
 */
template<typename MemorySpace>
[[nodiscard]] bool useStaging(Staging staging = Staging::Auto)
{
    static const bool forced = stagingForcedByEnvironment(); // read once, then one load
    if (staging == Staging::Always || forced ||
        faultHappens(&fieldsync::detail::FaultSettings::staging))
    {
        return true;
    }
    if constexpr (hostAccessible<MemorySpace>)
    {
        return false;
    }
    else
    {
        return !gpuAwareMpi();
    }
}

namespace detail
{

/**
 * @brief What compiled code needs of one Kokkos memory space, behind one interface: allocate and
 * free bytes, copy them within the space and to and from the host, fence, and the staging rule.
 *
 * fieldsync erases types in one way throughout: an abstract interface with one final template
 * implementation per type, whose instances live on the stack (a field during one call) or as a
 * function-local static (a memory space, spaceOps<M>()). The compiled halo engine and the
 * buffers hold `const SpaceOps&` and never instantiate a template per space themselves.
 */
class SpaceOps
{
public:
    /** @brief The memory space's type (compared to tell spaces apart). */
    [[nodiscard]] virtual const std::type_info& type() const noexcept = 0;

    /** @brief The memory space's name (Kokkos' name()), for messages. */
    [[nodiscard]] virtual const char* name() const noexcept = 0;

    /** @brief Whether the host can dereference this space's memory. */
    [[nodiscard]] virtual bool hostAccessible() const noexcept = 0;

    /** @brief useStaging<M>(staging): whether MPI gets this space's memory through the host. */
    [[nodiscard]] virtual bool useStaging(Staging staging) const = 0;

    /**
     * @brief @p bytes of uninitialised memory in this space (kokkos_malloc), labelled; starts
     * Kokkos first if nobody has (ensureKokkos).
     */
    [[nodiscard]] virtual void* allocate(std::size_t bytes, const char* label) const = 0;

    /**
     * @brief Frees memory of allocate(); nullptr does nothing, and so does memory left after
     * Kokkos was finalised (which Kokkos can no longer free).
     */
    virtual void deallocate(void* data) const noexcept = 0;

    /** @brief Copies @p bytes within this space. */
    virtual void copy(void* to, const void* from, std::size_t bytes) const = 0;

    /**
     * @brief Copies @p bytes from this space to host memory, complete on return. Device memory
     * is copied on the default instance of the space's execution space, after that instance's
     * earlier work only: memory written on another instance is fenced by the caller first.
     */
    virtual void toHost(void* host, const void* from, std::size_t bytes) const = 0;

    /** @brief Copies @p bytes from host memory into this space, complete on return (device
     * memory: on the default instance, as toHost()). */
    virtual void fromHost(void* to, const void* host, std::size_t bytes) const = 0;

protected:
    ~SpaceOps() = default;
};

/** @brief The SpaceOps of @p MemorySpace (one static instance per space). */
template<typename MemorySpace>
const SpaceOps& spaceOps();

} // namespace detail

/**
 * @brief The host memory that staging copies live in (the halo buffers' staging copies and the
 * staged collectives). Pinned (page-locked, Kokkos::CudaHostPinnedSpace) lets the GPU copy by
 * DMA, at full PCIe/NVLink speed and without a bounce through a driver buffer; Pageable is
 * ordinary host memory (Kokkos::HostSpace). In a build without CUDA both are ordinary host
 * memory, since nothing can pin it.
 */
enum class StagingMemory
{
    Pinned,  /**< page-locked host memory (the default) */
    Pageable /**< ordinary host memory */
};

/**
 * @brief Where staging copies live now: setStagingMemory's last choice, else
 * FIELDSYNC_STAGING_MEMORY=pinned|pageable, else Pinned.
 * @throws Error naming the variable and its value when it is set to anything else.
 */
[[nodiscard]] StagingMemory stagingMemory();

/**
 * @brief Chooses where staging copies live from now on, process-wide (benchmarks compare the
 * two). Buffers allocated before keep their memory until they next grow; staged operations that
 * start afterwards use the new choice.
 */
void setStagingMemory(StagingMemory memory) noexcept;

namespace detail
{

/** @brief The SpaceOps of the memory stagingMemory() names (pinned or pageable host memory). */
[[nodiscard]] const SpaceOps& stagingSpaceOps();

/** @brief memcpy that accepts empty ranges, whose pointers may be null (an empty staging
 * buffer); memcpy itself must not be given null, even for 0 bytes (UBSan reports it). */
inline void copyBytes(void* to, const void* from, std::size_t bytes)
{
    if (bytes > 0)
    {
        std::memcpy(to, from, bytes);
    }
}

/** @brief The one implementation of SpaceOps, for the Kokkos memory space @p M. */
template<typename M>
class SpaceOpsOf final : public SpaceOps
{
public:
    const std::type_info& type() const noexcept override { return typeid(M); }
    const char* name() const noexcept override { return M::name(); }
    bool hostAccessible() const noexcept override { return fieldsync::mpi::hostAccessible<M>; }
    bool useStaging(Staging staging) const override { return mpi::useStaging<M>(staging); }
    void* allocate(std::size_t bytes, const char* label) const override
    {
        ensureKokkos(); // fieldsync starts Kokkos when it first needs it (MPIInit)
        return Kokkos::kokkos_malloc<M>(label, bytes == 0 ? 1 : bytes);
    }
    void deallocate(void* data) const noexcept override
    {
        // after the program's own Kokkos::finalize (a NeoN main ends Kokkos before MPIInit):
        // nothing can be freed any more, and the process is ending, so the memory is left
        if (data != nullptr && Kokkos::is_initialized())
        {
            Kokkos::kokkos_free<M>(data);
        }
    }
    void copy(void* to, const void* from, std::size_t bytes) const override
    {
        if constexpr (fieldsync::mpi::hostAccessible<M>)
        {
            copyBytes(to, from, bytes);
        }
        else
        {
            Kokkos::deep_copy(bytesIn<M>(to, bytes), bytesIn<M>(from, bytes));
        }
    }
    // device memory: one copy enqueued on the space's default instance and a fence of that
    // instance alone (a deep_copy without an instance fences the whole device before and after,
    // which waits for kernels of every other instance too)
    void toHost(void* host, const void* from, std::size_t bytes) const override
    {
        if constexpr (fieldsync::mpi::hostAccessible<M>)
        {
            copyBytes(host, from, bytes);
        }
        else
        {
            const typename M::execution_space exec;
            Kokkos::deep_copy(
                exec, bytesIn<Kokkos::HostSpace>(host, bytes), bytesIn<M>(from, bytes)
            );
            exec.fence();
        }
    }
    void fromHost(void* to, const void* host, std::size_t bytes) const override
    {
        if constexpr (fieldsync::mpi::hostAccessible<M>)
        {
            copyBytes(to, host, bytes);
        }
        else
        {
            const typename M::execution_space exec;
            Kokkos::deep_copy(exec, bytesIn<M>(to, bytes), bytesIn<Kokkos::HostSpace>(host, bytes));
            exec.fence();
        }
    }

private:
    template<typename S>
    using Bytes = Kokkos::View<char*, S, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

    /** @brief An unmanaged view of @p bytes bytes at @p data (named: the pointer constructor
     * is explicit in Kokkos 4, so `return { data, bytes }` does not compile there). */
    template<typename S>
    static Bytes<S> bytesIn(const void* data, std::size_t bytes)
    {
        return Bytes<S>(static_cast<char*>(const_cast<void*>(data)), bytes);
    }
};

template<typename MemorySpace>
const SpaceOps& spaceOps()
{
    static const SpaceOpsOf<MemorySpace> ops;
    return ops;
}

} // namespace detail

} // namespace fieldsync::mpi
