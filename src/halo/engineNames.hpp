// SPDX-License-Identifier: MIT
// Internal: the halo engine's vocabulary under its short names, for src/halo only. The types live
// in fieldsync::halo::detail (in the public headers, because the buffer and Communicator
// templates users instantiate hold or build them), out of the public surface; the engine is
// their home, so its sources name them as before instead of qualifying each use.
#pragma once

#include "fieldsync/halo/commBufferCore.hpp"
#include "fieldsync/halo/duplexBuffer.hpp"
#include "fieldsync/halo/fields.hpp"
#include "fieldsync/halo/indexRuns.hpp"

namespace fieldsync::halo
{

using detail::CommBufferCore;
using detail::DuplexBuffer;
using detail::FieldKeeper;
using detail::Fields;
using detail::FieldShape;
using detail::IndexRuns;
using detail::Message;
using detail::RunRange;
using detail::ViewFields;

} // namespace fieldsync::halo
