// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/commKey.hpp"
#include "fieldsync/halo/commitOptions.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/halo/exchangeOptions.hpp"
#include "fieldsync/halo/exchangeStats.hpp"
#include "fieldsync/halo/fields.hpp"
#include "fieldsync/halo/fullDuplexCommBuffer.hpp"
#include "fieldsync/halo/rankSimplexCommMap.hpp"
#include "fieldsync/halo/reverseOp.hpp"
#include "fieldsync/mpi/memorySpace.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace fieldsync::halo
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

/** @brief A field the Communicator takes: a rank-1/2 Kokkos::View, a std::vector or std::span. */
template<typename F>
concept KokkosField = Kokkos::is_view<F>::value &&(viewRank<F> == 1 || viewRank<F> == 2);

/**
 * @brief A padded structured block (halo::StructuredBlock): a rank-3 Kokkos::View, exchanged as
 * a rank-1 view over its span, so a cell is its linear index in the view's layout.
 */
template<typename F>
concept BlockField = Kokkos::is_view<F>::value &&(viewRank<F> == 3);

/**
 * @brief A field object that holds its data in a rank-1/2 Kokkos::View and hands it out with
 * `view()` (NeoN's Vector, fieldsync/core/vector/vector.hpp in compat/): exchanged as that view.
 */
template<typename F>
concept ViewHolder = requires(F& field)
{
    requires KokkosField<std::remove_cvref_t<decltype(field.view())>>;
};

/** @brief The rank-1 unmanaged view over the span of a BlockField (same memory and device). */
template<typename V>
using BlockSpanView = Kokkos::View<
    typename V::value_type*,
    Kokkos::LayoutRight,
    typename V::device_type,
    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/** @brief A host view over a std::vector or std::span (no copy). */
template<typename T>
using HostFieldView = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/**
 * @brief The field as a Kokkos view without copying a view (a reference to it: a copy of a
 * managed view costs two atomic reference-count updates), a ViewHolder's view() (a reference
 * when view() returns one), an unmanaged rank-1 view over the
 * span of a contiguous rank-3 view (an Error naming @p where when it is not contiguous), or an
 * unmanaged host view over a std::vector or std::span.
 */
template<typename F>
decltype(auto) fieldViewRef(F& field, const std::source_location& where)
{
    using Plain = std::remove_cvref_t<F>;
    if constexpr (KokkosField<Plain>)
    {
        return static_cast<const Plain&>(field);
    }
    else if constexpr (ViewHolder<Plain>)
    {
        return field.view();
    }
    else if constexpr (BlockField<Plain>)
    {
        FIELDSYNC_CHECK_AT(
            field.span_is_contiguous(),
            "Communicator: rank-3 view '" + field.label() +
                "' is not contiguous (span_is_contiguous() is false); exchange a LayoutLeft or "
                "LayoutRight view of the whole padded block, not a strided subview",
            where
        );
        return BlockSpanView<Plain>(field.data(), field.span());
    }
    else
    {
        using T = std::remove_reference_t<decltype(*field.data())>;
        return HostFieldView<T>(field.data(), field.size());
    }
}

/** @brief The view type fieldViewRef gives for @p F. */
template<typename F>
using FieldViewType = std::remove_cvref_t<
    decltype(fieldViewRef(std::declval<F&>(), std::declval<const std::source_location&>()))>;

/** @brief The default instance's type of @p F's execution space (where its kernels run). */
template<typename F>
using FieldExecution = typename FieldViewType<F>::execution_space;
} // namespace detail

/**
 * @brief What Communicator::startComm accepts: Kokkos::View<T*> or Kokkos::View<T**>
 * (cells x components, LayoutLeft or LayoutRight) in any memory space, a contiguous
 * Kokkos::View<T***> (a padded structured block: cell = linear index in the view's layout,
 * see StructuredBlock), std::vector<T>, std::span<T>, and a field object whose `view()` is a
 * rank-1/2 Kokkos::View (NeoN's Vector in compat/).
 */
template<typename F>
concept HaloField = detail::KokkosField<std::remove_cvref_t<F>> ||
    detail::ViewHolder<std::remove_cvref_t<F>> || detail::BlockField<std::remove_cvref_t<F>> ||
    detail::IsStdVector<std::remove_cvref_t<F>>::value ||
    detail::IsStdSpan<std::remove_cvref_t<F>>::value;

class CommunicatorState;
class GhostList;
struct ExchangeContext;

