// SPDX-License-Identifier: MIT
// The blocks a thread keeps for the access objects of non-blocking collectives: a freed small
// block is handed out again, a large one is not kept, and the list holds at most eight.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/mpi/detail/recycledBlocks.hpp"

#include <array>
#include <cstdint>
#include <memory>

namespace fd = fieldsync::mpi::detail;

TEST_CASE("recycled blocks: a freed small block comes back, large ones and a ninth are not kept")
{
    // empty this thread's list first: whatever earlier tests left is taken out
    std::array<void*, 9> taken {};
    for (void*& block : taken)
    {
        block = fd::recycledAllocate(fd::recycledBlockBytes);
        REQUIRE(block != nullptr);
        REQUIRE(reinterpret_cast<std::uintptr_t>(block) % alignof(std::max_align_t) == 0);
    }
    // nine freed: the first eight are kept, the ninth is deleted
    for (void* block : taken)
    {
        fd::recycledFree(block, 16);
    }
    // handed out again last in, first out: the eighth freed comes first, then the seventh...
    for (int i = 7; i >= 0; --i)
    {
        void* again = fd::recycledAllocate(48);
        REQUIRE(again == taken[static_cast<std::size_t>(i)]);
        static_cast<unsigned char*>(again)[fd::recycledBlockBytes - 1] = 1; // the whole block
        fd::recycledFree(again, 48);
        REQUIRE(fd::recycledAllocate(48) == again);
        taken[static_cast<std::size_t>(i)] = again;
    }
    for (int i = 0; i < 8; ++i)
    {
        fd::recycledFree(taken[static_cast<std::size_t>(i)], 48);
    }
    // a large block is its own allocation and is not kept
    void* large = fd::recycledAllocate(fd::recycledBlockBytes + 1);
    fd::recycledFree(large, fd::recycledBlockBytes + 1);
    void* small = fd::recycledAllocate(8);
    REQUIRE(small == taken[7]); // the last small block freed, not the large one
    fd::recycledFree(small, 8);
}

TEST_CASE("recycled blocks: std::allocate_shared over the allocator reuses one block")
{
    struct Payload
    {
        double values[4];
    };
    const Payload* first { nullptr };
    {
        auto p = std::allocate_shared<Payload>(
            fd::RecyclingAllocator<Payload>(), Payload { { 1, 2, 3, 4 } }
        );
        REQUIRE(p->values[3] == 4.0);
        first = p.get();
    }
    auto q = std::allocate_shared<Payload>(
        fd::RecyclingAllocator<Payload>(), Payload { { 5, 6, 7, 8 } }
    );
    REQUIRE(q.get() == first); // the control block and payload sit in the same reused block
    REQUIRE(q->values[0] == 5.0);
}
