// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/clock.hpp"
#include "fieldsync/core/commKey.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/halo/exchangeStats.hpp"
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/tag.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <typeindex>
#include <type_traits>
#include <vector>

namespace fieldsync
{

namespace detail
{
template<typename F>
struct IsStdVector : std::false_type
{
};
template<typename T, typename A>
struct IsStdVector<std::vector<T, A>> : std::true_type
{
};
template<typename F>
struct IsStdSpan : std::false_type
{
};
template<typename T>
struct IsStdSpan<std::span<T>> : std::true_type
{
};

/** @brief A host view over a std::vector or std::span (no copy). */
template<typename T>
using HostFieldView = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/** @brief The rank (number of dimensions) of a Kokkos view type, as an int. */
template<typename V>
inline constexpr int viewRank = static_cast<int>(V::rank);

/** @brief A field the Communicator takes: a rank-1/2 Kokkos::View, a std::vector or std::span. */
template<typename F>
concept KokkosField = Kokkos::is_view<F>::value &&(viewRank<F> == 1 || viewRank<F> == 2);
} // namespace detail

/**
 * @brief What Communicator::startComm accepts: Kokkos::View<T*> or Kokkos::View<T**>
 * (cells x components, LayoutLeft or LayoutRight) in any memory space, std::vector<T>,
 * std::span<T>.
 */
template<typename F>
concept HaloField = detail::KokkosField<std::remove_cvref_t<F>> ||
    detail::IsStdVector<std::remove_cvref_t<F>>::value ||
    detail::IsStdSpan<std::remove_cvref_t<F>>::value;

namespace detail
{
/** @brief The Kokkos view of a field (the view itself, or an unmanaged host view). */
template<typename F>
auto fieldView(F& field)
{
    using Plain = std::remove_cvref_t<F>;
    if constexpr (KokkosField<Plain>)
    {
        return field;
    }
    else
    {
        using T = std::remove_reference_t<decltype(*field.data())>;
        return HostFieldView<T>(field.data(), field.size());
    }
}

/**
 * @brief The field as a Kokkos view without copying a view (a reference to it: a copy of a
 * managed view costs two atomic reference-count updates), or an unmanaged host view over a
 * std::vector or std::span.
 */
template<typename F>
decltype(auto) fieldViewRef(F& field)
{
    using Plain = std::remove_cvref_t<F>;
    if constexpr (KokkosField<Plain>)
    {
        return static_cast<const Plain&>(field);
    }
    else
    {
        return fieldView(field);
    }
}

/** @brief The view type fieldViewRef gives for @p F. */
template<typename F>
using FieldViewType = std::remove_cvref_t<decltype(fieldViewRef(std::declval<F&>()))>;

/**
 * @brief Whether kernels of @p Exec run to completion in the calling thread before
 * parallel_for returns (Serial, OpenMP), so its work needs no fence and the host may copy its
 * memory with std::memcpy right away.
 */
template<typename Exec>
inline constexpr bool synchronousHost = false;
#ifdef KOKKOS_ENABLE_SERIAL
template<>
inline constexpr bool synchronousHost<Kokkos::Serial> = true;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
template<>
inline constexpr bool synchronousHost<Kokkos::OpenMP> = true;
#endif

/** @brief The index arrays of both maps in one memory space (for pack and unpack kernels). */
template<typename MemSpace>
struct IndexArrays
{
    Kokkos::View<LocalIndex*, MemSpace> send;    /**< send map indices */
    Kokkos::View<LocalIndex*, MemSpace> receive; /**< receive map indices */
};

/** @brief Components per cell of a rank-1 or rank-2 view. */
template<typename V>
std::size_t componentsOf(const V& view)
{
    if constexpr (viewRank<V> == 2)
    {
        return view.extent(1);
    }
    else
    {
        return 1;
    }
}

/**
 * @brief The kernel labels as strings made once: Kokkos takes a label as std::string, and
 * "fieldsync::unpack" is too long for the small-string buffer (one allocation per launch).
 */
inline const std::string& packLabel()
{
    static const std::string label { "fieldsync::pack" };
    return label;
}

/** @brief See packLabel(). */
inline const std::string& unpackLabel()
{
    static const std::string label { "fieldsync::unpack" };
    return label;
}

/**
 * @brief Component @p c of cell @p cell of a rank-1 (@p c is 0) or rank-2 view. Kernels use it
 * instead of an `if constexpr` on the rank: nvcc rejects an extended lambda whose first use of a
 * captured variable is inside a constexpr-if branch.
 */
template<typename V, typename I>
KOKKOS_INLINE_FUNCTION decltype(auto) cellAt(const V& field, const I cell, const std::size_t c)
{
    if constexpr (viewRank<V> == 1)
    {
        (void)c;
        return field(cell);
    }
    else
    {
        return field(cell, c);
    }
}

/** @brief Packs field cells idx(begin..end) into buffer(i * stride + offset + c). */
template<typename V, typename B, typename I>
void pack(
    const V& field,
    const B& buffer,
    const I& idx,
    std::size_t begin,
    std::size_t end,
    std::size_t stride,
    std::size_t offset
)
{
    using Exec = typename V::execution_space;
    const std::size_t comps = componentsOf(field);
    Kokkos::parallel_for(
        packLabel(),
        Kokkos::RangePolicy<Exec>(
            Exec(), static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)
        ),
        KOKKOS_LAMBDA(const std::int64_t i) {
            const auto cell = idx(i);
            const std::size_t at = static_cast<std::size_t>(i) * stride + offset;
            // a rank-1 field has one component: a constant, so the loop folds away
            const std::size_t n = viewRank<V> == 1 ? std::size_t { 1 } : comps;
            for (std::size_t c = 0; c < n; ++c)
            {
                buffer(at + c) = cellAt(field, cell, c);
            }
        }
    );
}

/**
 * @brief Packs neighbour cells idx(begin..end): a plain copy when they are one run starting at
 * @p runStart in a rank-1 field and the buffer holds only this field (std::memcpy when the
 * field's execution space is a synchronous host space, else Kokkos::deep_copy in that space),
 * else the indexed kernel.
 */
template<typename V, typename B, typename I>
void packNeighbour(
    const V& field,
    const B& buffer,
    const I& idx,
    std::size_t begin,
    std::size_t end,
    std::size_t stride,
    std::size_t offset,
    LocalIndex runStart
)
{
    if constexpr (viewRank<V> == 1)
    {
        if (runStart >= 0 && stride == 1 && field.stride(0) == 1)
        {
            using Exec = typename V::execution_space;
            using T = typename V::non_const_value_type;
            const auto first = static_cast<std::size_t>(runStart);
            if constexpr (synchronousHost<Exec> && mpi::hostAccessible<typename V::memory_space>)
            {
                // deep_copy's fixed cost is larger than a copy of a few KiB
                std::memcpy(buffer.data() + begin, field.data() + first, (end - begin) * sizeof(T));
            }
            else
            {
                Kokkos::deep_copy(
                    Exec(),
                    Kokkos::subview(buffer, std::pair<std::size_t, std::size_t> { begin, end }),
                    Kokkos::subview(
                        field, std::pair<std::size_t, std::size_t> { first, first + (end - begin) }
                    )
                );
            }
            return;
        }
    }
    pack(field, buffer, idx, begin, end, stride, offset);
}

/** @brief Combines buffer values into field cells idx(begin..end) with @p op. */
template<typename V, typename B, typename I>
void unpack(
    const V& field,
    const B& buffer,
    const I& idx,
    std::size_t begin,
    std::size_t end,
    std::size_t stride,
    std::size_t offset,
    ReverseOp op
)
{
    using Exec = typename V::execution_space;
    using T = typename V::non_const_value_type;
    const std::size_t comps = componentsOf(field);
    Kokkos::parallel_for(
        unpackLabel(),
        Kokkos::RangePolicy<Exec>(
            Exec(), static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)
        ),
        KOKKOS_LAMBDA(const std::int64_t i) {
            const auto cell = idx(i);
            const std::size_t at = static_cast<std::size_t>(i) * stride + offset;
            for (std::size_t c = 0; c < comps; ++c)
            {
                T* target = &cellAt(field, cell, c);
                const T value = buffer(at + c);
                if (op == ReverseOp::Replace)
                {
                    *target = value;
                }
                else if constexpr (std::is_arithmetic_v<T>)
                {
                    if (op == ReverseOp::Sum)
                    {
                        *target += value;
                    }
                    else if (op == ReverseOp::Max)
                    {
                        *target = *target < value ? value : *target;
                    }
                    else
                    {
                        *target = value < *target ? value : *target;
                    }
                }
            }
        }
    );
}

