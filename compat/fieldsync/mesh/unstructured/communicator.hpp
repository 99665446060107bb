// SPDX-License-Identifier: MIT
// NeoN's header NeoN/mesh/unstructured/communicator.hpp at the path a rename of NeoN to fieldsync
// gives: Communicator, NodeCommMap, RankCommMap, CommMap. See fieldsync/compat.hpp and
// doc/porting.md.
#pragma once

#include "fieldsync/compat.hpp"
