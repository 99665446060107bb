// SPDX-License-Identifier: MIT
// The seed's header name (NeoN/core/mpi/comm_buffer.hpp): the communication buffers.
#pragma once

#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/halfDuplexCommBuffer.hpp"