/** @brief One exchange in the Communicator: a key, its tag and its state. */
struct Exchange
{
    CommKey key;                         /**< the key (its name is built only for messages) */
    std::source_location where;          /**< call site of the last start */
    int tag { 0 };                       /**< MPI tag */
    bool reverse { false };              /**< a reverse exchange */
    ReverseOp op { ReverseOp::Replace }; /**< combine op (reverse) */
    bool inFlight { false };             /**< started and not finalised */
    std::vector<const void*> fields;     /**< data pointers of the fields in flight */
    std::size_t buffer { npos };         /**< pool entry in use */
    std::size_t lastBuffer { npos };     /**< pool entry used last time (persistent requests) */
    ExchangeStats stats;                 /**< telemetry of this key */
    static constexpr std::size_t npos = static_cast<std::size_t>(-1); /**< no entry */
};

/**
 * @brief The exchange started last: a pointer into the Communicator's deque (whose elements
 * never move, not even when the deque is moved), reset in the moved-from Communicator.
 */
struct ExchangeCache
{
    Exchange* exchange { nullptr }; /**< the exchange, or nullptr */

    ExchangeCache() = default;
    ExchangeCache(const ExchangeCache&) = delete;
    ExchangeCache& operator=(const ExchangeCache&) = delete;
    /** @brief Takes @p other's pointer and resets it. */
    ExchangeCache(ExchangeCache&& other) noexcept : exchange(other.exchange)
    {
        other.exchange = nullptr;
    }
    /** @brief Takes @p other's pointer and resets it. */
    ExchangeCache& operator=(ExchangeCache&& other) noexcept
    {
        exchange = other.exchange;
        other.exchange = nullptr;
        return *this;
    }
    ~ExchangeCache() = default;
};