/**
 * @brief Non-blocking synchronisation of fields over one halo pattern (a send and a receive
 * RankSimplexCommMap), keyed by call site.
 *
 * `startComm(field, key)` packs the send cells (Kokkos kernel "fieldsync::pack" in the field's
 * execution space) into a pooled buffer in the field's memory space and starts the messages;
 * `finaliseComm(field, key)` waits (no hot spin, with the time-out of mpi::WaitPolicy) and
 * unpacks into the ghost cells ("fieldsync::unpack"). Each key in flight holds its own buffer
 * and its own MPI tag on a duplicate of the environment's communicator; a tag collision between
 * two keys in flight is an Error. Without a key, startComm uses its caller's file:line, and
 * isComplete, waitComplete and finaliseComm find the exchange in flight by the field's data
 * pointer. Finalising with another field than the one started (other extents, strides, layout,
 * value type or memory) is an Error.
 *
 * In-place: neighbours whose cells are one ascending run of consecutive indices go to MPI from
 * and into the field directly (no pack or unpack), for a single field whose runs of cells are one
 * stretch of memory (halo::ValueOrder::Rows: rank 1, LayoutRight, or one column of any layout) in
 * memory MPI can reach. Rule that follows (as with PetscSF): between start and finalise, do not
 * write the cells of the send map nor touch ghost cells. ExchangeOptions::inPlace turns it off.
 *
 * Declare, then commit (seed 001): the constructor declares the pattern and commits it;
 * `Communicator::declare(...)` only declares, and `commit(options)` (collective) checks the
 * pattern between neighbours, builds the graph topology the neighbourhood back end needs and
 * chooses the back end (CommitOptions). A pattern that disagrees between two ranks is an Error
 * on every rank, naming both ranks, at commit: never silent wrong ghosts. The constructor checks
 * the pattern and agrees on the Communicator's context in one collective step (an answered
 * exchange, mpi::answeredExchange, doc/halo.md); a declared Communicator takes two.
 *
 * These templates only describe the fields (ViewFields); the exchange itself is compiled in
 * src/halo/ as named steps (doc/architecture.md).
 */
class Communicator
{
public:
    /** @brief NeoN's Communicator::bufferType: the two-way buffer, in host memory. */
    using bufferType = FullDuplexCommBuffer<Kokkos::HostSpace>;

    /** @brief An empty communicator (the seed default-constructs, then assigns). */
    Communicator();

    /**
     * @brief Collective: duplicates @p env's communicator, takes the two maps and commits them
     * with the default CommitOptions.
     * @throws Error when a map is for another communicator size, a receive map writes a cell
     * twice, the self message sizes differ, or the pattern disagrees between neighbours.
     */
    Communicator(
        mpi::MPIEnvironment env,
        RankSimplexCommMap sendMap,
        RankSimplexCommMap receiveMap,
        std::source_location where = std::source_location::current()
    );

