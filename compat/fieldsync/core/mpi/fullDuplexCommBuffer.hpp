// SPDX-License-Identifier: MIT
// NeoN's header NeoN/core/mpi/fullDuplexCommBuffer.hpp at the path a rename of NeoN to fieldsync
// gives: mpi::FullDuplexCommBuffer. See fieldsync/compat.hpp and doc/porting.md.
#pragma once

#include "fieldsync/mpi/comm_buffer.hpp"
