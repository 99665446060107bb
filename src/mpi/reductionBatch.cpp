// SPDX-License-Identifier: MIT
// ReductionBatch (include/fieldsync/mpi/reductionBatch.hpp): the packed buffer, one datatype per
// batch (registered with its layout), and the combined op, created once and freed when MPI is
// finalised. The allreduce is MPI's, or fieldsync's own recursive doubling
// (mpi/algorithms.hpp), which applies the combined op to the batch's datatype with
// MPI_Reduce_local.
#include "fieldsync/mpi/reductionBatch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/mpi/algorithms.hpp"
#include "fieldsync/mpi/gathers.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "requestState.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>

namespace fieldsync::mpi
{

namespace detail
{

namespace
{

/** One entry's place in the packed buffer: its offset, type and op. */
struct Field
{
    std::size_t offset { 0 };          /**< bytes from the start of the packed buffer */
    BatchType type { BatchType::Int }; /**< its type */
    ReduceOp op { ReduceOp::Sum };     /**< its op */
};

/** The size of a value of @p type. */
std::size_t bytesOf(BatchType type) noexcept
{
    static_assert(
        sizeof(int) == 4 && sizeof(float) == 4 && sizeof(long) == 8 && sizeof(long long) == 8 &&
            sizeof(double) == 8 && sizeof(bool) == 1,
        "the packed buffer holds values of 8, 4 and 1 bytes (an LP64 platform)"
    );
    switch (type)
    {
    case BatchType::Int:
    case BatchType::UInt:
    case BatchType::Float:
        return 4;
    case BatchType::Bool:
        return 1;
    default:
        return 8;
    }
}

const char* nameOf(BatchType type) noexcept
{
    switch (type)
    {
    case BatchType::Int:
        return "int";
    case BatchType::UInt:
        return "unsigned int";
    case BatchType::Long:
        return "long";
    case BatchType::ULong:
        return "unsigned long";
    case BatchType::LongLong:
        return "long long";
    case BatchType::ULongLong:
        return "unsigned long long";
    case BatchType::Float:
        return "float";
    case BatchType::Double:
        return "double";
    case BatchType::Bool:
        return "bool";
    }
    return "unknown";
}

/** Whether @p op is MinLoc or MaxLoc (an entry of a value and its location). */
bool isLoc(ReduceOp op) noexcept
{
    return op == ReduceOp::MinLoc || op == ReduceOp::MaxLoc;
}

/** Whether @p op is defined on @p type (as for the collectives, doc/collectives.md; MinLoc and
 * MaxLoc on the signed types MPI pairs with an index: int, long, long long, float, double). */
bool defined(BatchType type, ReduceOp op) noexcept
{
    switch (type)
    {
    case BatchType::Float:
    case BatchType::Double:
        return op == ReduceOp::Sum || op == ReduceOp::Prod || op == ReduceOp::Min ||
               op == ReduceOp::Max || isLoc(op);
    case BatchType::Bool:
        return op == ReduceOp::LAnd || op == ReduceOp::LOr || op == ReduceOp::LXor;
    case BatchType::Int:
    case BatchType::Long:
    case BatchType::LongLong:
        return true;
    default:
        return !isLoc(op);
    }
}

/** The bytes of one packed entry: its value, or for MinLoc and MaxLoc a record of 16 (the value
 * at 0, its std::int64_t location at 8). */
std::size_t recordBytes(BatchType type, ReduceOp op) noexcept
{
    return isLoc(op) ? 16 : bytesOf(type);
}

/** @p b = @p a op @p b for a value of type T. */
template<typename T>
T combineValue(ReduceOp op, T a, T b) noexcept
{
    switch (op)
    {
    case ReduceOp::Sum:
        if constexpr (std::is_same_v<T, bool>)
        {
            return b;
        }
        else
        {
            return static_cast<T>(a + b);
        }
    case ReduceOp::Prod:
        if constexpr (std::is_same_v<T, bool>)
        {
            return b;
        }
        else
        {
            return static_cast<T>(a * b);
        }
    case ReduceOp::Min:
        return b < a ? b : a;
    case ReduceOp::Max:
        return b > a ? b : a;
    case ReduceOp::LAnd:
        return static_cast<T>((a != T {}) && (b != T {}));
    case ReduceOp::LOr:
        return static_cast<T>((a != T {}) || (b != T {}));
    case ReduceOp::LXor:
        return static_cast<T>((a != T {}) != (b != T {}));
    case ReduceOp::BAnd:
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        {
            return static_cast<T>(a & b);
        }
        else
        {
            return b;
        }
    case ReduceOp::BOr:
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        {
            return static_cast<T>(a | b);
        }
        else
        {
            return b;
        }
    case ReduceOp::BXor:
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        {
            return static_cast<T>(a ^ b);
        }
        else
        {
            return b;
        }
    default:
        return b;
    }
}

/** Combines @p count values of one type and op: @p inout[i] = @p in[i] op @p inout[i]. */
using Combiner = void (*)(std::size_t count, const std::byte* in, std::byte* inout);

/** The Combiner of T and @p Op: the op is a constant, so the loop has no switch. */
template<typename T, ReduceOp Op>
void combineRunOf(std::size_t count, const std::byte* in, std::byte* inout) noexcept
{
    for (std::size_t i = 0; i < count; ++i)
    {
        T a;
        T b;
        std::memcpy(&a, in + i * sizeof(T), sizeof(T));
        std::memcpy(&b, inout + i * sizeof(T), sizeof(T));
        b = combineValue<T>(Op, a, b);
        std::memcpy(inout + i * sizeof(T), &b, sizeof(T));
    }
}

/** The Combiner of MinLoc or MaxLoc records (value T at 0, std::int64_t location at 8): the
 * smaller (MinLoc) or larger (MaxLoc) value wins, and of equal values the lower location, as
 * MPI_MINLOC and MPI_MAXLOC do. */
template<typename T, ReduceOp Op>
void combineLocRunOf(std::size_t count, const std::byte* in, std::byte* inout) noexcept
{
    for (std::size_t i = 0; i < count; ++i)
    {
        const std::byte* a { in + i * 16 };
        std::byte* b { inout + i * 16 };
        T va;
        T vb;
        std::int64_t la { 0 };
        std::int64_t lb { 0 };
        std::memcpy(&va, a, sizeof(T));
        std::memcpy(&vb, b, sizeof(T));
        std::memcpy(&la, a + 8, sizeof(la));
        std::memcpy(&lb, b + 8, sizeof(lb));
        const bool better { Op == ReduceOp::MinLoc ? va < vb : va > vb };
        if (better || (va == vb && la < lb))
        {
            std::memcpy(b, a, 16);
        }
    }
}

/** The Combiner of T and @p op (chosen once, when the layout is made). */
template<typename T>
Combiner combinerOf(ReduceOp op) noexcept
{
    switch (op)
    {
    case ReduceOp::Sum:
        return &combineRunOf<T, ReduceOp::Sum>;
    case ReduceOp::Prod:
        return &combineRunOf<T, ReduceOp::Prod>;
    case ReduceOp::Min:
        return &combineRunOf<T, ReduceOp::Min>;
    case ReduceOp::Max:
        return &combineRunOf<T, ReduceOp::Max>;
    case ReduceOp::LAnd:
        return &combineRunOf<T, ReduceOp::LAnd>;
    case ReduceOp::LOr:
        return &combineRunOf<T, ReduceOp::LOr>;
    case ReduceOp::LXor:
        return &combineRunOf<T, ReduceOp::LXor>;
    case ReduceOp::BAnd:
        return &combineRunOf<T, ReduceOp::BAnd>;
    case ReduceOp::BOr:
        return &combineRunOf<T, ReduceOp::BOr>;
    case ReduceOp::BXor:
        return &combineRunOf<T, ReduceOp::BXor>;
    case ReduceOp::MinLoc:
        return &combineLocRunOf<T, ReduceOp::MinLoc>;
    case ReduceOp::MaxLoc:
        return &combineLocRunOf<T, ReduceOp::MaxLoc>;
    }
    return nullptr;
}

/** The Combiner of @p type and @p op. */
Combiner combinerOf(BatchType type, ReduceOp op) noexcept
{
    switch (type)
    {
    case BatchType::Int:
        return combinerOf<int>(op);
    case BatchType::UInt:
        return combinerOf<unsigned>(op);
    case BatchType::Long:
        return combinerOf<long>(op);
    case BatchType::ULong:
        return combinerOf<unsigned long>(op);
    case BatchType::LongLong:
        return combinerOf<long long>(op);
    case BatchType::ULongLong:
        return combinerOf<unsigned long long>(op);
    case BatchType::Float:
        return combinerOf<float>(op);
    case BatchType::Double:
        return combinerOf<double>(op);
    case BatchType::Bool:
        break;
    }
    return combinerOf<bool>(op);
}

/** Consecutive fields of one type and op in the packed buffer, combined in one loop. */
struct Group
{
    std::size_t offset { 0 };          /**< bytes from the start of the packed buffer */
    std::size_t count { 0 };           /**< values */
    BatchType type { BatchType::Int }; /**< their type */
    ReduceOp op { ReduceOp::Sum };     /**< their op */
    Combiner combine { nullptr };      /**< the loop of their type and op */
};

/**
 * The layout of one batch, registered with its MPI datatype (the op looks it up). The values are
 * packed in groups of one type and op (largest types first, so no padding between them), not in
 * the order added: the op then switches once per group, not once per value.
 */
struct Layout
{
    std::vector<Field> fields; /**< in the order added, each with its packed offset */
    std::vector<Group> groups; /**< in packed order */
    std::size_t bytes { 0 };   /**< the packed size (one element of the datatype) */

