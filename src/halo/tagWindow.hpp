// SPDX-License-Identifier: MIT
// Internal: the MPI tags one Communicator may use on its MPI communicator.
#pragma once

#include "fieldsync/core/error.hpp"

#include <mpi.h>

#include <cstdint>

namespace fieldsync::halo
{

/**
 * @brief The tags of one Communicator: [first(), first() + span()). A Communicator with an MPI
 * communicator of its own has the whole tag range (first 0, span MPI_TAG_UB); one on the shared
 * exchange context (exchangeContext.hpp) has a window of windowSpan tags that no other
 * Communicator gets. Three offsets are reserved: check-mode headers, notices and the commit's
 * sparse exchange; an exchange's tag is its key hash reduced into the window.
 */
class TagWindow
{
public:
    static constexpr int windowSpan { 1 << 16 };  /**< tags of one window */
    static constexpr int commitOffset { 0x7ffe }; /**< the commit's sparse exchange */
    static constexpr int checkOffset { 0x7ffd };  /**< every check-mode header */
    static constexpr int noticeOffset { 0x7ffb }; /**< every notice */
    static_assert(
        commitOffset != checkOffset && commitOffset != noticeOffset &&
            checkOffset != noticeOffset && commitOffset < 32767 && commitOffset < windowSpan,
        "the reserved tags are distinct and below the smallest MPI_TAG_UB MPI allows"
    );

    /** @brief The whole tag range of @p comm (a communicator nothing else sends on). */
    [[nodiscard]] static TagWindow whole(MPI_Comm comm)
    {
        int* upper { nullptr };
        int flag { 0 };
        FIELDSYNC_MPI(MPI_Comm_get_attr(comm, MPI_TAG_UB, &upper, &flag));
        return TagWindow(0, flag != 0 && upper != nullptr ? *upper : 32767);
    }

    /** @brief Window @p index of a shared communicator: tags index * windowSpan onwards. */
    [[nodiscard]] static constexpr TagWindow window(int index) noexcept
    {
        return TagWindow(index * windowSpan, windowSpan);
    }

    /**
     * @brief The number of windows a communicator with @p tagUpperBound (MPI_TAG_UB) holds
     * after window 0, which stays with the set-up steps' own tags.
     */
    [[nodiscard]] static constexpr int windowsBelow(int tagUpperBound) noexcept
    {
        return static_cast<int>((static_cast<std::int64_t>(tagUpperBound) + 1) / windowSpan) - 1;
    }

    /** @brief The tag of an exchange whose key hashes to @p hash (never a reserved one). */
    [[nodiscard]] int exchange(std::uint32_t hash) const noexcept
    {
        const auto offset = static_cast<int>(hash % static_cast<std::uint32_t>(span_));
        const bool reserved { offset == checkOffset || offset == noticeOffset };
        return first_ + (reserved ? checkOffset - 1 : offset);
    }

    [[nodiscard]] int check() const noexcept { return first_ + checkOffset; }   /**< headers */
    [[nodiscard]] int notice() const noexcept { return first_ + noticeOffset; } /**< notices */
    [[nodiscard]] int commit() const noexcept { return first_ + commitOffset; } /**< commit */
    [[nodiscard]] int first() const noexcept { return first_; } /**< the lowest tag */
    [[nodiscard]] int span() const noexcept { return span_; }   /**< how many tags */

private:
    constexpr TagWindow(int first, int span) noexcept : first_(first), span_(span) {}

    int first_; /**< the lowest tag */
    int span_;  /**< how many tags, from first_ */
};

} // namespace fieldsync::halo
