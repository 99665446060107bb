// SPDX-License-Identifier: MIT
// A thread's few kept blocks (include/fieldsync/mpi/detail/recycledBlocks.hpp).
#include "fieldsync/mpi/detail/recycledBlocks.hpp"

#include <array>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
// a kept block is poisoned until it is handed out again: a use after free of an access object
// is still reported under AddressSanitizer (as a use after poison)
#define FIELDSYNC_POISON(block) ASAN_POISON_MEMORY_REGION(block, recycledBlockBytes)
#define FIELDSYNC_UNPOISON(block) ASAN_UNPOISON_MEMORY_REGION(block, recycledBlockBytes)
#else
#define FIELDSYNC_POISON(block) static_cast<void>(block)
#define FIELDSYNC_UNPOISON(block) static_cast<void>(block)
#endif

namespace fieldsync::mpi::detail
{

namespace
{

/** This thread's kept blocks, each recycledBlockBytes; freed at the thread's end. */
struct KeptBlocks
{
    std::array<void*, 8> blocks {};
    std::size_t count { 0 };

    KeptBlocks() = default;
    KeptBlocks(const KeptBlocks&) = delete;
    KeptBlocks& operator=(const KeptBlocks&) = delete;
    ~KeptBlocks();
};

/** Set once this thread's KeptBlocks was destroyed (trivial: still readable then): a block
 * freed later, by a static's destructor, goes to operator delete. */
thread_local bool keptBlocksGone { false };
thread_local KeptBlocks kept;

KeptBlocks::~KeptBlocks()
{
    keptBlocksGone = true;
    for (std::size_t i = 0; i < count; ++i)
    {
        FIELDSYNC_UNPOISON(blocks[i]);
        ::operator delete(blocks[i]);
    }
    count = 0;
}

} // namespace

void* recycledAllocate(std::size_t bytes)
{
    if (bytes > recycledBlockBytes)
    {
        return ::operator new(bytes);
    }
    if (!keptBlocksGone && kept.count > 0)
    {
        void* block = kept.blocks[--kept.count];
        FIELDSYNC_UNPOISON(block);
        return block;
    }
    return ::operator new(recycledBlockBytes); // every small block has the full size
}

void recycledFree(void* block, std::size_t bytes) noexcept
{
    if (block == nullptr)
    {
        return;
    }
    if (bytes <= recycledBlockBytes && !keptBlocksGone && kept.count < kept.blocks.size())
    {
        FIELDSYNC_POISON(block);
        kept.blocks[kept.count++] = block;
        return;
    }
    ::operator delete(block);
}

} // namespace fieldsync::mpi::detail
