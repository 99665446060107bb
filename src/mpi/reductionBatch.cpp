// SPDX-License-Identifier: MIT
// ReductionBatch (include/fieldsync/mpi/reductionBatch.hpp): the packed buffer, the combined op
// and its datatype, created once and freed when MPI is finalised.
#include "fieldsync/mpi/reductionBatch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "requestState.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

namespace fieldsync::mpi
{

namespace detail
{

namespace
{

/**
 * One entry on the wire: its type and op, then its value. Each slot describes itself, so the
 * combined op is right on whatever range of slots MPI hands it (MPI may split a buffer into
 * segments); the datatype is one slot, so MPI never splits a slot.
 */
struct Slot
{
    std::uint8_t type;             /**< BatchType */
    std::uint8_t op;               /**< ReduceOp */
    std::uint8_t pad[6];           /**< zero */
    alignas(8) std::byte value[8]; /**< the value, in its own type's bytes */
};
static_assert(sizeof(Slot) == 16);

/** The size of a value of @p type. */
std::size_t bytesOf(BatchType type) noexcept
{
    switch (type)
    {
    case BatchType::Int:
    case BatchType::UInt:
    case BatchType::Float:
        return 4;
    case BatchType::Bool:
        return sizeof(bool);
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

/** Whether @p op is defined on @p type (as for the collectives, doc/collectives.md). */
bool defined(BatchType type, ReduceOp op) noexcept
{
    switch (type)
    {
    case BatchType::Float:
    case BatchType::Double:
        return op == ReduceOp::Sum || op == ReduceOp::Prod || op == ReduceOp::Min ||
               op == ReduceOp::Max;
    case BatchType::Bool:
        return op == ReduceOp::LAnd || op == ReduceOp::LOr || op == ReduceOp::LXor;
    default:
        return op != ReduceOp::MinLoc && op != ReduceOp::MaxLoc;
    }
}

/** @p b = @p a op @p b for a value of type T. */
template<typename T>
T combineValue(ReduceOp op, T a, T b) noexcept
{
    switch (op)
    {
    case ReduceOp::Sum:
        if constexpr (std::is_same_v<T, bool>)
            return b;
        else
            return static_cast<T>(a + b);
    case ReduceOp::Prod:
        if constexpr (std::is_same_v<T, bool>)
            return b;
        else
            return static_cast<T>(a * b);
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
            return static_cast<T>(a & b);
        else
            return b;
    case ReduceOp::BOr:
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
            return static_cast<T>(a | b);
        else
            return b;
    case ReduceOp::BXor:
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
            return static_cast<T>(a ^ b);
        else
            return b;
    default:
        return b;
    }
}

template<typename T>
void combineSlot(const Slot& in, Slot& inout) noexcept
{
    T a;
    T b;
    std::memcpy(&a, in.value, sizeof(T));
    std::memcpy(&b, inout.value, sizeof(T));
    b = combineValue<T>(static_cast<ReduceOp>(inout.op), a, b);
    std::memcpy(inout.value, &b, sizeof(T));
}

/** The combined op: each slot with its own type and op. */
void combine(void* in, void* inout, int* len, MPI_Datatype* /*type*/)
{
    const auto* a = static_cast<const Slot*>(in);
    auto* b = static_cast<Slot*>(inout);
    for (int i = 0; i < *len; ++i)
    {
        switch (static_cast<BatchType>(b[i].type))
        {
        case BatchType::Int:
            combineSlot<int>(a[i], b[i]);
            break;
        case BatchType::UInt:
            combineSlot<unsigned>(a[i], b[i]);
            break;
        case BatchType::Long:
            combineSlot<long>(a[i], b[i]);
            break;
        case BatchType::ULong:
            combineSlot<unsigned long>(a[i], b[i]);
            break;
        case BatchType::LongLong:
            combineSlot<long long>(a[i], b[i]);
            break;
        case BatchType::ULongLong:
            combineSlot<unsigned long long>(a[i], b[i]);
            break;
        case BatchType::Float:
            combineSlot<float>(a[i], b[i]);
            break;
        case BatchType::Double:
            combineSlot<double>(a[i], b[i]);
            break;
        case BatchType::Bool:
            combineSlot<bool>(a[i], b[i]);
            break;
        }
    }
}

/** The combined op and the slot datatype, shared by every batch of the process. */
struct Fused
{
    MPI_Op op { MPI_OP_NULL };               /**< combine() */
    MPI_Datatype type { MPI_DATATYPE_NULL }; /**< one Slot */
};

Fused fused;
std::mutex fusedMutex;

/** MPI_COMM_SELF's attribute delete callback: runs at the start of MPI_Finalize. */
int freeFused(MPI_Comm /*comm*/, int /*keyval*/, void* /*value*/, void* /*extra*/)
{
    const std::lock_guard lock(fusedMutex);
    if (fused.op != MPI_OP_NULL)
    {
        MPI_Op_free(&fused.op);
    }
    if (fused.type != MPI_DATATYPE_NULL)
    {
        MPI_Type_free(&fused.type);
    }
    return MPI_SUCCESS;
}

/** The combined op and datatype, created at the first call after MPI_Init. */
const Fused& fusedOp(const std::source_location& where)
{
    const std::lock_guard lock(fusedMutex);
    if (fused.op == MPI_OP_NULL)
    {
        Fused created;
        FIELDSYNC_MPI_AT(MPI_Type_contiguous(sizeof(Slot), MPI_BYTE, &created.type), where);
        FIELDSYNC_MPI_AT(MPI_Type_commit(&created.type), where);
        FIELDSYNC_MPI_AT(MPI_Op_create(&combine, 1, &created.op), where);
        int keyval { MPI_KEYVAL_INVALID };
        FIELDSYNC_MPI_AT(
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &freeFused, &keyval, nullptr), where
        );
        FIELDSYNC_MPI_AT(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr), where);
        fused = created;
    }
    return fused;
}

} // namespace

/** @brief One registered variable. */
struct BatchEntry
{
    void* value { nullptr };           /**< the caller's variable */
    BatchType type { BatchType::Int }; /**< its type */
};

/** @brief What a ReductionBatch owns: entries, the packed buffer, the in-flight flag. */
struct ReductionBatchState
{
    MPI_Comm comm { MPI_COMM_NULL };            /**< the communicator */
    std::vector<BatchEntry> entries;            /**< in the order added */
    std::vector<Slot> slots;                    /**< packed values (type and op preset) */
    bool inFlight { false };                    /**< started, not completed */
    std::shared_ptr<const BufferAccess> unpack; /**< writes the results at completion */

