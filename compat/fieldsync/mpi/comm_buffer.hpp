// SPDX-License-Identifier: MIT
// The seed's buffer header (NeoN/core/mpi/comm_buffer.hpp): mpi::HalfDuplexCommBuffer and
// mpi::FullDuplexCommBuffer. Canonical headers: fieldsync/halo/*DuplexCommBuffer.hpp.
#pragma once

#include "fieldsync/compat.hpp"
