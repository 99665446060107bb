// SPDX-License-Identifier: MIT
// The former header of the non-blocking collectives (iAllReduce, ...), kept for code that
// includes it: they sit beside their blocking forms in the family headers (reductions.hpp,
// gathers.hpp, ...), which fieldsync/mpi/collectives.hpp includes all (doc/collectives.md).
#pragma once

#include "fieldsync/mpi/collectives.hpp"