    /** Adds a field of @p type and @p op and packs all of them again, grouped. */
    void add(BatchType type, ReduceOp op)
    {
        fields.push_back({ 0, type, op });
        std::vector<std::size_t> order(fields.size());
        std::iota(order.begin(), order.end(), std::size_t { 0 });
        const auto key = [this](std::size_t i)
        {
            const Field& f = fields[i];
            return std::tuple(-static_cast<int>(recordBytes(f.type, f.op)), f.type, f.op);
        };
        std::stable_sort(
            order.begin(),
            order.end(),
            [&](std::size_t a, std::size_t b) { return key(a) < key(b); }
        );
        groups.clear();
        bytes = 0;
        for (const std::size_t i : order)
        {
            Field& f = fields[i];
            const std::size_t size = recordBytes(f.type, f.op);
            if (groups.empty() || groups.back().type != f.type || groups.back().op != f.op)
            {
                bytes = (bytes + size - 1) / size * size;
                groups.push_back({ bytes, 0, f.type, f.op, combinerOf(f.type, f.op) });
            }
            f.offset = bytes;
            bytes += size;
            ++groups.back().count;
        }
    }
};

/**
 * The layouts of the batches' datatypes. The op looks its datatype up here rather than in an
 * MPI attribute: a user op should not call MPI (MPICH may hold its lock while it runs).
 */
struct Layouts
{
    std::mutex mutex;                                            /**< guards entries */
    std::vector<std::pair<MPI_Datatype, const Layout*>> entries; /**< one per live datatype */
};

Layouts& layouts()
{
    static Layouts registry;
    return registry;
}

/** The layout of @p type, from the registry. */
const Layout* layoutOf(MPI_Datatype type)
{
    Layouts& registry = layouts();
    const std::lock_guard lock(registry.mutex);
    for (const auto& [datatype, layout] : registry.entries)
    {
        if (datatype == type)
        {
            return layout;
        }
    }
    return nullptr;
}

/** The combined op: MPI passes the batch's datatype, whose layout says where each group is and
 * which loop combines it; every element (one per call: the whole batch) is combined group by
 * group. */
void combine(void* in, void* inout, int* len, MPI_Datatype* type)
{
    const Layout* found = layoutOf(*type);
    if (found == nullptr)
    {
        return; // not a batch's datatype: cannot happen, the op is private
    }
    const Layout& layout = *found;
    const auto* a = static_cast<const std::byte*>(in);
    auto* b = static_cast<std::byte*>(inout);
    for (int i = 0; i < *len; ++i)
    {
        for (const Group& g : layout.groups)
        {
            g.combine(g.count, a + g.offset, b + g.offset);
        }
        a += layout.bytes;
        b += layout.bytes;
    }
}

/** The combined op, shared by every batch of the process. */
struct Fused
{
    MPI_Op op { MPI_OP_NULL }; /**< combine() */
};

Fused fused;
std::mutex fusedMutex;
std::atomic<bool> fusedReady { false }; /**< fused.op exists: no lock on the way to it */

/** MPI_COMM_SELF's attribute delete callback: runs at the start of MPI_Finalize. */
int freeFused(MPI_Comm /*comm*/, int /*keyval*/, void* /*value*/, void* /*extra*/)
{
    const std::lock_guard lock(fusedMutex);
    fusedReady.store(false, std::memory_order_release);
    if (fused.op != MPI_OP_NULL)
    {
        MPI_Op_free(&fused.op);
    }
    return MPI_SUCCESS;
}

/** The combined op, created at the first call after MPI_Init. */
const Fused& fusedOp(const std::source_location& where)
{
    if (fusedReady.load(std::memory_order_acquire))
    {
        return fused;
    }
    const std::lock_guard lock(fusedMutex);
    if (fused.op == MPI_OP_NULL)
    {
        Fused created;
        FIELDSYNC_MPI_AT(MPI_Op_create(&combine, 1, &created.op), where);
        int keyval { MPI_KEYVAL_INVALID };
        FIELDSYNC_MPI_AT(
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &freeFused, &keyval, nullptr), where
        );
        FIELDSYNC_MPI_AT(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr), where);
        fused = created;
        fusedReady.store(true, std::memory_order_release);
    }
    return fused;
}

} // namespace

