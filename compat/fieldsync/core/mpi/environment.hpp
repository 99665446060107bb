// SPDX-License-Identifier: MIT
// NeoN's header NeoN/core/mpi/environment.hpp at the path a rename of NeoN to fieldsync gives:
// MPIInit, MPIEnvironment, mpi::Init, mpi::Environment. See fieldsync/compat.hpp and
// doc/porting.md.
#pragma once

#include "fieldsync/mpi/environment.hpp"