/** @brief A buffer of the Communicator's pool, in one memory space and direction. */
struct PoolEntry
{
    std::type_index space { typeid(void) }; /**< memory space of the buffer */
    bool reverse { false };                 /**< configured for reverse exchanges */
    bool claimed { false };                 /**< in use by an exchange */
    const Exchange* lastOwner { nullptr };  /**< exchange that used it last */
    std::shared_ptr<void> buffer;           /**< FullDuplexCommBuffer<space> */
    bool (*isComplete)(void*, const std::source_location&) { nullptr }; /**< tests the buffer */
    void (*waitComplete
    )(void*, const std::string&, const std::source_location&) { nullptr }; /**< waits */
    bool (*releaseAfterFailure
    )(void*, const std::string&, const std::source_location&) { nullptr }; /**< after an Error */
};
} // namespace detail

/**
 * @brief Non-blocking synchronisation of fields over one halo pattern (a send and a receive
 * RankSimplexCommMap), keyed by call site.
 *
 * `startComm(field, key)` packs the send cells (Kokkos kernel "fieldsync::pack" in the field's
 * execution space) into a pooled FullDuplexCommBuffer in the field's memory space and starts
 * the messages; `finaliseComm(field, key)` waits (no hot spin, with a time-out) and unpacks into
 * the ghost cells ("fieldsync::unpack"). Each key in flight holds its own buffer and its own MPI
 * tag on a duplicate of the environment's communicator; a tag collision between two keys in
 * flight is an Error. Without a key, startComm uses its caller's file:line, and isComplete,
 * waitComplete and finaliseComm find the exchange in flight by the field's data pointer.
 *
 * In-place: neighbours whose cells are one ascending run of consecutive indices go to MPI from
 * and into the field directly (no pack or unpack), for a single rank-1 or LayoutRight field in
 * memory MPI can reach. Rule that follows (as with PetscSF): between start and finalise, do not
 * write the cells of the send map nor touch ghost cells. setInPlace(false) turns it off.
 */
class Communicator
{
public:
    /** @brief An empty communicator (the seed default-constructs, then assigns). */
    Communicator();

    /**
     * @brief Collective: duplicates @p env's communicator and takes the two maps.
     * @throws Error when a map is for another communicator size, a receive map writes a cell
     * twice, or the self message sizes differ.
     */
    Communicator(
        mpi::MPIEnvironment env,
        RankSimplexCommMap sendMap,
        RankSimplexCommMap receiveMap,
        std::source_location where = std::source_location::current()
    );

    /** @brief Logs an error for exchanges still in flight and cancels them. */
    ~Communicator();

    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;
    /** @brief Moves (exchanges in flight move along, buffers stay where they are). */
    Communicator(Communicator&&) noexcept;
    /** @brief Move-assigns. */
    Communicator& operator=(Communicator&&) noexcept;

    /** @brief Starts synchronising the ghost cells of @p field under @p key. */
    template<HaloField Field>
    void startComm(Field& field, const CommKey& key = CommKey {})
    {
        const auto& view = detail::fieldViewRef(field);
        start<detail::FieldViewType<Field>>(std::span(&view, 1), key, false, ReverseOp::Replace);
    }

    /** @brief Starts several fields of one type in one message per neighbour. */
    template<detail::KokkosField View>
    void startComm(std::initializer_list<View> fields, const CommKey& key = CommKey {})
    {
        start<View>(std::span(fields.begin(), fields.size()), key, false, ReverseOp::Replace);
    }

    /** @brief Whether the exchange under @p key has completed (never blocks). */
    bool isComplete(const CommKey& key);

