// SPDX-License-Identifier: MIT
#include "fieldsync/core/commKey.hpp"

#include "fieldsync/core/error.hpp"

#include <array>
#include <charconv>
#include <cstring>

namespace fieldsync
{

namespace
{
// FNV-1a of "file:line" without building the string.
std::uint32_t siteHash(const std::source_location& where) noexcept
{
    std::array<char, 16> digits {};
    const auto [end, ec] =
        std::to_chars(digits.data(), digits.data() + digits.size(), where.line());
    static_cast<void>(ec);
    std::uint32_t hash = fnv1a32(where.file_name());
    hash = fnv1a32(":", hash);
    return fnv1a32(
        std::string_view(digits.data(), static_cast<std::size_t>(end - digits.data())), hash
    );
}
} // namespace

CommKey::CommKey(std::source_location where) noexcept
    : where_(where), hash_(siteHash(where)), callSite_(true)
{
}

CommKey::CommKey(std::string name, std::source_location where)
    : name_(std::move(name)), where_(where), hash_(fnv1a32(name_)), callSite_(false)
{
    FIELDSYNC_CHECK_AT(!name_.empty(), "a communication key must not be empty", where);
}

CommKey::CommKey(const char* name, std::source_location where)
    : CommKey(std::string(name != nullptr ? name : ""), where)
{
}

CommKey::CommKey(std::string_view name, std::source_location where)
    : CommKey(std::string(name), where)
{
}

void CommKey::nameSite() const
{
    name_ = toString(where_);
}

bool CommKey::equalNames(const CommKey& a, const CommKey& b)
{
    if (a.callSite_ && b.callSite_)
    {
        // one file in two literals (another translation unit): compare the text
        return a.where_.line() == b.where_.line() &&
               std::strcmp(a.where_.file_name(), b.where_.file_name()) == 0;
    }
    return a.name() == b.name();
}

} // namespace fieldsync
