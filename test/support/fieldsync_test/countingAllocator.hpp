// SPDX-License-Identifier: MIT
// Replaces the global operator new and delete with malloc/free versions that count C++ heap
// allocations (MPI's own malloc is not seen), so a test can claim that a path allocates nothing.
// Include it in exactly ONE translation unit of a test executable: it defines the replacement
// operators, which must exist once per program.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace fieldsync_test
{
inline std::atomic<bool> counting { false }; /**< count while set */
inline std::atomic<long> allocations { 0 };  /**< C++ allocations counted */

/** @brief malloc that counts while `counting` is set. */
inline void* countedMalloc(std::size_t size) noexcept
{
    if (counting.load(std::memory_order_relaxed))
    {
        allocations.fetch_add(1, std::memory_order_relaxed);
    }
    return std::malloc(size == 0 ? 1 : size);
}

/** @brief The number of C++ heap allocations made while @p work runs (on this thread or any). */
template<typename Work>
long allocationsDuring(Work&& work)
{
    allocations = 0;
    counting = true;
    work();
    counting = false;
    return allocations.load();
}
} // namespace fieldsync_test

void* operator new(std::size_t size)
{
    void* p = fieldsync_test::countedMalloc(size);
#ifndef __CUDA_ARCH__ // nvcc also compiles this for the device, which has no exceptions
    if (p == nullptr)
    {
        throw std::bad_alloc();
    }
#endif
    return p;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept
{
    std::free(p);
}

void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}

// Every form that may pair with the ones above is replaced too, so all memory comes from
// malloc and goes back to free (sanitizers check that pairs match).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    return fieldsync_test::countedMalloc(size);
}

void* operator new[](std::size_t size)
{
    return operator new(size);
}

void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept
{
    return operator new(size, tag);
}

void operator delete(void* p, const std::nothrow_t&) noexcept
{
    std::free(p);
}

void operator delete[](void* p) noexcept
{
    std::free(p);
}

void operator delete[](void* p, std::size_t) noexcept
{
    std::free(p);
}

void operator delete[](void* p, const std::nothrow_t&) noexcept
{
    std::free(p);
}
#pragma GCC diagnostic pop
