// SPDX-License-Identifier: MIT
// Includes Catch2 2.x or 3.x, whichever the build found.
#pragma once

#if defined(FIELDSYNC_CATCH2_V3)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