    /** @brief Whether the exchange of @p field in flight has completed. */
    template<HaloField Field>
    [[nodiscard]] bool
    isComplete(const Field& field, std::source_location where = std::source_location::current())
    {
        return testExchange(byField(dataOf(field), where, std::nullopt), where);
    }

    /** @brief Waits for the exchange under @p key (time-out as in WaitPolicy). */
    void waitComplete(const CommKey& key);

    /** @brief Waits for the exchange of @p field in flight. */
    template<HaloField Field>
    void
    waitComplete(const Field& field, std::source_location where = std::source_location::current())
    {
        waitExchange(byField(dataOf(field), where, std::nullopt), where);
    }

    /** @brief Waits for and unpacks the exchange under @p key into @p field's ghost cells. */
    template<HaloField Field>
    void finaliseComm(Field& field, const CommKey& key)
    {
        const auto& view = detail::fieldViewRef(field);
        finish<detail::FieldViewType<Field>>(std::span(&view, 1), &byKey(key, false), key.where());
    }

    /** @brief As finaliseComm(field, key), finding the exchange by @p field's data pointer. */
    template<HaloField Field>
    void finaliseComm(Field& field, std::source_location where = std::source_location::current())
    {
        const auto& view = detail::fieldViewRef(field);
        finish<detail::FieldViewType<Field>>(
            std::span(&view, 1), &byField(view.data(), where, false), where
        );
    }

    /** @brief Finalises a multi-field exchange under @p key. */
    template<detail::KokkosField View>
    void finaliseComm(std::initializer_list<View> fields, const CommKey& key)
    {
        finish<View>(std::span(fields.begin(), fields.size()), &byKey(key, false), key.where());
    }

    /** @brief Finalises a multi-field exchange found by the first field's data pointer. */
    template<detail::KokkosField View>
    void finaliseComm(
        std::initializer_list<View> fields,
        std::source_location where = std::source_location::current()
    )
    {
        FIELDSYNC_CHECK_AT(fields.size() > 0, "finaliseComm: no fields", where);
        finish<View>(
            std::span(fields.begin(), fields.size()),
            &byField(fields.begin()->data(), where, false),
            where
        );
    }

    /**
     * @brief Starts sending ghost values back to their owners, combined there with @p op
     * (the receive map's cells go to the send map's cells of the neighbour).
     */
    template<HaloField Field>
    void startReverse(Field& field, ReverseOp op, const CommKey& key = CommKey {})
    {
        const auto& view = detail::fieldViewRef(field);
        start<detail::FieldViewType<Field>>(std::span(&view, 1), key, true, op);
    }

    /** @brief startReverse with mpi::ReduceOp Sum, Max or Min. */
    template<HaloField Field>
    void startReverse(Field& field, mpi::ReduceOp op, const CommKey& key = CommKey {})
    {
        startReverse(field, toReverseOp(op, key.where()), key);
    }

    /** @brief Waits for and combines the reverse exchange under @p key into @p field. */
    template<HaloField Field>
    void finaliseReverse(Field& field, const CommKey& key)
    {
        const auto& view = detail::fieldViewRef(field);
        finish<detail::FieldViewType<Field>>(std::span(&view, 1), &byKey(key, true), key.where());
    }

    /** @brief As finaliseReverse(field, key), finding the exchange by the field. */
    template<HaloField Field>
    void finaliseReverse(Field& field, std::source_location where = std::source_location::current())
    {
        const auto& view = detail::fieldViewRef(field);
        finish<detail::FieldViewType<Field>>(
            std::span(&view, 1), &byField(view.data(), where, true), where
        );
    }

    /** @brief Overrides the environment's time-out policy for this communicator. */
    void setWaitPolicy(mpi::WaitPolicy policy) { policy_ = policy; }

    /**
     * @brief Persistent requests (MPI_Send_init/Recv_init, then MPI_Startall) for every
     * exchange, or MPI_Isend/Irecv for every exchange; overrides the automatic choice.
     */
    void setPersistent(bool persistent) noexcept
    {
        persistentFrom_ = persistent ? 0 : noPersistent;
    }

    /**
     * @brief The automatic choice (the default, from 512 bytes): an exchange whose largest
     * message per neighbour has at least @p bytes uses persistent requests, a smaller one
     * MPI_Isend/Irecv (measured faster below, slower above, with Open MPI 4.1 here; see
     * doc/performance.md).
     */
    void setPersistentFrom(std::size_t bytes) noexcept { persistentFrom_ = bytes; }

    /** @brief Staging::Always forces host staging of every exchange (tests). */
    void setStaging(mpi::Staging staging) noexcept { staging_ = staging; }

    /** @brief In-place communication of contiguous neighbours (default on). */
    void setInPlace(bool inPlace) noexcept { inPlace_ = inPlace; }

