// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/memorySpace.hpp"

#include <cstddef>

namespace fieldsync::mpi::detail
{

/**
 * @brief Host memory that MPI reads and writes in place of device memory (a staging copy): a
 * block of the memory stagingMemory() names (pinned in CUDA builds), taken from a process-wide
 * pool and given back to it, so that staged exchanges and collectives allocate pinned memory
 * once and reuse it.
 *
 * A holder keeps its block until it needs a larger one or the staging memory was changed
 * (setStagingMemory), or it is destroyed. The pool frees its blocks when Kokkos finalises; a
 * block given back after that is left to the operating system (Kokkos can no longer free it).
 */
class StagingBytes
{
public:
    /** @brief No memory yet. */
    StagingBytes() noexcept = default;

    /** @brief Gives the block back to the pool. */
    ~StagingBytes();

    /** @brief Takes @p other's block. */
    StagingBytes(StagingBytes&& other) noexcept;

    /** @brief Gives this block back and takes @p other's. */
    StagingBytes& operator=(StagingBytes&& other) noexcept;

    StagingBytes(const StagingBytes&) = delete;
    StagingBytes& operator=(const StagingBytes&) = delete;

    /**
     * @brief At least @p bytes of staging memory (the contents are not kept when the block
     * changes); the same block as before while it is large enough and of the current kind.
     */
    [[nodiscard]] std::byte* reserve(std::size_t bytes)
    {
        if (bytes > capacity_ || ops_ != &stagingSpaceOps())
        {
            replace(bytes);
        }
        return data_;
    }

    /** @brief The block (null before the first reserve). */
    [[nodiscard]] std::byte* data() const noexcept { return data_; }

    /** @brief Bytes in the block. */
    [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

    /** @brief Whether the block is pinned host memory. */
    [[nodiscard]] bool pinned() const noexcept;

    /** @brief Gives the block back to the pool now. */
    void release() noexcept;

    /**
     * @brief Forgets the block without giving it back: for memory that MPI may still write
     * (an operation that could not be cancelled). It is never freed.
     */
    void abandon() noexcept
    {
        data_ = nullptr;
        capacity_ = 0;
        ops_ = nullptr;
    }

private:
    /** @brief Gives the block back and takes one of at least @p bytes of the current kind. */
    void replace(std::size_t bytes);

    std::byte* data_ { nullptr };     /**< the block */
    std::size_t capacity_ { 0 };      /**< its bytes */
    const SpaceOps* ops_ { nullptr }; /**< the space it came from */
};

} // namespace fieldsync::mpi::detail
