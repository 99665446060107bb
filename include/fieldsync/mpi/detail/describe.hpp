// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/callOptions.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"

#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include <Kokkos_Core.hpp>

#include <memory>

namespace fieldsync::mpi::detail
{

/** @brief Marks "no buffer" (broadcast has one, barrier none). */
struct NoBuffer
{
};

/**
 * @brief What the collectives accept as a buffer: std::span, std::vector and Kokkos::View.
 * `element` keeps the constness, `memory_space` says where the values live.
 */
template<typename B>
struct BufferTraits
{
    static constexpr bool isBuffer = false; /**< not a buffer */
};

/** @brief std::span: host memory. */
template<typename T, std::size_t Extent>
struct BufferTraits<std::span<T, Extent>>
{
    static constexpr bool isBuffer = true;         /**< a buffer */
    static constexpr bool isView = false;          /**< not a Kokkos::View */
    static constexpr bool constPropagates = false; /**< a const span is still writable */
    using element = T;                             /**< value type, const for input only */
    using memory_space = Kokkos::HostSpace;        /**< where the values live */
};

/** @brief std::vector: host memory, const when passed as const. */
template<typename T, typename Allocator>
struct BufferTraits<std::vector<T, Allocator>>
{
    static constexpr bool isBuffer = true;        /**< a buffer */
    static constexpr bool isView = false;         /**< not a Kokkos::View */
    static constexpr bool constPropagates = true; /**< a const vector is read only */
    using element = T;                            /**< value type */
    using memory_space = Kokkos::HostSpace;       /**< where the values live */
};

/** @brief Kokkos::View of any rank and memory space (must be contiguous at run time). */
template<typename V>
requires Kokkos::is_view<V>::value struct BufferTraits<V>
{
    static constexpr bool isBuffer = true;         /**< a buffer */
    static constexpr bool isView = true;           /**< a Kokkos::View */
    static constexpr bool constPropagates = false; /**< views carry const in value_type */
    using element = typename V::value_type;        /**< value type, const for const views */
    using memory_space = typename V::memory_space; /**< where the values live */
};

/** @brief A span, vector or Kokkos::View (any cv/ref). */
template<typename B>
concept BufferLike = BufferTraits<std::remove_cvref_t<B>>::isBuffer;

/** @brief The element type of a buffer argument, const when the buffer is read only. */
template<typename B>
using ElementOf = std::conditional_t<
    BufferTraits<std::remove_cvref_t<B>>::constPropagates &&
        std::is_const_v<std::remove_reference_t<B>>,
    const typename BufferTraits<std::remove_cvref_t<B>>::element,
    typename BufferTraits<std::remove_cvref_t<B>>::element>;

/** @brief The value type of a call: that of the send buffer, else that of the receive buffer. */
template<typename S, typename R>
using ValueOf = std::remove_const_t<ElementOf<std::conditional_t<BufferLike<S>, S, R>>>;

/**
 * @brief The BufferAccess of values of @p Value at @p user in @p MemorySpace, written by
 * @p Exec after the instances it depends on.
 */
template<typename Value, typename MemorySpace, typename Exec>
class BufferAccessOf final : public BufferAccess
{
public:
    /**
     * @brief The access to @p user, fenced on @p exec after @p after (the caller's
     * CallOptions::dependsOn, not copied: it is read only while the call starts, by fence() and
     * toHost(); fromHost() and instance(), which a Request calls later, do not read it); @p named
     * when the caller named @p exec (a device form), which instance() then returns.
     */
    BufferAccessOf(Value* user, const Exec& exec, std::span<const Exec> after, bool named)
        : user_(user), exec_(exec), after_(after), named_(named)
    {
    }

    void fence() const override
    {
        fenceDependencies();
        fenceInstance();
    }

    void toHost(void* host, std::size_t n) const override
    {
        if constexpr (hostAccessible<MemorySpace>)
        {
            fence(); // a plain copy, after the user's kernels
            std::memcpy(host, user_, n * sizeof(Value));
        }
        else
        {
            // one copy enqueued on the instance (after the user's kernels and, through a fence
            // of each, those of the instances it depends on), one fence
            fenceDependencies();
            Kokkos::deep_copy(exec_, HostView(static_cast<Value*>(host), n), UserView(user_, n));
            exec_.fence();
        }
    }

    void fromHost(const void* host, std::size_t n) const override
    {
        if constexpr (hostAccessible<MemorySpace>)
        {
            fenceInstance(); // the dependencies were waited for when the call started
            std::memcpy(user_, host, n * sizeof(Value));
        }
        else
        {
            // enqueued on the instance, which alone is fenced: the staging memory is reused
            Kokkos::deep_copy(
                exec_, UserView(user_, n), HostView(static_cast<Value*>(const_cast<void*>(host)), n)
            );
            exec_.fence();
        }
    }

