// SPDX-License-Identifier: MIT
// The seed's environment header (NeoN/core/mpi/environment.hpp): MPIInit and MPIEnvironment,
// and NeoN's later names mpi::Init and mpi::Environment (compat.hpp).
// Canonical headers: fieldsync/mpi/mpiInit.hpp, fieldsync/mpi/mpiEnvironment.hpp.
#pragma once

#include "fieldsync/compat.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/mpiInit.hpp"

// The seed's examples print with std::cout after including only environment.hpp and
// operators.hpp, so this header provides <iostream>.
#include <iostream>