    /** @brief The environment of the duplicated communicator. */
    [[nodiscard]] const mpi::MPIEnvironment& environment() const;

    /** @brief The send map. */
    [[nodiscard]] const RankSimplexCommMap& sendMap() const noexcept { return sendMap_; }

    /** @brief The receive map. */
    [[nodiscard]] const RankSimplexCommMap& receiveMap() const noexcept { return receiveMap_; }

    /** @brief The keys in flight with their call sites, one per line (for messages). */
    [[nodiscard]] std::string describeInFlight() const;

    /**
     * @brief The telemetry of @p key (its forward exchange, or its reverse one when
     * @p reverse), accumulated since its first start or the last resetStats().
     * @throws Error when the key never started an exchange of that direction.
     */
    [[nodiscard]] const ExchangeStats& stats(const CommKey& key, bool reverse = false) const;

    /** @brief Zeroes the telemetry of every key. */
    void resetStats() noexcept;

    /**
     * @brief Times pack, post, wait and unpack (the default) or not: the times cost four to six
     * clock reads per exchange (time-stamp counter or steady_clock, see stamp(); about 0.04 us
     * here); the counters are always kept.
     */
    void setTiming(bool timing) noexcept { timing_ = timing; }

    /** @brief Number of buffers in the pool (grows only when all are claimed). */
    [[nodiscard]] std::size_t poolSize() const noexcept { return pool_.size(); }

private:
    template<typename Field>
    static const void* dataOf(const Field& field)
    {
        if constexpr (detail::KokkosField<Field>)
        {
            return field.data();
        }
        else
        {
            return static_cast<const void*>(field.data());
        }
    }

    detail::Exchange& begin(const CommKey& key, bool reverse);
    detail::Exchange& byKey(const CommKey& key, bool reverse);
    detail::Exchange&
    byField(const void* data, const std::source_location& where, std::optional<bool> reverse);
    bool testExchange(detail::Exchange& exchange, const std::source_location& where);
    void waitExchange(detail::Exchange& exchange, const std::source_location& where);
    void checkFieldSize(std::size_t cells, const std::source_location& where) const;
    void release(detail::Exchange& exchange);
    void releaseAfterFailure(detail::Exchange& exchange, const std::source_location& where);
    void requireEnvironment(const std::source_location& where) const;
    const mpi::WaitPolicy& policy() const noexcept;

    /**
     * @brief The telemetry's time stamp in ticks: the CPU time-stamp counter where
     * telemetryClock() found one the kernel trusts (about 10 ns a read here, against 24 ns for
     * steady_clock::now()), else steady_clock nanoseconds; 0 when timing is off.
     */
    [[nodiscard]] std::int64_t stamp() const noexcept { return timing_ ? telemetryTicks(tsc_) : 0; }

    /** @brief Seconds between two stamps. */
    [[nodiscard]] double secondsBetween(std::int64_t from, std::int64_t to) const noexcept
    {
        return static_cast<double>(to - from) * secondsPerTick_;
    }

    /** @brief A free buffer of the pool in @p MemSpace (the exchange's own one first). */
    template<typename MemSpace>
    mpi::FullDuplexCommBuffer<MemSpace>& acquire(detail::Exchange& exchange)
    {
        const std::type_index space { typeid(MemSpace) };
        std::size_t chosen { detail::Exchange::npos };
        const std::size_t last = exchange.lastBuffer;
        if (last != detail::Exchange::npos && !pool_[last].claimed && pool_[last].space == space &&
            pool_[last].reverse == exchange.reverse)
        {
            chosen = last;
        }
        // a free buffer nobody else used first (keeps other keys' persistent requests), then any
        for (int pass = 0; pass < 2 && chosen == detail::Exchange::npos; ++pass)
        {
            for (std::size_t i = 0; i < pool_.size() && chosen == detail::Exchange::npos; ++i)
            {
                const auto& entry = pool_[i];
                if (!entry.claimed && entry.space == space && entry.reverse == exchange.reverse &&
                    (pass == 1 || entry.lastOwner == nullptr || entry.lastOwner == &exchange))
                {
                    chosen = i;
                }
            }
        }
        if (chosen == detail::Exchange::npos)
        {
            const auto& from = exchange.reverse ? receiveMap_ : sendMap_;
            const auto& to = exchange.reverse ? sendMap_ : receiveMap_;
            auto buffer = std::make_shared<mpi::FullDuplexCommBuffer<MemSpace>>(
                *env_,
                sizesOf(from).first,
                sizesOf(from).second,
                sizesOf(to).first,
                sizesOf(to).second
            );
            using Buffer = mpi::FullDuplexCommBuffer<MemSpace>;
            detail::PoolEntry entry { space, exchange.reverse, false, nullptr, buffer };
            entry.isComplete = [](void* b, const std::source_location& where)
            {
                return static_cast<Buffer*>(b)->isComplete(where);
            };
            entry.waitComplete =
                [](void* b, const std::string& name, const std::source_location& where)
            {
                static_cast<Buffer*>(b)->waitComplete(name, where);
            };
            entry.releaseAfterFailure =
                [](void* b, const std::string& name, const std::source_location& where)
            {
                return static_cast<Buffer*>(b)->releaseAfterFailure(name, where);
            };
            pool_.push_back(std::move(entry));
            chosen = pool_.size() - 1;
        }
        auto& entry = pool_[chosen];
        entry.claimed = true;
        entry.lastOwner = &exchange;
        exchange.buffer = chosen;
        exchange.lastBuffer = chosen;
        return *static_cast<mpi::FullDuplexCommBuffer<MemSpace>*>(entry.buffer.get());
    }

