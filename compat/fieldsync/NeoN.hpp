// SPDX-License-Identifier: MIT
// NeoN's umbrella header NeoN/NeoN.hpp at the path a rename of NeoN to fieldsync gives: every
// NeoN name compat/ provides (the MPI module, Vec3, SerialExecutor, Vector, Communicator). See
// fieldsync/compat.hpp and doc/porting.md.
#pragma once

#include "fieldsync/core/executor/serialExecutor.hpp"
#include "fieldsync/core/mpi/environment.hpp"
#include "fieldsync/core/mpi/fullDuplexCommBuffer.hpp"
#include "fieldsync/core/mpi/halfDuplexCommBuffer.hpp"
#include "fieldsync/core/mpi/operators.hpp"
#include "fieldsync/core/primitives/vec3.hpp"
#include "fieldsync/core/vector/vector.hpp"
#include "fieldsync/mesh/unstructured/communicator.hpp"
