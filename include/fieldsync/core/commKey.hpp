// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>

namespace fieldsync
{

/** @brief FNV-1a 32-bit hash of a byte string, continuing from @p hash (portable). */
[[nodiscard]] constexpr std::uint32_t
fnv1a32(std::string_view bytes, std::uint32_t hash = 2166136261U) noexcept
{
    for (const char c : bytes)
    {
        hash ^= static_cast<std::uint8_t>(c);
        hash *= 16777619U;
    }
    return hash;
}

/**
 * @brief A name for one communication call site: a user string or a std::source_location.
 *
 * Built implicitly from a string (the seed's `std::string loc` keys) or from a
 * std::source_location, in which case the name is `file:line`. hash() is FNV-1a over the
 * name's bytes: the same on every rank, compiler and standard library, so it can derive MPI
 * tags (collisions are detected by the users of the hash, never assumed away).
 *
 * A call-site key allocates nothing: its hash is computed from the file name and line
 * directly, comparison uses the line and the file name, and the `file:line` string is only
 * built when name() is first asked for (an error message, a new exchange), so the per-step
 * path `comm.startComm(field)` stays free of allocation. name() is therefore not safe to call
 * on the same key object from two threads at once.
 */
class CommKey
{
public:
    /** @brief The key of the caller's own line. */
    CommKey(std::source_location where = std::source_location::current()) noexcept; // NOLINT

    /** @brief A key named by the user; where() is the line that built the key. */
    CommKey(
        std::string name, std::source_location where = std::source_location::current()
    ); // NOLINT

    /** @brief As CommKey(std::string). */
    CommKey(
        const char* name, std::source_location where = std::source_location::current()
    ); // NOLINT

    /** @brief As CommKey(std::string). */
    CommKey(
        std::string_view name, std::source_location where = std::source_location::current()
    ); // NOLINT

    /** @brief The name: the user string, or `file:line` for a call-site key. */
    [[nodiscard]] const std::string& name() const
    {
        if (callSite_ && name_.empty())
        {
            nameSite();
        }
        return name_;
    }

    /** @brief Where the key was made (the call site for default keys). */
    [[nodiscard]] const std::source_location& where() const noexcept { return where_; }

    /** @brief FNV-1a 32-bit hash of name(); identical on every rank. */
    [[nodiscard]] std::uint32_t hash() const noexcept { return hash_; }

    /** @brief Whether the key is a call site (no user string). */
    [[nodiscard]] bool isCallSite() const noexcept { return callSite_; }

    /**
     * @brief Keys compare by name (without building call-site names); inline for the usual
     * cases, a key against itself from the same call site or two user names.
     */
    friend bool operator==(const CommKey& a, const CommKey& b)
    {
        if (a.hash_ != b.hash_)
        {
            return false;
        }
        if (a.callSite_ != b.callSite_ || (a.callSite_ && !sameLiteral(a, b)))
        {
            return equalNames(a, b);
        }
        return a.callSite_ || a.name_ == b.name_;
    }

private:
    /** @brief Two call-site keys of one line in one file-name literal (one call site). */
    static bool sameLiteral(const CommKey& a, const CommKey& b) noexcept
    {
        return a.where_.line() == b.where_.line() && a.where_.file_name() == b.where_.file_name();
    }

    /** @brief operator== of a call site against a name, or of two file-name literals. */
    static bool equalNames(const CommKey& a, const CommKey& b);

    /** @brief Builds the `file:line` name of a call-site key (name() asked for it first). */
    void nameSite() const;

    mutable std::string name_;   /**< user string, or file:line once asked for */
    std::source_location where_; /**< where the key was built */
    std::uint32_t hash_;         /**< FNV-1a of the name */
    bool callSite_;              /**< built from a source location */
};

} // namespace fieldsync