    static std::pair<std::vector<int>, std::vector<std::size_t>>
    sizesOf(const RankSimplexCommMap& map);

    /** @brief The map index arrays in @p MemSpace, copied there on first use. */
    template<typename MemSpace>
    const detail::IndexArrays<MemSpace>& indexArrays()
    {
        const std::type_index space { typeid(MemSpace) };
        for (const auto& [s, arrays] : indexCache_)
        {
            if (s == space)
            {
                return *static_cast<const detail::IndexArrays<MemSpace>*>(arrays.get());
            }
        }
        auto arrays = std::make_shared<detail::IndexArrays<MemSpace>>();
        auto copy = [](const RankSimplexCommMap& map, const char* label)
        {
            Kokkos::View<LocalIndex*, MemSpace> view(std::string(label), map.totalSize());
            auto host = Kokkos::create_mirror_view(view);
            for (std::size_t i = 0; i < map.totalSize(); ++i)
            {
                host(i) = map.indices()[i];
            }
            Kokkos::deep_copy(view, host);
            return view;
        };
        arrays->send = copy(sendMap_, "fieldsync::sendIndices");
        arrays->receive = copy(receiveMap_, "fieldsync::receiveIndices");
        indexCache_.emplace_back(space, arrays);
        return *arrays;
    }

    /** @brief Whether a view's memory holds cell i's components at data() + i * comps. */
    template<typename V>
    static bool rowsContiguous(const V& view)
    {
        if constexpr (detail::viewRank<V> == 1)
        {
            return view.stride(0) == 1;
        }
        else
        {
            return view.stride(1) == 1 && view.stride(0) == view.extent(1);
        }
    }

