// SPDX-License-Identifier: MIT
/**
 * @file algorithmTags.hpp
 * @brief Deprecated: the tag range the collective algorithms reserved on the caller's
 * communicator until their messages moved to the library's private duplicate of it
 * (fieldsync/mpi/detail/privateComm.hpp). No tag is reserved on an application's communicator
 * any more; these constants remain for one minor release so that code naming them compiles.
 */
#pragma once

namespace fieldsync::mpi::algorithms
{

/** @brief Deprecated: no tag is reserved on the caller's communicator. */
[[deprecated("no tag is reserved any more: the algorithms send on a private duplicate (see "
             "fieldsync/mpi/detail/privateComm.hpp)"
)]] inline constexpr int reservedTagFirst { 32000 };

/** @brief Deprecated: no tag is reserved on the caller's communicator. */
[[deprecated("no tag is reserved any more: the algorithms send on a private duplicate (see "
             "fieldsync/mpi/detail/privateComm.hpp)"
)]] inline constexpr int reservedTagCount { 767 };

} // namespace fieldsync::mpi::algorithms
