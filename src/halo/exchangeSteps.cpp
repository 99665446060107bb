// SPDX-License-Identifier: MIT
// The steps of one halo exchange (doc/architecture.md, "One halo exchange"), in the order they
// run: start = begin, validate, claim, choosePack, bindInPlace, post receives, packSends, post
// sends, markStarted; finish = checkSameFields, wait, unpackReceives, release. Which lists go in
// place, by runs or by indices is the PackPlan's (src/halo/packPlan.hpp): the steps ask it.
#include "communicatorState.hpp"

#include "fieldsync/core/error.hpp"

namespace fieldsync::halo
{

namespace
{

/** @brief The runs of neighbours [k0, k1) of @p map in the arrays @p arrays. */
RunRange runRange(
    const RunArrays& arrays,
    const IndexRuns& runs,
    const RankSimplexCommMap& map,
    std::size_t k0,
    std::size_t k1
) noexcept
{
    return RunRange {
        arrays.first, arrays.at, runs.runBegin(k0), runs.runEnd(k1 - 1), map.offsets()[k1]
    };
}
} // namespace

void CommunicatorState::start(const Fields& fields, const CommKey& key, bool reverse, ReverseOp op)
{
    try
    {
        startSteps(fields, key, reverse, op);
    }
    catch (const Error& error)
    {
        // in flight: an earlier start of it goes on
        if (Exchange* failed = table_.failedStart(key, reverse); failed != nullptr)
        {
            notifyPeers(*failed, error.what(), true);
        }
        throw;
    }
}

void CommunicatorState::startSteps(
    const Fields& fields, const CommKey& key, bool reverse, ReverseOp op
)
{
    const ProfilingRegion region(profiling_, "fieldsync::halo::post");
    const auto startTime = stamp();
    Exchange& exchange = table_.begin(key, reverse);
    const std::size_t stride = validate(fields, key, reverse, op, exchange.fields);
    exchange.op = op;
    DuplexBuffer& buffer = claim(exchange, fields, stride);
    double packTicks { 0.0 };
    try
    {
        choosePack(exchange, buffer, fields);
        bindInPlace(exchange, buffer, fields, stride);
        buffer.startReceives(key.where());
        packTicks = packSends(exchange, buffer, fields, stride);
        if (check_ != nullptr)
        {
            check_->postSends(exchange, buffer, fields, stride, key.where());
        }
        else
        {
            buffer.startSends(key.where());
        }
    }
    catch (...)
    {
        abandon(exchange, buffer, key.where());
        throw;
    }
    exchange.where = key.where();
    markStarted(exchange, buffer, startTime, packTicks);
}

std::size_t CommunicatorState::validate(
    const Fields& fields,
    const CommKey& key,
    bool reverse,
    ReverseOp op,
    std::vector<FieldShape>& shapes
) const
{
    const std::source_location& where = key.where();
    FIELDSYNC_CHECK_AT(
        committed_,
        "Communicator: the pattern is declared but not committed (Communicator::declare); call "
        "commit() on every rank first",
        where
    );
    FIELDSYNC_CHECK_AT(fields.count() > 0, "startComm: no fields", where);
    std::size_t stride { 0 };
    shapes.resize(fields.count()); // the same count each step: no allocation
    for (std::size_t f = 0; f < fields.count(); ++f)
    {
        const FieldShape& shape = shapes[f] = fields.shape(f); // read once; later steps use these
        const LocalIndex largest =
            std::max(pattern_.sendMap().maxIndex(), pattern_.receiveMap().maxIndex());
        if (largest >= 0 && static_cast<std::size_t>(largest) >= shape.cells)
        {
            pattern_.sendMap().validateFieldSize(shape.cells, "Communicator: send map", where);
            pattern_.receiveMap().validateFieldSize(
                shape.cells, "Communicator: receive map", where
            );
        }
        stride += shape.components;
    }
    if (reverse && op != ReverseOp::Replace)
    {
        FIELDSYNC_CHECK_AT(
            fields.arithmetic(),
            std::string("startReverse: op ") + toString(op) + " needs an arithmetic value type",
            where
        );
        FIELDSYNC_CHECK_AT(
            !pattern_.sendRepeats(),
            "startReverse: the send map lists a cell twice for one neighbour, so a combining "
            "reverse exchange would race",
            where
        );
    }
    return stride;
}

DuplexBuffer& CommunicatorState::claim(Exchange& exchange, const Fields& fields, std::size_t stride)
{
    const RankSimplexCommMap& from = pattern_.from(exchange.reverse);
    const RankSimplexCommMap& to = pattern_.to(exchange.reverse);
    exchange.buffer = pool_.acquire(
        fields.space(),
        exchange.reverse,
        static_cast<int>(backEnd_->value),
        &exchange,
        exchange.lastBuffer,
        env_,
        from,
        to
    );
    exchange.lastBuffer = exchange.buffer;
    DuplexBuffer& buffer = pool_[exchange.buffer];
    try
    {
        buffer.setTag(exchange.tag);
        buffer.setPersistent(
            pattern_.maxCells() * stride * fields.valueSize() >= options_.persistentFrom
        );
        buffer.setStaging(fields.space().useStaging(options_.staging));
        if (setUp_ != nullptr) // after the staging (where the messages lie); none: point-to-point
        {
            setUp_->install(exchange, buffer, exchange.buffer);
        }
        buffer.setWaitPolicy(policy());
        buffer.initComm(
            exchange.key.name(),
            fields.valueType(),
            stride * fields.valueSize(),
            exchange.key.where()
        );
    }
    catch (...)
    {
        release(exchange);
        throw;
    }
    return buffer;
}

void CommunicatorState::choosePack(Exchange& exchange, DuplexBuffer& buffer, const Fields& fields)
    const
{
    exchange.pack =
        PackPlan::choose(PackFields { .count = fields.count(),
                                      .rowsContiguous = exchange.fields[0].rowsContiguous(),
                                      .synchronousHost = fields.synchronousHost(),
                                      .staged = buffer.sendHalf().staging(),
                                      .neighbourhood = neighbourhood(),
                                      .inPlaceOn = options_.inPlace,
                                      .reverse = exchange.reverse });
}

void CommunicatorState::bindInPlace(
    Exchange& exchange, DuplexBuffer& buffer, const Fields& fields, std::size_t stride
)
{
    const FieldShape& shape = exchange.fields[0];
    const PackChoice& choice = exchange.pack;
    if (!choice.inPlace(true) && !choice.inPlace(false))
    {
        return;
    }
    const std::size_t cellBytes = stride * fields.valueSize();
    char* data = static_cast<char*>(const_cast<void*>(shape.data));
    const auto bind = [&](CommBufferCore& half,
                          const PackPlan::Side& side,
                          const RankSimplexCommMap& map,
                          bool sending)
    {
        for (std::size_t k = 0; k < map.neighbourCount(); ++k)
        {
            if (PackPlan::form(side, k, choice, sending) == PackForm::InPlace)
            {
                half.setDirect(
                    k,
                    data + static_cast<std::size_t>(map.runStart(k)) * cellBytes,
                    exchange.key.where()
                );
            }
        }
    };
    const PackPlan& plan = pattern_.plan();
    bind(buffer.sendHalf(), plan.from(exchange.reverse), pattern_.from(exchange.reverse), true);
    bind(buffer.receiveHalf(), plan.to(exchange.reverse), pattern_.to(exchange.reverse), false);
    if (buffer.sendHalf().anyDirect() || buffer.receiveHalf().anyDirect())
    {
        fields.keep(exchange.keeper); // MPI uses the field: it must outlive the exchange
    }
}

double CommunicatorState::packSends(
    const Exchange& exchange, DuplexBuffer& buffer, const Fields& fields, std::size_t stride
)
{
    const RankSimplexCommMap& out = pattern_.from(exchange.reverse);
    const PackPlan::Side& side = pattern_.plan().from(exchange.reverse);
    CommBufferCore& half = buffer.sendHalf();
    if (!PackPlan::anyThroughBuffer(side, exchange.pack, true))
    {
        fields.fence(); // MPI reads the field in place: the field's kernels must be done
        return 0.0;
    }
    const ProfilingRegion region(profiling_, "fieldsync::halo::pack");
    const auto packStart = stamp();
    const IndexArrays& arrays = pattern_.indices(fields.space(), exchange.pack.byRuns());
    const LocalIndex* idx = exchange.reverse ? arrays.receive : arrays.send;
    const RunArrays& runArrays = exchange.reverse ? arrays.receiveRuns : arrays.sendRuns;
    const IndexRuns& runs = side.runs;
    std::size_t offset { 0 };
    for (std::size_t f = 0; f < fields.count(); ++f)
    {
        PackPlan::forEachRange(
            side,
            out,
            exchange.pack,
            true,
            false,
            [&](std::size_t k0, std::size_t k1) {
                fields.packRuns(
                    f, runRange(runArrays, runs, out, k0, k1), half.data(), stride, offset
                );
            },
            [&](std::size_t k0, std::size_t k1) {
                fields.pack(
                    f, idx, half.data(), out.offsets()[k0], out.offsets()[k1], stride, offset
                );
            }
        );
        offset += exchange.fields[f].components;
    }
    fields.fence();
    return ticksBetween(packStart, stamp());
}

void CommunicatorState::abandon(
    Exchange& exchange, DuplexBuffer& buffer, const std::source_location& where
)
{
    if (buffer.isCommInit() && buffer.sendHalf().state() == detail::BufferState::Claimed &&
        buffer.receiveHalf().state() == detail::BufferState::Claimed)
    {
        buffer.finaliseComm(where);
    }
    if (!buffer.isCommInit())
    {
        release(exchange);
    }
}

void CommunicatorState::markStarted(
    Exchange& exchange, DuplexBuffer& buffer, std::int64_t startTime, double packTicks
)
{
    table_.setInFlight(exchange);
    ExchangeStats& stats = exchange.stats;
    const CommBufferCore& sent = buffer.sendHalf();
    const CommBufferCore& received = buffer.receiveHalf();
    stats.exchanges += 1;
    stats.messages += sent.postedMessages() + received.postedMessages();
    stats.bytesSent += sent.postedBytes();
    stats.bytesReceived += received.postedBytes();
    stats.packSeconds += packTicks;
    stats.postSeconds += ticksBetween(startTime, stamp()) - packTicks;
}

void CommunicatorState::finish(
    const Fields& fields, Exchange& exchange, const std::source_location& where
)
{
    checkSameFields(exchange, fields, where);
    DuplexBuffer& buffer = pool_[exchange.buffer];
    auto unpackStart = wait(exchange, where); // the wait's last stamp
    if (check_ != nullptr)
    {
        check_->checkInPlace(exchange, where);
        unpackStart = stamp();
    }
    bool unpacked { false };
    {
        const ProfilingRegion region(profiling_, "fieldsync::halo::unpack");
        unpacked = unpackReceives(exchange, buffer, fields);
    }
    buffer.finaliseComm(where);
    release(exchange);
    if (unpacked) // all in place: nothing to unpack, and no clock read for the release
    {
        exchange.stats.unpackSeconds += ticksBetween(unpackStart, stamp());
    }
}

void CommunicatorState::checkSameFields(
    const Exchange& exchange, const Fields& fields, const std::source_location& where
) const
{
    const auto name = [&]
    {
        return "finalise '" + exchange.key.name() + "': ";
    };
    const std::size_t count = fields.count();
    FIELDSYNC_CHECK_AT(
        count == exchange.fields.size(),
        name() + std::to_string(count) + " fields given, but " +
            std::to_string(exchange.fields.size()) + " were started",
        where
    );
    for (std::size_t f = 0; f < count; ++f)
    {
        const FieldShape given = fields.shape(f);
        const FieldShape& started = exchange.fields[f];
        if (given == started)
        {
            continue;
        }
        throw Error(
            name() + "field " + std::to_string(f) +
                " is not the field that was started (started at " + toString(exchange.where) +
                "): " +
                (given.data != started.data ? "another data pointer"
                 : *given.viewType != *started.viewType
                     ? std::string("another view type (value type, layout or memory space)")
                     : "other extents or strides (" + std::to_string(given.cells) + " x " +
                           std::to_string(given.components) + " against " +
                           std::to_string(started.cells) + " x " +
                           std::to_string(started.components) + ")"),
            where
        );
    }
}

bool CommunicatorState::unpackReceives(
    const Exchange& exchange, DuplexBuffer& buffer, const Fields& fields
)
{
    const bool reverse = exchange.reverse;
    const RankSimplexCommMap& in = pattern_.to(reverse);
    const PackPlan::Side& side = pattern_.plan().to(reverse);
    const CommBufferCore& half = buffer.receiveHalf();
    if (!PackPlan::anyThroughBuffer(side, exchange.pack, false))
    {
        return false;
    }
    const IndexArrays& arrays = pattern_.indices(fields.space(), exchange.pack.byRuns());
    const LocalIndex* idx = reverse ? arrays.send : arrays.receive;
    const RunArrays& runArrays = reverse ? arrays.sendRuns : arrays.receiveRuns;
    const IndexRuns& runs = side.runs;
    std::size_t stride { 0 };
    for (const FieldShape& shape : exchange.fields)
    {
        stride += shape.components;
    }
    std::size_t offset { 0 };
    for (std::size_t f = 0; f < fields.count(); ++f)
    {
        // a reverse exchange combines per neighbour, in ascending rank order: deterministic, and
        // no two threads of one kernel combine into the same cell
        PackPlan::forEachRange(
            side,
            in,
            exchange.pack,
            false,
            reverse,
            [&](std::size_t k0, std::size_t k1)
            {
                fields.unpackRuns(
                    f,
                    runRange(runArrays, runs, in, k0, k1),
                    half.data(),
                    stride,
                    offset,
                    exchange.op
                );
            },
            [&](std::size_t k0, std::size_t k1)
            {
                fields.unpack(
                    f,
                    idx,
                    half.data(),
                    in.offsets()[k0],
                    in.offsets()[k1],
                    stride,
                    offset,
                    exchange.op
                );
            }
        );
        offset += exchange.fields[f].components;
    }
    fields.fence();
    return true;
}

} // namespace fieldsync::halo