/** @brief One registered variable. */
struct BatchEntry
{
    void* value { nullptr };           /**< the caller's variable */
    BatchType type { BatchType::Int }; /**< its type */
    void* location { nullptr };        /**< MinLoc, MaxLoc: the caller's std::int64_t location */
};

/** @brief Where one variable goes in the packed buffer. */
struct Slot
{
    void* value { nullptr };  /**< the caller's variable */
    std::size_t offset { 0 }; /**< bytes from the start of the packed buffer */
    std::size_t bytes { 0 };  /**< its size: 8, 4 or 1 */
};

namespace
{

/** Copies @p n variables of @p N bytes into the packed buffer @p base. */
template<std::size_t N>
void toPacked(const Slot* slots, std::size_t n, std::byte* base) noexcept
{
    for (std::size_t i = 0; i < n; ++i)
    {
        std::memcpy(base + slots[i].offset, slots[i].value, N);
    }
}

/** Copies @p n results of @p N bytes from the packed buffer @p base into their variables. */
template<std::size_t N>
void fromPacked(const Slot* slots, std::size_t n, const std::byte* base) noexcept
{
    for (std::size_t i = 0; i < n; ++i)
    {
        std::memcpy(slots[i].value, base + slots[i].offset, N);
    }
}

} // namespace

