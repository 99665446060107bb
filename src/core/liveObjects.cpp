// SPDX-License-Identifier: MIT
#include "fieldsync/core/liveObjects.hpp"

#include "fieldsync/core/error.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include <mpi.h>

namespace fieldsync
{

using detail::LiveObject;

/**
 * @brief A lock for the registry's few pointer writes: one atomic exchange to take it, a plain
 * store to give it back (a std::mutex costs two atomic operations and two library calls, and
 * every Request and non-blocking call links and unlinks once). A waiter yields its core.
 */
class ListLock
{
public:
    void lock() noexcept
    {
        while (taken_.exchange(true, std::memory_order_acquire))
        {
            while (taken_.load(std::memory_order_relaxed))
            {
                std::this_thread::yield();
            }
        }
    }

    void unlock() noexcept { taken_.store(false, std::memory_order_release); }

private:
    std::atomic<bool> taken_ { false };
};

namespace detail
{
/** @brief The list of live objects (doubly linked through the entries) and its lock. */
class LiveRegistry
{
public:
    /** @brief The one registry; never destroyed, so objects in statics may leave it at exit. */
    static LiveRegistry& instance() noexcept
    {
        static auto* const registry = new LiveRegistry;
        return *registry;
    }

    void link(LiveObject& entry) noexcept
    {
        const std::lock_guard lock(lock_);
        entry.previous_ = last_;
        entry.next_ = nullptr;
        (last_ ? last_->next_ : first_) = &entry;
        last_ = &entry;
        ++count_;
    }

    void unlink(LiveObject& entry) noexcept
    {
        const std::lock_guard lock(lock_);
        (entry.previous_ ? entry.previous_->next_ : first_) = entry.next_;
        (entry.next_ ? entry.next_->previous_ : last_) = entry.previous_;
        entry.previous_ = entry.next_ = nullptr;
        --count_;
    }

    /** @brief Unlinks and returns the trackLive entry of @p id, or null. */
    LiveObject* detach(const void* id) noexcept
    {
        LiveObject* found { nullptr };
        {
            const std::lock_guard lock(lock_);
            for (LiveObject* e = first_; e != nullptr && found == nullptr; e = e->next_)
            {
                found = e->id_ == id ? e : nullptr;
            }
        }
        return found;
    }

    std::vector<std::string> describeAll()
    {
        const std::lock_guard lock(lock_);
        std::vector<std::string> all;
        for (const LiveObject* e = first_; e != nullptr; e = e->next_)
        {
            all.push_back(e->describe());
        }
        return all;
    }

    std::size_t count() noexcept
    {
        const std::lock_guard lock(lock_);
        return count_;
    }

    std::atomic<bool> ended { false };    /**< markRuntimeEnded was called */
    std::atomic<bool> deferred { false }; /**< a deferred error is waiting */
    std::mutex deferredMutex;             /**< guards deferredText */
    std::string deferredText;             /**< the deferred error(s) */

private:
    ListLock lock_;
    LiveObject* first_ { nullptr };
    LiveObject* last_ { nullptr };
    std::size_t count_ { 0 };
};
} // namespace detail

using detail::LiveRegistry;

LiveObject::LiveObject(
    const char* kind, const char* name, const std::source_location& where
) noexcept
    : kind_(kind), name_(name), where_(where)
{
    LiveRegistry::instance().link(*this);
}

LiveObject::~LiveObject()
{
    LiveRegistry::instance().unlink(*this);
}

std::string LiveObject::describe() const
{
    std::string text { kind_ };
    if (name_ != nullptr && name_[0] != '\0')
    {
        text.append(" (").append(name_).append(")");
    }
    return text.append(" created at ").append(toString(where_));
}

void trackLive(const void* id, const char* kind, const std::source_location& where)
{
    auto entry = std::make_unique<LiveObject>(kind, "", where);
    entry->id_ = id;
    static_cast<void>(entry.release()); // owned by the registry until untrackLive
}

void untrackLive(const void* id) noexcept
{
    // found under the lock; deleting unlinks it under the lock again
    delete LiveRegistry::instance().detach(id);
}

std::vector<std::string> liveObjects()
{
    return LiveRegistry::instance().describeAll();
}

std::size_t liveObjectCount() noexcept
{
    return LiveRegistry::instance().count();
}

bool runtimeEnded() noexcept
{
    if (LiveRegistry::instance().ended.load(std::memory_order_relaxed))
    {
        return true;
    }
    int finalised { 0 };
    MPI_Finalized(&finalised);
    return finalised != 0;
}

void markRuntimeEnded() noexcept
{
    LiveRegistry::instance().ended.store(true, std::memory_order_relaxed);
}

void deferError(const std::string& message) noexcept
{
    LiveRegistry& registry { LiveRegistry::instance() };
    try
    {
        const std::lock_guard lock(registry.deferredMutex);
        if (!registry.deferredText.empty())
        {
            registry.deferredText.append("; and: ");
        }
        registry.deferredText.append(message);
        registry.deferred.store(true, std::memory_order_release);
    }
    catch (...) // out of memory: the error was logged where it happened
    {
    }
}

std::string takeDeferredError()
{
    LiveRegistry& registry { LiveRegistry::instance() };
    if (!registry.deferred.load(std::memory_order_acquire))
    {
        return {};
    }
    const std::lock_guard lock(registry.deferredMutex);
    registry.deferred.store(false, std::memory_order_relaxed);
    return std::exchange(registry.deferredText, std::string {});
}

void raiseDeferredError(const std::source_location& where)
{
    if (LiveRegistry::instance().deferred.load(std::memory_order_relaxed))
    {
        const std::string text = takeDeferredError();
        if (!text.empty())
        {
            throw Error("an earlier error, found where it could not be thrown: " + text, where);
        }
    }
}

} // namespace fieldsync