    [[nodiscard]] const void* instance(const std::type_info& type) const noexcept override
    {
        return named_ && typeid(Exec) == type ? &exec_ : nullptr;
    }

private:
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    using HostView = Kokkos::View<Value*, Kokkos::HostSpace, Unmanaged>;
    using UserView = Kokkos::View<Value*, MemorySpace, Unmanaged>;

    /** @brief Waits for the instance that writes the buffer (none when none was named). */
    void fenceInstance() const
    {
        if constexpr (!std::is_same_v<Exec, ViewExecutionSpace>)
        {
            exec_.fence();
        }
    }

    /** @brief Waits for the instances the call depends on (CallOptions::dependsOn). */
    void fenceDependencies() const
    {
        if constexpr (!std::is_same_v<Exec, ViewExecutionSpace>)
        {
            for (const Exec& before : after_)
            {
                before.fence();
            }
        }
    }

    Value* user_;                 /**< the user's values */
    Exec exec_;                   /**< the instance that writes them */
    std::span<const Exec> after_; /**< the instances it waits for first (while it starts) */
    bool named_;                  /**< exec was named by the caller (a device form) */
};

/**
 * @brief A copy of @p view, which keeps its memory alive (Kokkos counts the reference) until the
 * returned pointer goes; nothing for an unmanaged view (use count 0), which a copy would not
 * keep either.
 */
template<typename View>
[[nodiscard]] KeptAllocation keepAllocation(const View& view)
{
    if (view.use_count() == 0)
    {
        return {};
    }
    return std::make_shared<const View>(view);
}

/**
 * @brief The type-erased description of @p count values of T at @p data in MemorySpace,
 * written by @p exec after the instances @p after: whether to stage, and an access object (fence,
 * staging copies, the instance) unless none is needed (host memory, not staged, no asynchronous
 * execution space, no instance @p named by the caller: no host path allocates).
 */
template<typename T, typename MemorySpace, typename ExecutionSpace>
Buffer describeMemory(
    T* data,
    std::size_t count,
    const ExecutionSpace& exec,
    std::span<const ExecutionSpace> after,
    Staging staging,
    bool named
)
{
    using Value = std::remove_const_t<T>;
    constexpr bool asynchronous =
        !std::is_same_v<ExecutionSpace, ViewExecutionSpace> && !synchronousHost<ExecutionSpace>;
    static_assert(
        hostAccessible<MemorySpace> || !std::is_same_v<ExecutionSpace, ViewExecutionSpace>,
        "fieldsync: device memory needs an execution space"
    );
    Buffer buffer;
    buffer.data = const_cast<Value*>(data);
    buffer.count = count;
    buffer.present = true;
    buffer.stage = useStaging<MemorySpace>(staging);
    if (buffer.stage || asynchronous || named)
    {
        // a non-blocking call's access dies with its Request
        using Access = BufferAccessOf<Value, MemorySpace, ExecutionSpace>;
        buffer.access = std::make_shared<Access>(const_cast<Value*>(data), exec, after, named);
    }
    return buffer;
}

/** @brief Throws an Error naming @p name and @p where unless @p view is contiguous. */
template<typename V>
void requireContiguous(const V& view, const char* name, const std::source_location& where)
{
    FIELDSYNC_CHECK_AT(
        view.span_is_contiguous() && view.span() == view.size(),
        std::string(name) + ": Kokkos::View '" + view.label() + "' is not contiguous (size " +
            std::to_string(view.size()) + ", span " + std::to_string(view.span()) +
            "); pass a contiguous view or copy it first",
        where
    );
}

/**
 * @brief Describes a span, vector or contiguous Kokkos::View; throws for a non-contiguous view.
 * A view is kept alive (Buffer::kept, keepAllocation) only when @p keepAlive is set: a
 * non-blocking call needs it until completion, a blocking call returns before the caller's view
 * can go, so it skips the reference count. A non-blocking device form (CallOptions naming an
 * instance) always has an access, through which its Request names the instance (readyOn).
 */
template<typename B, typename ExecutionSpace>
Buffer describe(
    B&& buffer,
    const CallOptions<ExecutionSpace>& options,
    const char* name,
    const std::source_location& where,
    bool keepAlive
)
{
    using Traits = BufferTraits<std::remove_cvref_t<B>>;
    using T = ElementOf<B>;
    // a device form (an instance named): its dependencies; a non-blocking one's Request names
    // the instance (Request::readyOn) through the access
    constexpr bool named = !std::is_same_v<ExecutionSpace, ViewExecutionSpace>;
    const bool nameInstance { named && keepAlive };
    const auto after = [&]
    {
        if constexpr (named)
        {
            return std::span<const ExecutionSpace>(options.dependsOn);
        }
        else
        {
            return std::span<const ExecutionSpace> {};
        }
    }();
    if constexpr (Traits::isView)
    {
        requireContiguous(buffer, name, where);
        using View = std::remove_cvref_t<B>;
        using Space = typename Traits::memory_space;
        Buffer described;
        if constexpr (named)
        {
            described = describeMemory<T, Space>(
                buffer.data(), buffer.size(), options.exec, after, options.staging, nameInstance
            );
        }
        else
        {
            // fenced on (and staged with) the default instance of the view's execution space
            using Exec = typename View::execution_space;
            described = describeMemory<T, Space>(
                buffer.data(),
                buffer.size(),
                Exec {},
                std::span<const Exec> {},
                options.staging,
                false
            );
        }
        if (keepAlive)
        {
            described.kept = keepAllocation(buffer);
        }
        return described;
    }
    else
    {
        return describeMemory<T, Kokkos::HostSpace>(
            buffer.data(), buffer.size(), options.exec, after, options.staging, nameInstance
        );
    }
}

/** @brief The scalars of a call besides its buffers. */
struct Params
{
    ReduceOp op { ReduceOp::Sum };      /**< reduction */
    int root { 0 };                     /**< root rank */
    std::span<const int> sendCounts {}; /**< per-rank send counts */
    std::span<const int> recvCounts {}; /**< per-rank receive counts */
};

/**
 * @brief Builds the Call for @p send / @p recv (buffers, inPlace or NoBuffer) and runs it.
 * The value type T is checked here: an unsupported T is a compile-time error.
 */
template<typename S, typename R, typename ExecutionSpace>
Request submit(
    Kind kind,
    const char* name,
    bool blocking,
    S&& send,
    R&& recv,
    const Params& params,
    MPI_Comm comm,
    const CallOptions<ExecutionSpace>& options,
    const std::source_location& where
)
{
    Call call;
    if constexpr (BufferLike<S> || BufferLike<R>)
    {
        using T = ValueOf<S, R>;
        requireMpiCompatible<T>();
        if constexpr (BufferLike<S> && BufferLike<R>)
        {
            static_assert(
                std::
                    is_same_v<std::remove_const_t<ElementOf<S>>, std::remove_const_t<ElementOf<R>>>,
                "fieldsync: send and receive buffers must hold the same value type"
            );
        }
        call.type = typeDesc<T>();
    }
    constexpr bool sendInPlace = std::is_same_v<std::remove_cvref_t<S>, InPlace>;
    constexpr bool recvInPlace = std::is_same_v<std::remove_cvref_t<R>, InPlace>;
    call.kind = kind;
    call.name = name;
    call.inPlace = sendInPlace || recvInPlace;
    requireMpiRunning(name, where);
    // the one buffer of an in-place call is always call.recv
    if constexpr (recvInPlace)
    {
        static_assert(
            !std::is_const_v<ElementOf<S>>, "fieldsync: the in-place buffer is read only"
        );
        call.recv = describe(std::forward<S>(send), options, name, where, !blocking);
    }
    else
    {
        if constexpr (BufferLike<S>)
        {
            call.send = describe(std::forward<S>(send), options, name, where, !blocking);
        }
        if constexpr (BufferLike<R>)
        {
            static_assert(
                !std::is_const_v<ElementOf<R>>, "fieldsync: the receive buffer is read only"
            );
            call.recv = describe(std::forward<R>(recv), options, name, where, !blocking);
        }
    }
    call.op = params.op;
    call.root = params.root;
    call.sendCounts = params.sendCounts;
    call.recvCounts = params.recvCounts;
    call.comm = comm;
    call.blocking = blocking;
    call.algorithm = options.algorithm;
    call.matchId = options.matchId.empty() ? nullptr : &options.matchId;
    call.where = where;
    return run(call);
}

/**
 * @brief One collective operation and its scalar arguments: the single definition that the
 * blocking and the non-blocking form of an operation share (and compat/'s pointer forms, through
 * them). The family headers build one per operation (detail::ops).
 */
struct Operation
{
    Kind kind { Kind::Barrier }; /**< which operation */
    Params params {};            /**< op, root and counts */

    /**
     * @brief Runs the operation on @p send and @p recv (buffers, inPlace or NoBuffer). The
     * blocking form returns once the results are in the user's memory, the non-blocking form
     * returns the Request to complete.
     */
    template<bool Blocking, typename S, typename R, typename E>
    auto start(
        S&& send,
        R&& recv,
        MPI_Comm comm,
        const CallOptions<E>& options,
        const std::source_location& where
    ) const -> std::conditional_t<Blocking, void, Request>
    {
        Request request = submit(
            kind,
            publicName(kind, Blocking),
            Blocking,
            std::forward<S>(send),
            std::forward<R>(recv),
            params,
            comm,
            options,
            where
        );
        if constexpr (!Blocking)
        {
            return request;
        }
    }
};

} // namespace fieldsync::mpi::detail