    /** Copies every variable into its slot. */
    void pack() noexcept
    {
        for (std::size_t i = 0; i < entries.size(); ++i)
        {
            std::memcpy(slots[i].value, entries[i].value, bytesOf(entries[i].type));
        }
    }

    /** Copies every result back into its variable. */
    void unpackAll() const noexcept
    {
        for (std::size_t i = 0; i < entries.size(); ++i)
        {
            std::memcpy(entries[i].value, slots[i].value, bytesOf(entries[i].type));
        }
    }
};

namespace
{

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

private:
    ReductionBatchState& state_;
};

} // namespace

} // namespace detail

ReductionBatch::ReductionBatch(MPI_Comm comm, std::source_location where)
    : state_(std::make_unique<detail::ReductionBatchState>())
{
    FIELDSYNC_CHECK_AT(
        comm != MPI_COMM_NULL, "ReductionBatch: the communicator is MPI_COMM_NULL", where
    );
    state_->comm = comm;
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
    void* value, detail::BatchType type, ReduceOp op, const std::source_location& where
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
    state_->entries.push_back({ value, type });
    detail::Slot slot {};
    slot.type = static_cast<std::uint8_t>(type);
    slot.op = static_cast<std::uint8_t>(op);
    state_->slots.push_back(slot);
}

std::size_t ReductionBatch::size() const noexcept
{
    return state_ ? state_->entries.size() : 0;
}

bool ReductionBatch::empty() const noexcept
{
    return size() == 0;
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
        state_->entries.clear();
        state_->slots.clear();
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
    if (s.entries.empty())
    {
        return;
    }
    detail::requireMpiRunning("ReductionBatch::run", where);
    const detail::Fused& f = detail::fusedOp(where);
    s.pack();
    FIELDSYNC_MPI_AT(
        MPI_Allreduce(
            MPI_IN_PLACE, s.slots.data(), static_cast<int>(s.slots.size()), f.type, f.op, s.comm
        ),
        where
    );
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
    s.inFlight = true;
    if (s.entries.empty())
    {
        return; // nothing to reduce: wait() completes at once
    }
    try
    {
        detail::requireMpiRunning("ReductionBatch::start", where);
        const detail::Fused& f = detail::fusedOp(where);
        s.pack();
        auto request = detail::newRequestState();
        request->name = "ReductionBatch::start";
        request->where = where;
        // finish() hands the results to BatchUnpack (which reads them from the batch's slots)
        request->copyBack = s.unpack;
        request->outCount = s.entries.size();
        FIELDSYNC_MPI_AT(
            MPI_Iallreduce(
                MPI_IN_PLACE,
                s.slots.data(),
                static_cast<int>(s.slots.size()),
                f.type,
                f.op,
                s.comm,
                &request->request
            ),
            where
        );
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
