// SPDX-License-Identifier: MIT
#include "fieldsync/core/commKey.hpp"

#include "fieldsync/core/error.hpp"

namespace fieldsync
{

CommKey::CommKey(std::source_location where)
    : name_(toString(where)), where_(where), hash_(fnv1a32(name_))
{}

CommKey::CommKey(std::string name, std::source_location where)
    : name_(std::move(name)), where_(where), hash_(fnv1a32(name_))
{
    FIELDSYNC_CHECK_AT(!name_.empty(), "a communication key must not be empty", where);
}

CommKey::CommKey(const char* name, std::source_location where)
    : CommKey(std::string(name != nullptr ? name : ""), where)
{}

CommKey::CommKey(std::string_view name, std::source_location where)
    : CommKey(std::string(name), where)
{}

} // namespace fieldsync