/** @brief What a ReductionBatch owns: entries, the layout and its datatype, the packed
 * buffer, the in-flight flag. */
struct ReductionBatchState
{
    MPI_Comm comm { MPI_COMM_NULL };            /**< the communicator */
    std::optional<Algorithm> algorithm;         /**< start()'s; unset: chosen by size */
    std::vector<BatchEntry> entries;            /**< in the order added */
    Layout layout;                              /**< where each entry is packed */
    std::vector<Slot> slots;                    /**< the entries in packed order */
    std::array<std::size_t, 3> sized {};        /**< slots of 8, 4 and 1 bytes */
    std::vector<std::uint64_t> packed;          /**< the packed values (8-byte aligned) */
    MPI_Datatype mpiType { MPI_DATATYPE_NULL }; /**< the whole layout; null until first run */
    bool inFlight { false };                    /**< started, not completed */
    std::shared_ptr<const BufferAccess> unpack; /**< writes the results at completion */

    ReductionBatchState() = default;
    ReductionBatchState(const ReductionBatchState&) = delete;
    ReductionBatchState& operator=(const ReductionBatchState&) = delete;

    /** Frees the datatype while MPI runs (MPI_Finalize frees what is left). */
    ~ReductionBatchState() { freeType(); }

    /** Adds an entry (the layout packs every entry again, grouped by type and op); @p location
     * is the location variable of a MinLoc or MaxLoc entry, else null. */
    void add(void* value, BatchType type, ReduceOp op, void* location)
    {
        freeType();
        entries.push_back({ value, type, location });
        layout.add(type, op);
        packed.assign((layout.bytes + 7) / 8, 0);
        makeSlots();
    }

