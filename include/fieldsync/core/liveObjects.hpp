// SPDX-License-Identifier: MIT
// The live-object registry: library objects that hold MPI or Kokkos resources (a halo
// Communicator, a non-blocking collective's Request) register while they live, so that the
// MPIInit that ends MPI and Kokkos can name, with their creation call sites, those that outlive
// it; and errors a destructor cannot throw are kept for the next library call.
#pragma once

#include <cstddef>
#include <source_location>
#include <string>
#include <vector>

namespace fieldsync
{

void trackLive(const void* id, const char* kind, const std::source_location& where);

namespace detail
{

/**
 * @brief An intrusive entry of the live-object registry: registers at construction, leaves at
 * destruction (one list operation under the registry's lock each; nothing is allocated).
 *
 * Embed it in the object it stands for. Neither copyable nor movable: the object that embeds it
 * must not move either (heap state owned through a pointer is the usual case).
 */
class LiveObject
{
public:
    /**
     * @brief Registers an object.
     * @param kind what the object is ("fieldsync::halo::Communicator"); a string literal.
     * @param name the operation or key, or ""; must outlive the entry (a string literal).
     * @param where the call site that created it.
     */
    LiveObject(const char* kind, const char* name, const std::source_location& where) noexcept;

    /** @brief Leaves the registry. */
    ~LiveObject();

    LiveObject(const LiveObject&) = delete;
    LiveObject& operator=(const LiveObject&) = delete;
    LiveObject(LiveObject&&) = delete;
    LiveObject& operator=(LiveObject&&) = delete;

    /** @brief "fieldsync::halo::Communicator created at file:line". */
    [[nodiscard]] std::string describe() const;

private:
    friend class LiveRegistry; // the registry's list (liveObjects.cpp)
    friend void
    fieldsync::trackLive(const void* id, const char* kind, const std::source_location& where);
    const char* kind_;                 /**< what the object is */
    const char* name_;                 /**< operation or key, or "" */
    std::source_location where_;       /**< creation call site */
    const void* id_ { nullptr };       /**< key of an entry made by trackLive, else null */
    LiveObject* previous_ { nullptr }; /**< neighbours in the registry's list */
    LiveObject* next_ { nullptr };     /**< neighbours in the registry's list */
};

} // namespace detail

/**
 * @brief Registers an object that cannot embed a LiveObject, under the key @p id (its address,
 * or the address of state it owns that moves along with it). Allocates one entry.
 */
void trackLive(const void* id, const char* kind, const std::source_location& where);

/** @brief Removes the entry trackLive made for @p id (nothing when there is none). */
void untrackLive(const void* id) noexcept;

/** @brief One description per registered object, in creation order. */
[[nodiscard]] std::vector<std::string> liveObjects();

/** @brief How many objects are registered. */
[[nodiscard]] std::size_t liveObjectCount() noexcept;

/**
 * @brief Whether the MPI and Kokkos run of this process is over (an MPIInit that started them
 * ended, or MPI is finalised). Destructors then free nothing that MPI or Kokkos own: they leak
 * on purpose, because freeing would crash (Kokkos aborts on views freed after finalize; MPI
 * calls after MPI_Finalize are erroneous).
 */
[[nodiscard]] bool runtimeEnded() noexcept;

/** @brief Marks the run over (MPIInit's destructor, before it finalises Kokkos and MPI). */
void markRuntimeEnded() noexcept;

/**
 * @brief Keeps @p message (an error found in a destructor, which cannot throw) for the next
 * library call that checks for one (raiseDeferredError) or for MPIInit's destructor, which
 * logs it. A second message before the first was raised is appended.
 */
void deferError(const std::string& message) noexcept;

/**
 * @brief Throws the deferred error, if any, as a fieldsync::Error at @p where (and forgets it).
 * One relaxed atomic load when there is none.
 */
void raiseDeferredError(const std::source_location& where);

/** @brief Takes the deferred error's text ("" when none), forgetting it. */
[[nodiscard]] std::string takeDeferredError();

} // namespace fieldsync