    /** @brief Collective: declares the two maps and commits them with @p options. */
    Communicator(
        mpi::MPIEnvironment env,
        RankSimplexCommMap sendMap,
        RankSimplexCommMap receiveMap,
        const CommitOptions& options,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief Collective: declares the pattern without committing it; commit() before the first
     * exchange (an exchange before is an Error).
     */
    [[nodiscard]] static Communicator declare(
        mpi::MPIEnvironment env,
        RankSimplexCommMap sendMap,
        RankSimplexCommMap receiveMap,
        std::source_location where = std::source_location::current()
    );

    /**
     * @brief Collective over the communicator: checks the pattern between neighbours, builds
     * what the back end needs and chooses it (see CommitOptions). Once.
     * @throws Error on every rank when any rank found a disagreement (the ranks involved name
     * both ranks and the counts or order; the others name the lowest failing rank).
     */
    void commit(
        const CommitOptions& options = {},
        std::source_location where = std::source_location::current()
    );

    /** @brief Whether commit() has run. */
    [[nodiscard]] bool committed() const noexcept;

    /** @brief The back end commit chose (Auto resolved). */
    [[nodiscard]] BackEnd backEnd() const;

    /**
     * @brief Logs an error for each exchange still in flight, then cancels and completes its
     * messages before any memory is freed.
     */
    ~Communicator();

    // Not copyable (NeoN's Communicator is): a copy would share the private communicator and the
    // exchanges in flight. Move it, or make another from the same maps (doc/porting.md).
    Communicator(const Communicator&) = delete; // NeoN copies: move instead, doc/porting.md
    Communicator& operator=(const Communicator&) = delete; // NeoN copies: doc/porting.md
    /** @brief Moves (exchanges in flight move along, buffers stay where they are). */
    Communicator(Communicator&&) noexcept;
    /** @brief Move-assigns. */
    Communicator& operator=(Communicator&&) noexcept;

    /** @brief Starts synchronising the ghost cells of @p field under @p key. */
    template<HaloField Field>
    void startComm(Field& field, const CommKey& key = CommKey {})
    {
        startComm(detail::FieldExecution<Field>(), field, key);
    }

    /**
     * @brief As startComm(field, key), with the pack kernels enqueued on the execution space
     * instance @p exec (a Kokkos::Cuda made on a stream of the caller's, say). Only @p exec is
     * fenced before MPI reads the field or its buffer: kernels on other instances run on.
     */
    template<typename ExecutionSpace, HaloField Field>
    requires Kokkos::is_execution_space<ExecutionSpace>::value void
    startComm(const ExecutionSpace& exec, Field& field, const CommKey& key = CommKey {})
    {
        const auto& view = viewOf(field, key.where());
        start(
            ViewFields<detail::FieldViewType<Field>, ExecutionSpace>(std::span(&view, 1), exec),
            key,
            false,
            ReverseOp::Replace
        );
    }

    /** @brief Starts several fields of one type in one message per neighbour. */
    template<detail::KokkosField View>
    void startComm(std::initializer_list<View> fields, const CommKey& key = CommKey {})
    {
        start(
            ViewFields<View>(std::span(fields.begin(), fields.size())),
            key,
            false,
            ReverseOp::Replace
        );
    }

    /**
     * @brief Whether the exchange under @p key has completed (never blocks). Every 16th test
     * that finds it incomplete also looks for a peer's notice (doc/reliability.md): a peer that
     * left this start with an Error makes it throw that Error, naming the peer.
     */
    bool isComplete(const CommKey& key);

    /** @brief Whether the exchange of @p field in flight has completed. */
    template<HaloField Field>
    [[nodiscard]] bool
    isComplete(const Field& field, std::source_location where = std::source_location::current())
    {
        return testByField(static_cast<const void*>(field.data()), where);
    }

    /**
     * @brief Lets MPI move every exchange in flight (one test of each; never blocks, allocates
     * nothing) and says whether all of them have completed (true when none is in flight).
     *
     * For overlap: a solver calls it between chunks of its interior update, so that MPI
     * libraries that progress messages only inside MPI calls (Open MPI's and MPICH's default
     * builds, for rendezvous-size messages) move the data while the interior is computed. The
     * time is not counted as wait in ExchangeStats. An exchange that failed throws its Error here
     * as isComplete would (a peer's notice included).
     */
    bool progress(std::source_location where = std::source_location::current());

    /** @brief Waits for the exchange under @p key (time-out as in mpi::WaitPolicy). */
    void waitComplete(const CommKey& key);

    /** @brief Waits for the exchange of @p field in flight. */
    template<HaloField Field>
    void
    waitComplete(const Field& field, std::source_location where = std::source_location::current())
    {
        waitByField(static_cast<const void*>(field.data()), where);
    }

    /** @brief Waits for and unpacks the exchange under @p key into @p field's ghost cells. */
    template<HaloField Field>
    void finaliseComm(Field& field, const CommKey& key)
    {
        finaliseComm(detail::FieldExecution<Field>(), field, key);
    }

    /** @brief As finaliseComm(field, key), finding the exchange by @p field's data pointer. */
    template<HaloField Field>
    void finaliseComm(Field& field, std::source_location where = std::source_location::current())
    {
        finaliseComm(detail::FieldExecution<Field>(), field, where);
    }

    /**
     * @brief As finaliseComm(field, key), with the unpack kernels on the instance @p exec, which
     * alone is fenced before the call returns.
     */
    template<typename ExecutionSpace, HaloField Field>
    requires Kokkos::is_execution_space<ExecutionSpace>::value void
    finaliseComm(const ExecutionSpace& exec, Field& field, const CommKey& key)
    {
        const auto& view = viewOf(field, key.where());
        finish(
            ViewFields<detail::FieldViewType<Field>, ExecutionSpace>(std::span(&view, 1), exec),
            &key,
            false,
            key.where()
        );
    }

    /** @brief As finaliseComm(exec, field, key), finding the exchange by @p field's data. */
    template<typename ExecutionSpace, HaloField Field>
    requires Kokkos::is_execution_space<ExecutionSpace>::value void finaliseComm(
        const ExecutionSpace& exec,
        Field& field,
        std::source_location where = std::source_location::current()
    )
    {
        const auto& view = viewOf(field, where);
        finish(
            ViewFields<detail::FieldViewType<Field>, ExecutionSpace>(std::span(&view, 1), exec),
            nullptr,
            false,
            where
        );
    }

    /** @brief Finalises a multi-field exchange under @p key. */
    template<detail::KokkosField View>
    void finaliseComm(std::initializer_list<View> fields, const CommKey& key)
    {
        finish(
            ViewFields<View>(std::span(fields.begin(), fields.size())), &key, false, key.where()
        );
    }

    /** @brief Finalises a multi-field exchange found by the first field's data pointer. */
    template<detail::KokkosField View>
    void finaliseComm(
        std::initializer_list<View> fields,
        std::source_location where = std::source_location::current()
    )
    {
        finish(ViewFields<View>(std::span(fields.begin(), fields.size())), nullptr, false, where);
    }

    /**
     * @brief Starts sending ghost values back to their owners, combined there with @p op
     * (the receive map's cells go to the send map's cells of the neighbour).
     */
    template<HaloField Field>
    void startReverse(Field& field, ReverseOp op, const CommKey& key = CommKey {})
    {
        const auto& view = viewOf(field, key.where());
        start(ViewFields<detail::FieldViewType<Field>>(std::span(&view, 1)), key, true, op);
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
        const auto& view = viewOf(field, key.where());
        finish(
            ViewFields<detail::FieldViewType<Field>>(std::span(&view, 1)), &key, true, key.where()
        );
    }

    /** @brief As finaliseReverse(field, key), finding the exchange by the field. */
    template<HaloField Field>
    void finaliseReverse(Field& field, std::source_location where = std::source_location::current())
    {
        const auto& view = viewOf(field, where);
        finish(ViewFields<detail::FieldViewType<Field>>(std::span(&view, 1)), nullptr, true, where);
    }

    /**
     * @brief The knobs of the exchanges in force (ExchangeOptions), the wait policy filled in:
     * the defaults, or what setOptions set last.
     */
    [[nodiscard]] const ExchangeOptions& options() const;

    /**
     * @brief Sets the knobs of the exchanges (ExchangeOptions): each key's next start runs with
     * them (an exchange in flight keeps the ones it started with). Local: no other rank waits.
     * An empty waitPolicy reads the environment's now.
     * @throws Error naming @p where and the rank when the Communicator is empty
     * (default-constructed) or the wait policy's seconds are not finite and greater than 0.
     */
    void setOptions(
        const ExchangeOptions& options,
        const std::source_location& where = std::source_location::current()
    );

    // the knob setters of earlier releases: each sets one field of options() through setOptions
    /** @brief Sets ExchangeOptions::waitPolicy. */
    [[deprecated("use Communicator::setOptions")]] void setWaitPolicy(mpi::WaitPolicy policy);
    /** @brief Sets ExchangeOptions::persistentFrom: 0 (true) or neverPersistent (false). */
    [[deprecated("use Communicator::setOptions")]] void setPersistent(bool persistent);
    /** @brief Sets ExchangeOptions::staging. */
    [[deprecated("use Communicator::setOptions")]] void setStaging(mpi::Staging staging);
    /** @brief Sets ExchangeOptions::inPlace. */
    [[deprecated("use Communicator::setOptions")]] void setInPlace(bool inPlace);
    /** @brief Sets ExchangeOptions::timing. */
    [[deprecated("use Communicator::setOptions")]] void setTiming(bool timing);

    /**
     * @brief The environment the Communicator's messages travel on: the duplicate cached on
     * the communicator it was built over, which the other Communicators built over that
     * communicator share (each in a window of tags of its own, tagOf()), or a duplicate of its
     * own. Its ranks are those of that communicator; send nothing on it.
     */
    [[nodiscard]] const mpi::MPIEnvironment& environment() const;

    /**
     * @brief The MPI tag of the exchanges under @p key (@p reverse: of its reverse exchanges) on
     * environment(): what MPI tracing tools show. Two keys with the same tag cannot be in
     * flight at once (an Error names both).
     */
    [[nodiscard]] int tagOf(const CommKey& key, bool reverse = false) const;

    /** @brief The send map. */
    [[nodiscard]] const RankSimplexCommMap& sendMap() const;

    /** @brief The receive map. */
    [[nodiscard]] const RankSimplexCommMap& receiveMap() const;

    /** @brief The keys in flight with their call sites, one per line (for messages). */
    [[nodiscard]] std::string describeInFlight() const;

    /**
     * @brief The telemetry of @p key (its forward exchange, or its reverse one when
     * @p reverse), accumulated since its first start or the last resetStats(). The reference
     * holds the values as of this call (the clock's ticks converted to seconds here); call
     * again for newer ones.
     * @throws Error when the key never started an exchange of that direction.
     */
    [[nodiscard]] const ExchangeStats& stats(const CommKey& key, bool reverse = false) const;

    /** @brief Zeroes the telemetry of every key. */
    void resetStats() noexcept;

    /**
     * @brief This rank's telemetry of every key as one JSON object: `{"rank": r, "keys": [{"key":
     * name, "reverse": bool, "exchanges", "messages", "bytesSent", "bytesReceived",
     * "packSeconds", "postSeconds", "waitSeconds", "unpackSeconds"}, ...]}` (keys in the order
     * of their first start).
     */
    [[nodiscard]] std::string
    statsJson(const std::source_location& where = std::source_location::current()) const;

    /**
     * @brief Collective over the Communicator's ranks: rank 0 writes `{"ranks": [statsJson() of
     * rank 0, of rank 1, ...]}` to @p path (replacing it).
     * @throws Error on every rank when rank 0 cannot write the file.
     */
    void writeStats(
        const std::string& path, const std::source_location& where = std::source_location::current()
    ) const;

    /** @brief Number of buffers in the pool (grows only when all are claimed). */
    [[nodiscard]] std::size_t poolSize() const noexcept;

private:
    friend class GhostList;

    /** @brief The engine's type-erased fields (halo::detail), under their short name here. */
    using Fields = detail::Fields;

    /** @brief The engine's Fields of views of type @p V (halo::detail::ViewFields). */
    template<typename V, typename Exec = typename V::execution_space>
    using ViewFields = detail::ViewFields<V, Exec>;

    /**
     * @brief For GhostList, whose maps agree by construction and were checked on every rank:
     * takes @p context (the communicator, tags and identifier the set-up agreed on) and commits
     * with @p options' back end, without checks and without waiting for other ranks.
     */
    [[nodiscard]] static Communicator adopt(
        ExchangeContext context,
        RankSimplexCommMap sendMap,
        RankSimplexCommMap receiveMap,
        const CommitOptions& options,
        const std::source_location& where
    );

    /**
     * @brief detail::fieldViewRef(), after checking a rank-3 view against the block shape the
     * maps carry (its layout is a compile-time property, so no rank waits for another).
     */
    template<typename F>
    decltype(auto) viewOf(F& field, const std::source_location& where) const
    {
        using Plain = std::remove_cvref_t<F>;
        if constexpr (detail::BlockField<Plain>)
        {
            auto view = detail::fieldViewRef(field, where); // contiguous, or an Error first
            using Layout = typename Plain::array_layout;
            const int order { std::is_same_v<Layout, Kokkos::LayoutRight>  ? 0
                              : std::is_same_v<Layout, Kokkos::LayoutLeft> ? 1
                                                                           : -1 };
            checkBlock(
                order, { field.extent(0), field.extent(1), field.extent(2) }, field.label(), where
            );
            return view;
        }
        else
        {
            return detail::fieldViewRef(field, where);
        }
    }

    /**
     * @brief Throws an Error at @p where when the maps carry a block shape (StructuredBlock)
     * and the rank-3 view @p label has another @p order (0 LayoutRight, 1 LayoutLeft, -1
     * another layout, not checked) or other @p extents.
     */
    void checkBlock(
        int order,
        const std::array<std::size_t, 3>& extents,
        const std::string& label,
        const std::source_location& where
    ) const;

    void start(const Fields& fields, const CommKey& key, bool reverse, ReverseOp op);
    void finish(
        const Fields& fields, const CommKey* key, bool reverse, const std::source_location& where
    );
    bool testByField(const void* data, const std::source_location& where);
    void waitByField(const void* data, const std::source_location& where);
    CommunicatorState& state(const std::source_location& where) const;
    /** @brief state(), and an Error naming @p call at @p where unless MPI runs (not finalised:
     * a Communicator kept past its MPIInit), checked before any call into MPI. */
    CommunicatorState& running(const char* call, const std::source_location& where) const;

    std::unique_ptr<CommunicatorState> state_; /**< everything (src/halo/communicatorState.hpp) */
};

} // namespace fieldsync::halo