    /** The variables by size (8, 4, then 1 bytes; a MinLoc or MaxLoc entry is two: its value
     * and its 8-byte location), each size in packed order, so that pack() and unpackAll() copy
     * each size in one loop of fixed-size copies. */
    void makeSlots()
    {
        slots.clear();
        sized = {};
        for (std::size_t i = 0; i < entries.size(); ++i)
        {
            const std::size_t offset { layout.fields[i].offset };
            slots.push_back({ entries[i].value, offset, bytesOf(entries[i].type) });
            if (entries[i].location != nullptr)
            {
                slots.push_back({ entries[i].location, offset + 8, 8 });
            }
        }
        for (const Slot& slot : slots)
        {
            ++sized[slot.bytes == 8 ? 0 : (slot.bytes == 4 ? 1 : 2)];
        }
        std::sort(
            slots.begin(),
            slots.end(),
            [](const Slot& a, const Slot& b)
            { return a.bytes != b.bytes ? a.bytes > b.bytes : a.offset < b.offset; }
        );
    }

    /** Forgets every entry. */
    void clear()
    {
        freeType();
        entries.clear();
        layout = {};
        slots.clear();
        sized = {};
        packed.clear();
    }

    /** The datatype of the whole layout (one element), made at the first run after a change. */
    MPI_Datatype datatype(const std::source_location& where)
    {
        if (mpiType == MPI_DATATYPE_NULL)
        {
            MPI_Datatype made { MPI_DATATYPE_NULL };
            const auto bytes = static_cast<int>(packed.size() * 8);
            FIELDSYNC_MPI_AT(MPI_Type_contiguous(bytes, MPI_BYTE, &made), where);
            FIELDSYNC_MPI_AT(MPI_Type_commit(&made), where);
            mpiType = made;
            Layouts& registry = layouts();
            const std::lock_guard lock(registry.mutex);
            registry.entries.emplace_back(mpiType, &layout);
        }
        return mpiType;
    }

    /** Frees the datatype (after a change, or at the end) while MPI runs. */
    void freeType() noexcept
    {
        if (mpiType == MPI_DATATYPE_NULL)
        {
            return;
        }
        {
            Layouts& registry = layouts();
            const std::lock_guard lock(registry.mutex);
            std::erase_if(
                registry.entries, [this](const auto& entry) { return entry.first == mpiType; }
            );
        }
        int finalised { 1 };
        MPI_Finalized(&finalised);
        if (finalised == 0)
        {
            MPI_Type_free(&mpiType);
        }
        mpiType = MPI_DATATYPE_NULL;
    }

    /** The packed size in bytes (of the datatype's one element). */
    [[nodiscard]] std::size_t packedBytes() const noexcept
    {
        return packed.size() * sizeof(std::uint64_t);
    }

    /** The algorithm of a start(): the one given, else chosen by the packed size. */
    [[nodiscard]] Algorithm startAlgorithm() const noexcept
    {
        if (algorithm)
        {
            return *algorithm;
        }
        return packedBytes() <= ReductionBatch::ownAlgorithmBytes ? Algorithm::RecursiveDoubling
                                                                  : Algorithm::Native;
    }

    /** Copies every variable into its place. */
    void pack() noexcept
    {
        auto* base = reinterpret_cast<std::byte*>(packed.data());
        toPacked<8>(slots.data(), sized[0], base);
        toPacked<4>(slots.data() + sized[0], sized[1], base);
        toPacked<1>(slots.data() + sized[0] + sized[1], sized[2], base);
    }

    /** Copies every result back into its variable. */
    void unpackAll() const noexcept
    {
        const auto* base = reinterpret_cast<const std::byte*>(packed.data());
        fromPacked<8>(slots.data(), sized[0], base);
        fromPacked<4>(slots.data() + sized[0], sized[1], base);
        fromPacked<1>(slots.data() + sized[0] + sized[1], sized[2], base);
    }
};

