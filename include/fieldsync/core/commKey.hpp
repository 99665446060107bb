// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>

namespace fieldsync
{

/**
 * @brief A name for one communication call site: a user string or a std::source_location.
 *
 * Built implicitly from a string (the seed's `std::string loc` keys) or from a
 * std::source_location, in which case the name is `file:line`. hash() is FNV-1a over the
 * name's bytes: the same on every rank, compiler and standard library, so it can derive MPI
 * tags (collisions are detected by the users of the hash, never assumed away).
 */
class CommKey
{
public:

    /** @brief The key of the caller's own line. */
    CommKey(std::source_location where = std::source_location::current()); // NOLINT implicit

    /** @brief A key named by the user; where() is the line that built the key. */
    CommKey(std::string name, std::source_location where = std::source_location::current()); // NOLINT

    /** @brief As CommKey(std::string). */
    CommKey(const char* name, std::source_location where = std::source_location::current()); // NOLINT

    /** @brief As CommKey(std::string). */
    CommKey(std::string_view name, std::source_location where = std::source_location::current()); // NOLINT

    /** @brief The name: the user string, or `file:line`. */
    [[nodiscard]] const std::string& name() const noexcept { return name_; }

    /** @brief Where the key was made (the call site for default keys). */
    [[nodiscard]] const std::source_location& where() const noexcept { return where_; }

    /** @brief FNV-1a 32-bit hash of name(); identical on every rank. */
    [[nodiscard]] std::uint32_t hash() const noexcept { return hash_; }

    /** @brief Keys compare by name. */
    friend bool operator==(const CommKey& a, const CommKey& b) noexcept { return a.name_ == b.name_; }

private:

    std::string name_;           /**< user string or file:line */
    std::source_location where_; /**< where the key was built */
    std::uint32_t hash_;         /**< FNV-1a of name_ */
};

/** @brief FNV-1a 32-bit hash of a byte string (portable, used for keys and tags). */
[[nodiscard]] constexpr std::uint32_t fnv1a32(std::string_view bytes) noexcept
{
    std::uint32_t hash {2166136261U};
    for (const char c : bytes)
    {
        hash ^= static_cast<std::uint8_t>(c);
        hash *= 16777619U;
    }
    return hash;
}

} // namespace fieldsync
