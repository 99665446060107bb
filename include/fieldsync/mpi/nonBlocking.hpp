// SPDX-License-Identifier: MIT
// Non-blocking collectives (iAllReduce, ...): each returns a Request that owns what the operation
// needs until it completes. They sit beside their blocking forms in the family headers
// (reductions.hpp, gathers.hpp, ...); this header includes them all (doc/collectives.md).
#pragma once

#include "fieldsync/mpi/collectives.hpp"