namespace
{

/**
 * Starts fieldsync's recursive doubling over the packed buffer, in place: one element of the
 * batch's datatype @p type, combined by the fused @p op (MPI_Reduce_local, which hands the
 * datatype to combine()), on the private duplicate of the batch's communicator with a tag of
 * the library's allocator. Every rank ends with the same bits: each pair combines the same two
 * operands (in either order: the ops commute exactly), and a rank folded out of a
 * non-power-of-two count receives its partner's result.
 */
algorithms::Schedule startOwnAllReduce(
    ReductionBatchState& s, MPI_Datatype type, MPI_Op op, const std::source_location& where
)
{
    const TypeDesc desc { .datatype = type, .multiplicity = 1, .bytes = s.packedBytes() };
    return algorithms::allReduceRecursiveDoubling(
        MPI_IN_PLACE,
        s.packed.data(),
        1,
        desc,
        op,
        algorithms::Context { s.comm, where, "ReductionBatch::start" }
    );
}

/** Completes a started batch: a Request finishing writes the results through this. */
class BatchUnpack final : public BufferAccess
{
public:
    explicit BatchUnpack(ReductionBatchState& state) : state_(state) {}
    void fence() const override {}
    void toHost(void* /*host*/, std::size_t /*n*/) const override {}
    void fromHost(const void* /*host*/, std::size_t /*n*/) const override
    {
        state_.unpackAll();
        state_.inFlight = false;
    }
    [[nodiscard]] const void* instance(const std::type_info& /*type*/) const noexcept override
    {
        return nullptr;
    }

private:
    ReductionBatchState& state_;
};

/** One entry as the check-mode agreement compares it: its type and op in one integer. */
std::int64_t codeOf(const Field& field) noexcept
{
    return static_cast<std::int64_t>(field.type) * 64 + static_cast<std::int64_t>(field.op);
}

/** "double Sum", from codeOf's integer. */
std::string entryText(std::int64_t code)
{
    return std::string(nameOf(static_cast<BatchType>(code / 64))) + " " +
           toString(static_cast<ReduceOp>(code % 64));
}

/** "ranks 0, 2: 2 entries (double Sum, float Max)": the ranks whose batch is @p codes. */
std::string batchText(const std::vector<int>& ranks, std::span<const std::int64_t> codes)
{
    std::string text { ranks.size() == 1 ? "rank " : "ranks " };
    for (std::size_t k { 0 }; k < ranks.size(); ++k)
    {
        text.append(k > 0 ? ", " : "").append(std::to_string(ranks[k]));
    }
    text.append(": ").append(std::to_string(codes.size())).append(" entries (");
    for (std::size_t k { 0 }; k < codes.size(); ++k)
    {
        text.append(k > 0 ? ", " : "").append(entryText(codes[k]));
    }
    return text.append(")");
}

/** "...: ranks reduce the batch with different algorithms (...): rank 0 Native, rank 1
 * RecursiveDoubling", from the gathered (count, hash, algorithm) of every rank. */
std::string algorithmsText(const char* call, std::span<const std::int64_t> all)
{
    std::string text { std::string(call) +
                       ": ranks reduce the batch with different algorithms (check mode; every "
                       "rank must build it with the same one):" };
    for (std::size_t r { 0 }; 3 * r < all.size(); ++r)
    {
        text.append(r == 0 ? " rank " : ", rank ")
            .append(std::to_string(r))
            .append(" ")
            .append(toString(static_cast<Algorithm>(all[3 * r + 2])));
    }
    return text;
}

/**
 * Check mode, before run() or start() reduces: every rank's entries (count, then type and op of
 * each, in the order added) and @p algorithm must be the same. The agreement is the
 * collectives' own: an allGather of (count, hash, algorithm), checked and timed by check mode
 * like any collective (a rank that never calls is named past the wait time-out). Every rank then
 * sees the same table, so where it differs all of them throw the same Error: for entries, after
 * gathering them (an allGatherV), naming each batch and its ranks.
 */
void agreeOnEntries(
    const ReductionBatchState& s,
    Algorithm algorithm,
    const char* call,
    const std::source_location& where
)
{
    std::vector<std::int64_t> codes;
    codes.reserve(s.layout.fields.size());
    std::uint64_t hash { 0xcbf29ce484222325ULL }; // FNV-1a over the codes
    for (const Field& field : s.layout.fields)
    {
        codes.push_back(codeOf(field));
        hash = (hash ^ static_cast<std::uint64_t>(codes.back())) * 0x100000001b3ULL;
    }
    int size { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_size(s.comm, &size), where);
    const std::array<std::int64_t, 3> mine { static_cast<std::int64_t>(codes.size()),
                                             static_cast<std::int64_t>(hash >> 1),
                                             static_cast<std::int64_t>(algorithm) };
    std::vector<std::int64_t> all(3 * static_cast<std::size_t>(size));
    allGather(std::span(mine), all, s.comm, CallOptions<> {}, where);
    if (std::equal(all.begin() + 3, all.end(), all.begin(), all.end() - 3) || size == 1)
    {
        return; // each triple equals the one before it: every rank has rank 0's batch
    }
    std::vector<int> counts(static_cast<std::size_t>(size));
    std::vector<int> displacements(static_cast<std::size_t>(size));
    bool sameEntries { true };
    for (std::size_t r { 0 }; r < counts.size(); ++r)
    {
        counts[r] = static_cast<int>(all[3 * r]);
        displacements[r] = r == 0 ? 0 : displacements[r - 1] + counts[r - 1];
        sameEntries = sameEntries && all[3 * r] == all[0] && all[3 * r + 1] == all[1];
    }
    if (sameEntries)
    {
        throw Error(algorithmsText(call, all), where);
    }
    std::vector<std::int64_t> every(static_cast<std::size_t>(displacements.back() + counts.back()));
    allGatherV(std::span(std::as_const(codes)), every, counts, s.comm, CallOptions<> {}, where);
    std::string text { std::string(call) +
                       ": ranks batch different entries (check mode; every rank must add the same "
                       "types and ops in the same order):" };
    std::vector<bool> told(counts.size());
    for (std::size_t r { 0 }; r < counts.size(); ++r)
    {
        if (told[r])
        {
            continue; // named with an earlier rank of the same batch
        }
        const auto batch = std::span(every).subspan(
            static_cast<std::size_t>(displacements[r]), static_cast<std::size_t>(counts[r])
        );
        std::vector<int> ranks;
        for (std::size_t q { r }; q < counts.size(); ++q)
        {
            const auto other = std::span(every).subspan(
                static_cast<std::size_t>(displacements[q]), static_cast<std::size_t>(counts[q])
            );
            if (!told[q] && std::equal(batch.begin(), batch.end(), other.begin(), other.end()))
            {
                told[q] = true;
                ranks.push_back(static_cast<int>(q));
            }
        }
        text.append(r == 0 ? " " : "; ").append(batchText(ranks, batch));
    }
    throw Error(text, where);
}

} // namespace

} // namespace detail

