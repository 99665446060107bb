// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace fieldsync
{

/** @brief Index of a cell in a rank's local field (owned cells and ghost cells). */
using LocalIndex = std::int32_t;

} // namespace fieldsync
