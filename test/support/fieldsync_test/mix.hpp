// SPDX-License-Identifier: MIT
// A hash for the tests' generated data: the same on every rank and standard library.
#pragma once

#include <cstdint>

namespace fieldsync::test
{

/** @brief splitmix64: portable, the same on every rank and standard library. */
inline std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace fieldsync::test
