// SPDX-License-Identifier: MIT
// The seed's operators header (NeoN/core/mpi/operators.hpp): reduceAllScalar and every
// collective, blocking and non-blocking. Canonical headers: fieldsync/mpi/collectives.hpp.
#pragma once

#include "fieldsync/compat.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/dataType.hpp"
#include "fieldsync/mpi/reduceOp.hpp"
#include "fieldsync/mpi/request.hpp"