ReductionBatch::ReductionBatch(
    MPI_Comm comm, std::optional<Algorithm> algorithm, std::source_location where
)
    : state_(std::make_unique<detail::ReductionBatchState>())
{
    FIELDSYNC_CHECK_AT(
        comm != MPI_COMM_NULL, "ReductionBatch: the communicator is MPI_COMM_NULL", where
    );
    FIELDSYNC_CHECK_AT(
        !algorithm || *algorithm == Algorithm::Native || *algorithm == Algorithm::RecursiveDoubling,
        std::string("ReductionBatch: Algorithm ") + (algorithm ? toString(*algorithm) : "") +
            " does not apply to a ReductionBatch (Native or RecursiveDoubling do)",
        where
    );
    state_->comm = comm;
    state_->algorithm = algorithm;
    state_->unpack = std::make_shared<const detail::BatchUnpack>(*state_);
}

ReductionBatch::~ReductionBatch()
{
    if (state_ && state_->inFlight && !request_.active())
    {
        state_->inFlight = false;
    }
    // request_ (declared after state_) is destroyed first: an uncompleted reduction is logged
    // and waited for there, and its results are written while state_ still exists
}

ReductionBatch::ReductionBatch(ReductionBatch&& other) noexcept = default;

ReductionBatch& ReductionBatch::operator=(ReductionBatch&& other) noexcept
{
    if (this != &other)
    {
        request_ = std::move(other.request_);
        state_ = std::move(other.state_);
    }
    return *this;
}

void ReductionBatch::addEntry(
    void* value,
    detail::BatchType type,
    ReduceOp op,
    std::int64_t* location,
    const std::source_location& where
)
{
    FIELDSYNC_CHECK_AT(state_ != nullptr, "ReductionBatch::add: the batch was moved from", where);
    FIELDSYNC_CHECK_AT(
        !state_->inFlight,
        "ReductionBatch::add: a started reduction is in flight; wait() for it before adding",
        where
    );
    FIELDSYNC_CHECK_AT(
        detail::defined(type, op),
        std::string("ReductionBatch::add: ReduceOp ") + toString(op) + " is not defined on " +
            detail::nameOf(type) + " values",
        where
    );
    FIELDSYNC_CHECK_AT(
        detail::isLoc(op) == (location != nullptr),
        std::string("ReductionBatch::add: ReduceOp ") + toString(op) +
            (location != nullptr ? " takes no location (only MinLoc and MaxLoc do)"
                                 : " needs the variable its location goes to: add(value, "
                                   "location, op)"),
        where
    );
    state_->add(value, type, op, location);
}