    template<typename V>
    void start(std::span<const V> fields, const CommKey& key, bool reverse, ReverseOp op)
    {
        using T = typename V::non_const_value_type;
        using MemSpace = typename V::memory_space;
        using Exec = typename V::execution_space;
        static_assert(
            std::is_trivially_copyable_v<T>, "halo fields hold trivially copyable values"
        );
        static_assert(!std::is_const_v<typename V::value_type>, "halo fields must be writable");
        const auto startTime = stamp();
        const std::source_location& where = key.where();
        requireEnvironment(where);
        std::size_t stride { 0 };
        for (const V& field : fields)
        {
            checkFieldSize(field.extent(0), where);
            stride += detail::componentsOf(field);
        }
        if (reverse && op != ReverseOp::Replace)
        {
            FIELDSYNC_CHECK_AT(
                std::is_arithmetic_v<T> || op == ReverseOp::Replace,
                std::string("startReverse: op ") + toString(op) + " needs an arithmetic value type",
                where
            );
            FIELDSYNC_CHECK_AT(
                !sendRepeats_,
                "startReverse: the send map lists a cell twice for one neighbour, so a combining "
                "reverse exchange would race",
                where
            );
        }
        detail::Exchange& exchange = begin(key, reverse);
        exchange.op = op;
        auto& buffer = acquire<MemSpace>(exchange);
        double packSeconds { 0.0 };
        try
        {
            const bool staging = mpi::useStaging<MemSpace>(staging_);
            buffer.setTag(exchange.tag);
            buffer.setPersistent(maxCells_ * stride * sizeof(T) >= persistentFrom_);
            buffer.setStaging(staging);
            buffer.setWaitPolicy(policy());
            buffer.template initComm<T>(exchange.key.name(), stride, where);
            const RankSimplexCommMap& out = reverse ? receiveMap_ : sendMap_;
            const RankSimplexCommMap& in = reverse ? sendMap_ : receiveMap_;
            const int me = env_->rank();
            if (inPlace_ && fields.size() == 1 && !staging && rowsContiguous(fields[0]))
            {
                T* data = fields[0].data();
                for (std::size_t k = 0; k < out.neighbourCount(); ++k)
                {
                    if (out.runStart(k) >= 0 && out.neighbours()[k] != me)
                    {
                        buffer.sendHalf().setDirect(
                            k, data + static_cast<std::size_t>(out.runStart(k)) * stride, where
                        );
                    }
                }
                for (std::size_t k = 0; k < in.neighbourCount() && !reverse; ++k)
                {
                    if (in.runStart(k) >= 0 && in.neighbours()[k] != me)
                    {
                        buffer.receiveHalf().setDirect(
                            k, data + static_cast<std::size_t>(in.runStart(k)) * stride, where
                        );
                    }
                }
            }
            buffer.startReceives(where);
            auto& half = buffer.sendHalf();
            // something to pack: a neighbour that does not go to MPI from the field directly
            const bool anyPacked =
                out.totalSize() > 0 &&
                (!half.anyDirect() || directSlots(half, out.neighbourCount()) < nonEmpty(out));
            if (anyPacked)
            {
                const auto packStart = stamp();
                const auto& arrays = indexArrays<MemSpace>();
                const auto& indices = reverse ? arrays.receive : arrays.send;
                auto packed = half.template view<T>(where);
                bool anyRun { false };
                for (std::size_t k = 0; k < out.neighbourCount(); ++k)
                {
                    anyRun = anyRun || out.runStart(k) >= 0;
                }
                const bool oneKernel =
                    !half.anyDirect() && (!anyRun || stride != 1 || detail::viewRank<V> != 1);
                std::size_t offset { 0 };
                for (const V& field : fields)
                {
                    if (oneKernel)
                    {
                        detail::pack(field, packed, indices, 0, out.totalSize(), stride, offset);
                        offset += detail::componentsOf(field);
                        continue;
                    }
                    for (std::size_t k = 0; k < out.neighbourCount(); ++k)
                    {
                        if (!half.isDirect(k) && out.offsets()[k] < out.offsets()[k + 1])
                        {
                            detail::packNeighbour(
                                field,
                                packed,
                                indices,
                                out.offsets()[k],
                                out.offsets()[k + 1],
                                stride,
                                offset,
                                out.runStart(k)
                            );
                        }
                    }
                    offset += detail::componentsOf(field);
                }
                if constexpr (!detail::synchronousHost<Exec>)
                {
                    Exec().fence();
                }
                packSeconds = secondsBetween(packStart, stamp());
            }
            else if constexpr (!detail::synchronousHost<Exec>)
            {
                Exec().fence(); // MPI reads the field in place: the field's kernels must be done
            }
            buffer.startSends(where);
        }
        catch (...)
        {
            if (buffer.isCommInit() && buffer.sendHalf().state() == mpi::BufferState::Claimed &&
                buffer.receiveHalf().state() == mpi::BufferState::Claimed)
            {
                buffer.finaliseComm(where);
            }
            if (!buffer.isCommInit())
            {
                release(exchange);
            }
            throw;
        }
        exchange.where = where;
        exchange.inFlight = true;
        ++inFlight_;
        exchange.fields.clear();
        for (const V& field : fields)
        {
            exchange.fields.push_back(field.data());
        }
        ExchangeStats& stats = exchange.stats;
        const auto& sent = buffer.sendHalf();
        const auto& received = buffer.receiveHalf();
        stats.exchanges += 1;
        stats.messages += sent.postedMessages() + received.postedMessages();
        stats.bytesSent += sent.postedBytes();
        stats.bytesReceived += received.postedBytes();
        stats.packSeconds += packSeconds;
        stats.postSeconds += secondsBetween(startTime, stamp()) - packSeconds;
    }

    /** @brief Number of slots of @p half that go to MPI in place. */
    static std::size_t directSlots(const mpi::CommBufferCore& half, std::size_t slots) noexcept
    {
        std::size_t n { 0 };
        for (std::size_t k = 0; k < slots; ++k)
        {
            n += half.isDirect(k) ? 1 : 0;
        }
        return n;
    }

    /** @brief Number of neighbours of @p map with at least one cell. */
    static std::size_t nonEmpty(const RankSimplexCommMap& map) noexcept
    {
        std::size_t n { 0 };
        for (std::size_t k = 0; k < map.neighbourCount(); ++k)
        {
            n += map.offsets()[k] < map.offsets()[k + 1] ? 1 : 0;
        }
        return n;
    }

