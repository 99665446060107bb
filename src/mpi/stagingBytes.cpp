// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/stagingBytes.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <bit>
#include <mutex>
#include <utility>
#include <vector>

namespace fieldsync::mpi::detail
{

namespace
{
/** @brief One block of staging memory. */
struct Block
{
    std::byte* data { nullptr };     /**< the memory */
    std::size_t capacity { 0 };      /**< its bytes */
    const SpaceOps* ops { nullptr }; /**< the space that allocated it */
};

/**
 * @brief The blocks nobody holds, reused best fit. At most kept blocks stay; a larger free list
 * frees its smallest. Freed when Kokkos finalises (a finalize hook, pushed on first use).
 */
class StagingPool
{
public:
    static StagingPool& instance()
    {
        static StagingPool pool;
        return pool;
    }

    Block take(std::size_t bytes, const SpaceOps& ops)
    {
        {
            const std::lock_guard lock(mutex_);
            auto best = free_.end();
            for (auto it = free_.begin(); it != free_.end(); ++it)
            {
                if (it->ops == &ops && it->capacity >= bytes &&
                    (best == free_.end() || it->capacity < best->capacity))
                {
                    best = it;
                }
            }
            if (best != free_.end())
            {
                const Block block { *best };
                free_.erase(best);
                return block;
            }
            if (!hooked_)
            {
                Kokkos::push_finalize_hook([] { StagingPool::instance().freeAll(); });
                hooked_ = true;
            }
        }
        // powers of two from 4 KiB, so that slowly growing messages reuse their block
        const std::size_t capacity { std::bit_ceil(std::max<std::size_t>(bytes, 4096)) };
        return Block { static_cast<std::byte*>(ops.allocate(capacity, "fieldsync::staging")),
                       capacity,
                       &ops };
    }

    void giveBack(const Block& block) noexcept
    {
        if (block.data == nullptr)
        {
            return;
        }
        if (!Kokkos::is_initialized())
        {
            return; // after Kokkos::finalize nothing can free it: the process is ending
        }
        Block evicted {};
        {
            const std::lock_guard lock(mutex_);
            free_.push_back(block);
            if (free_.size() > kept)
            {
                const auto smallest = std::min_element(
                    free_.begin(),
                    free_.end(),
                    [](const Block& a, const Block& b) { return a.capacity < b.capacity; }
                );
                evicted = *smallest;
                free_.erase(smallest);
            }
        }
        if (evicted.data != nullptr)
        {
            evicted.ops->deallocate(evicted.data);
        }
    }

private:
    static constexpr std::size_t kept { 16 };

    void freeAll() noexcept
    {
        std::vector<Block> blocks;
        {
            const std::lock_guard lock(mutex_);
            blocks.swap(free_);
            hooked_ = false; // a later Kokkos::initialize pushes the hook again
        }
        for (const Block& b : blocks)
        {
            b.ops->deallocate(b.data);
        }
    }

    std::mutex mutex_;
    std::vector<Block> free_;
    bool hooked_ { false };
};
} // namespace

StagingBytes::~StagingBytes()
{
    release();
}

StagingBytes::StagingBytes(StagingBytes&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)),
      ops_(std::exchange(other.ops_, nullptr))
{
}

StagingBytes& StagingBytes::operator=(StagingBytes&& other) noexcept
{
    if (this != &other)
    {
        release();
        data_ = std::exchange(other.data_, nullptr);
        capacity_ = std::exchange(other.capacity_, 0);
        ops_ = std::exchange(other.ops_, nullptr);
    }
    return *this;
}

bool StagingBytes::pinned() const noexcept
{
    return ops_ != nullptr && ops_ != &spaceOps<Kokkos::HostSpace>();
}

void StagingBytes::release() noexcept
{
    if (data_ == nullptr)
    {
        return; // nothing held (every call that was not staged): not even the pool is asked
    }
    StagingPool::instance().giveBack(Block { data_, capacity_, ops_ });
    data_ = nullptr;
    capacity_ = 0;
    ops_ = nullptr;
}

void StagingBytes::replace(std::size_t bytes)
{
    release();
    const Block block { StagingPool::instance().take(bytes, stagingSpaceOps()) };
    data_ = block.data;
    capacity_ = block.capacity;
    ops_ = block.ops;
}

} // namespace fieldsync::mpi::detail