std::size_t ReductionBatch::size() const noexcept
{
    return state_ ? state_->entries.size() : 0;
}

bool ReductionBatch::empty() const noexcept
{
    return size() == 0;
}

Algorithm ReductionBatch::startAlgorithm() const noexcept
{
    return state_ ? state_->startAlgorithm() : Algorithm::Native;
}

bool ReductionBatch::inFlight() const noexcept
{
    return state_ && state_->inFlight;
}

void ReductionBatch::clear(std::source_location where)
{
    FIELDSYNC_CHECK_AT(
        !inFlight(),
        "ReductionBatch::clear: a started reduction is in flight; wait() for it first",
        where
    );
    if (state_)
    {
        state_->clear();
    }
}

void ReductionBatch::run(std::source_location where)
{
    FIELDSYNC_CHECK_AT(state_ != nullptr, "ReductionBatch::run: the batch was moved from", where);
    detail::ReductionBatchState& s = *state_;
    FIELDSYNC_CHECK_AT(
        !s.inFlight,
        "ReductionBatch::run: a started reduction is in flight; wait() for it first",
        where
    );
    if (checkMode())
    {
        detail::requireMpiRunning("ReductionBatch::run", where);
        detail::agreeOnEntries(s, Algorithm::Native, "ReductionBatch::run", where);
    }
    if (s.entries.empty())
    {
        return;
    }
    detail::requireMpiRunning("ReductionBatch::run", where);
    const detail::Fused& f = detail::fusedOp(where);
    const MPI_Datatype type = s.datatype(where);
    s.pack();
    FIELDSYNC_MPI_AT(MPI_Allreduce(MPI_IN_PLACE, s.packed.data(), 1, type, f.op, s.comm), where);
    s.unpackAll();
}

void ReductionBatch::start(std::source_location where)
{
    FIELDSYNC_CHECK_AT(state_ != nullptr, "ReductionBatch::start: the batch was moved from", where);
    detail::ReductionBatchState& s = *state_;
    FIELDSYNC_CHECK_AT(
        !s.inFlight,
        "ReductionBatch::start: a started reduction is already in flight; wait() for it first",
        where
    );
    const Algorithm algorithm { s.startAlgorithm() };
    if (checkMode())
    {
        detail::requireMpiRunning("ReductionBatch::start", where);
        detail::agreeOnEntries(s, algorithm, "ReductionBatch::start", where);
    }
    s.inFlight = true;
    if (s.entries.empty())
    {
        return; // nothing to reduce: wait() completes at once
    }
    try
    {
        detail::requireMpiRunning("ReductionBatch::start", where);
        const detail::Fused& f = detail::fusedOp(where);
        const MPI_Datatype type = s.datatype(where);
        s.pack();
        auto request = std::make_unique<detail::RequestState>();
        request->name = "ReductionBatch::start";
        request->where = where;
        // finish() hands the results to BatchUnpack (which reads them from the batch's packed
        // buffer)
        request->copyBack = s.unpack;
        request->outCount = s.entries.size();
        if (algorithm == Algorithm::RecursiveDoubling)
        {
            // the Request's test() and wait() move the schedule on, a round at a time
            request->schedule = detail::startOwnAllReduce(s, type, f.op, where);
            request->scheduled = true;
        }
        else
        {
            FIELDSYNC_MPI_AT(
                MPI_Iallreduce(
                    MPI_IN_PLACE, s.packed.data(), 1, type, f.op, s.comm, &request->request
                ),
                where
            );
        }
        request_ = Request(std::move(request));
    }
    catch (...)
    {
        s.inFlight = false;
        throw;
    }
}

void ReductionBatch::wait(std::source_location where)
{
    FIELDSYNC_CHECK_AT(
        inFlight(),
        "ReductionBatch::wait: no reduction in flight (never started, or already waited for)",
        where
    );
    if (!request_.active())
    {
        state_->inFlight = false; // an empty batch
        return;
    }
    request_.wait();
}

bool ReductionBatch::test(std::source_location where)
{
    FIELDSYNC_CHECK_AT(
        inFlight(),
        "ReductionBatch::test: no reduction in flight (never started, or already completed)",
        where
    );
    if (!request_.active())
    {
        state_->inFlight = false;
        return true;
    }
    return request_.test();
}

} // namespace fieldsync::mpi