    template<typename V>
    void
    finish(std::span<const V> fields, detail::Exchange* exchange, const std::source_location& where)
    {
        using T = typename V::non_const_value_type;
        using MemSpace = typename V::memory_space;
        using Exec = typename V::execution_space;
        const auto startTime = stamp();
        FIELDSYNC_CHECK_AT(
            fields.size() == exchange->fields.size(),
            "finalise '" + exchange->key.name() + "': " + std::to_string(fields.size()) +
                " fields given, but " + std::to_string(exchange->fields.size()) + " were started",
            where
        );
        for (std::size_t f = 0; f < fields.size(); ++f)
        {
            FIELDSYNC_CHECK_AT(
                fields[f].data() == exchange->fields[f],
                "finalise '" + exchange->key.name() + "': field " + std::to_string(f) +
                    " is not the field that was started (started at " + toString(exchange->where) +
                    ")",
                where
            );
        }
        FIELDSYNC_CHECK_AT(
            pool_[exchange->buffer].space == std::type_index(typeid(MemSpace)),
            "finalise '" + exchange->key.name() +
                "': the field's memory space differs from the one started",
            where
        );
        auto& buffer =
            *static_cast<mpi::FullDuplexCommBuffer<MemSpace>*>(pool_[exchange->buffer].buffer.get()
            );
        try
        {
            buffer.waitComplete(exchange->key.name(), where);
        }
        catch (const Error&)
        {
            exchange->stats.waitSeconds += secondsBetween(startTime, stamp());
            releaseAfterFailure(*exchange, where);
            throw;
        }
        const auto unpackStart = stamp();
        exchange->stats.waitSeconds += secondsBetween(startTime, unpackStart);
        const bool reverse = exchange->reverse;
        const RankSimplexCommMap& in = reverse ? sendMap_ : receiveMap_;
        auto& half = buffer.receiveHalf();
        const bool anyUnpacked =
            in.totalSize() > 0 &&
            (!half.anyDirect() || directSlots(half, in.neighbourCount()) < nonEmpty(in));
        if (anyUnpacked)
        {
            const auto& arrays = indexArrays<MemSpace>();
            const auto& indices = reverse ? arrays.send : arrays.receive;
            auto received = half.template view<T>(where);
            std::size_t stride { 0 };
            for (const V& field : fields)
            {
                stride += detail::componentsOf(field);
            }
            std::size_t offset { 0 };
            for (const V& field : fields)
            {
                if (!half.anyDirect() && !reverse)
                {
                    detail::unpack(
                        field, received, indices, 0, in.totalSize(), stride, offset, exchange->op
                    );
                }
                else
                {
                    // per neighbour, in ascending rank order: deterministic combination
                    for (std::size_t k = 0; k < in.neighbourCount(); ++k)
                    {
                        if (!half.isDirect(k) && in.offsets()[k] < in.offsets()[k + 1])
                        {
                            detail::unpack(
                                field,
                                received,
                                indices,
                                in.offsets()[k],
                                in.offsets()[k + 1],
                                stride,
                                offset,
                                exchange->op
                            );
                        }
                    }
                }
                offset += detail::componentsOf(field);
            }
            if constexpr (!detail::synchronousHost<Exec>)
            {
                Exec().fence();
            }
        }
        buffer.finaliseComm(where);
        release(*exchange);
        if (anyUnpacked) // all in place: nothing to unpack, and no clock read for the release
        {
            exchange->stats.unpackSeconds += secondsBetween(unpackStart, stamp());
        }
    }

    std::optional<mpi::MPIEnvironment> env_; /**< duplicated communicator */
    RankSimplexCommMap sendMap_;             /**< cells sent to each neighbour */
    RankSimplexCommMap receiveMap_;          /**< ghost cells received from each */
    bool sendRepeats_ { false };             /**< send map repeats a cell per neighbour */
    std::deque<detail::Exchange> exchanges_; /**< every key seen (stable addresses) */
    detail::ExchangeCache lastExchange_;     /**< the key started last (no scan when restarted) */
    std::size_t inFlight_ { 0 };             /**< exchanges in flight (no tag scan when none) */
    std::deque<detail::PoolEntry> pool_;     /**< the buffer pool */
    std::vector<std::pair<std::type_index, std::shared_ptr<void>>>
        indexCache_;                        /**< index arrays per space */
    std::optional<mpi::WaitPolicy> policy_; /**< time-out policy override */
    mpi::WaitPolicy envPolicy_;             /**< the environment's policy, read at construction */
    static constexpr std::size_t noPersistent = static_cast<std::size_t>(-1); /**< never */
    std::size_t persistentFrom_ { 512 };          /**< persistent requests from this message size */
    std::size_t maxCells_ { 0 };                  /**< most cells of one neighbour, either map */
    mpi::Staging staging_ { mpi::Staging::Auto }; /**< forced staging */
    bool inPlace_ { true };                       /**< in-place contiguous neighbours */
    bool timing_ { true };                        /**< telemetry reads the clock */
    bool tsc_ { false };                          /**< stamps read the time-stamp counter */
    double secondsPerTick_ { 1e-9 };              /**< seconds per stamp tick */
};

} // namespace fieldsync
