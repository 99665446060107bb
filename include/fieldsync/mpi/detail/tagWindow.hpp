// SPDX-License-Identifier: MIT
// The tag space of a private duplicate (privateComm.hpp): which tags each user of it may take.
#pragma once

#include <cstdint>

namespace fieldsync::mpi::detail
{

/**
 * @brief A range of tags on a private duplicate: [first(), first() + span()).
 *
 * The tag space of a private duplicate with MPI_TAG_UB u (MPI promises 2^15 - 1 or more) is laid
 * out once:
 * - [0, sequencedSpan): collective steps (algorithms, set-ups, partition-layer protocols), each
 *   taking its tags in turn (takeTags), the same on every rank because every rank makes the
 *   collective calls of a communicator in the same order;
 * - [reservedFirst, reservedFirst + ReservedTag::Count): protocols with a tag of their own;
 * - window k = 1 .. windowsBelow(u): [k * windowSpan, (k + 1) * windowSpan), one per halo
 *   Communicator (agreed at its set-up);
 * - [hashedFirst(u), u]: buffers, by a hash of their name (both ends know it without talking).
 *
 * A window has three offsets of its own (check-mode headers, notices, the commit's sparse
 * exchange); an exchange's tag is its key hash reduced into the window.
 */
class TagWindow
{
public:
    static constexpr int leastUpperBound { (1 << 15) - 1 }; /**< the least MPI_TAG_UB MPI allows */
    static constexpr int sequencedSpan { 1 << 14 }; /**< tags the collective steps cycle through */
    static constexpr int reservedFirst { sequencedSpan }; /**< the first reserved tag */
    static constexpr int windowSpan { 1 << 16 };          /**< tags of one window */
    static constexpr int commitOffset { 0x7ffe };         /**< the commit's sparse exchange */
    static constexpr int checkOffset { 0x7ffd };          /**< every check-mode header */
    static constexpr int noticeOffset { 0x7ffb };         /**< every notice */
    static_assert(
        commitOffset != checkOffset && commitOffset != noticeOffset &&
            checkOffset != noticeOffset && commitOffset < windowSpan,
        "the reserved offsets of a window are distinct and inside it"
    );

    /** @brief Window @p index of a private duplicate: tags index * windowSpan onwards. */
    [[nodiscard]] static constexpr TagWindow window(int index) noexcept
    {
        return TagWindow(index * windowSpan, windowSpan);
    }

    /** @brief All tags from 0 to @p tagUpperBound: a communicator only one user sends on. */
    [[nodiscard]] static constexpr TagWindow whole(int tagUpperBound) noexcept
    {
        return TagWindow(0, tagUpperBound);
    }

    /** @brief The first tag of the buffers' hashed range under MPI_TAG_UB @p tagUpperBound. */
    [[nodiscard]] static constexpr int hashedFirst(int tagUpperBound) noexcept
    {
        return tagUpperBound < 4 * windowSpan ? reservedFirst + 64 : tagUpperBound / 2 + 1;
    }

    /** @brief How many Communicator windows (1 .. n) fit under MPI_TAG_UB @p tagUpperBound. */
    [[nodiscard]] static constexpr int windowsBelow(int tagUpperBound) noexcept
    {
        const int windows { hashedFirst(tagUpperBound) / windowSpan - 1 };
        return windows > 0 ? windows : 0;
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

} // namespace fieldsync::mpi::detail
