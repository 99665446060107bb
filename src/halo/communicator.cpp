// SPDX-License-Identifier: MIT
// The Communicator: construction, settings, lookups, test and wait. The steps of one exchange
// are in exchangeSteps.cpp.
#include "fieldsync/halo/communicator.hpp"

#include "communicatorState.hpp"

#include "fieldsync/core/clock.hpp"
#include "fieldsync/core/liveObjects.hpp"
#include "fieldsync/core/logger.hpp"
#include "fieldsync/core/settings.hpp"
#include "fieldsync/mpi/broadcast.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "fieldsync/mpi/gathers.hpp"
#include "fieldsync/mpi/mpiInit.hpp"
#include "fieldsync/mpi/setUpAgreement.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace fieldsync::halo
{

namespace
{
/**
 * @brief Keeps @p env's communicator for the rest of the process (never freed): a notice sent
 * on it may still be received there, which must not happen on a later communicator that MPI
 * gave the same context. Only Communicators on an error path come here: one that sent a
 * notice, saw a start fail, or was destroyed with an exchange in flight.
 */
void keepCommunicator(const mpi::MPIEnvironment& env) noexcept
{
    try
    {
        static auto* kept = new std::vector<mpi::MPIEnvironment>(); // never destroyed
        kept->push_back(env);
    }
    catch (...) // out of memory: the context may be reused, as without this
    {
    }
}
} // namespace

CommunicatorState::CommunicatorState(
    ExchangeContext context,
    RankSimplexCommMap sendMap,
    RankSimplexCommMap receiveMap,
    const std::source_location& where,
    bool checked
)
    : env_(std::move(context.env)), shared_(std::move(context.keeper)),
      // a Communicator works on Kokkos views: Kokkos runs from here on (the program's fields are
      // often made right after it, before any exchange allocates), also when the maps are bad
      pattern_(
          (mpi::ensureKokkos(where), std::move(sendMap)),
          std::move(receiveMap),
          env_.sizeRank(),
          env_.rank(),
          where,
          checked
      ),
      table_(context.tags), options_ { .waitPolicy = context.policy
                                                         ? *context.policy
                                                         : mpi::WaitPolicy::fromEnvironment() },
      tsc_(telemetryClock().tsc), profiling_(ProfilingRegion::toolLoaded()),
      // the identifier was agreed with the context (exchangeContext.cpp): the same on every
      // rank, unique within each process for its whole lifetime, so a stale notice or check
      // header is recognised
      notices_(env_.comm(), context.tags.notice(), context.id, env_.rank())
{
}

CommunicatorState::~CommunicatorState()
{
    // what was sent to this Communicator and never received (a peer's message to a rank that
    // left the exchange with an Error, a notice) must not reach one that reuses its MPI context
    if (shared_ != nullptr)
    {
        // other Communicators' messages travel on the same communicator: only this one's tags
        // (its window is never handed out again, so a later message on it meets nothing)
        const TagWindow& tags = table_.tags();
        for (const int tag : { tags.notice(), tags.check(), tags.commit() })
        {
            NoticeBox::drain(env_.comm(), tag);
        }
        for (const Exchange& exchange : table_.all())
        {
            NoticeBox::drain(env_.comm(), exchange.tag);
        }
    }
    else
    {
        NoticeBox::drain(env_.comm());
        // a notice sent, a start that failed, or an exchange still in flight: messages of its
        // peers may still come after the drain, so its context must not be reused (on a later
        // communicator, Open MPI takes such a message out of sequence and then loses later ones)
        if (notices_.sentAny() || table_.anyFailed() || table_.anyInFlight())
        {
            keepCommunicator(env_);
        }
    }
    table_.reportInFlight();
}

bool CommunicatorState::testOnce(Exchange& exchange, const std::source_location& where)
{
    notices_.setRaised(false);
    try
    {
        const bool done = check_ != nullptr ? check_->test(exchange, where)
                                            : pool_[exchange.buffer].isComplete(where);
        if (!done)
        {
            listenWhilePolling(exchange, where);
        }
        return done;
    }
    catch (const Error&)
    {
        if (!notices_.raised()) // a notice settled the exchange already
        {
            releaseAfterFailure(exchange, where);
        }
        throw;
    }
}

bool CommunicatorState::progress(const std::source_location& where)
{
    bool all { true };
    std::deque<Exchange>& exchanges = table_.all();
    for (auto it = exchanges.begin(); table_.anyInFlight() && it != exchanges.end(); ++it)
    {
        if (it->inFlight)
        {
            all = testOnce(*it, where) && all;
        }
    }
    return all;
}

bool Communicator::progress(std::source_location where)
{
    return running("Communicator::progress", where).progress(where);
}

bool CommunicatorState::test(Exchange& exchange, const std::source_location& where)
{
    const auto startTime = stamp();
    bool done { false };
    try
    {
        done = testOnce(exchange, where);
    }
    catch (const Error&)
    {
        exchange.stats.waitSeconds += ticksBetween(startTime, stamp());
        throw;
    }
    exchange.stats.waitSeconds += ticksBetween(startTime, stamp());
    return done;
}

std::int64_t CommunicatorState::wait(Exchange& exchange, const std::source_location& where)
{
    const ProfilingRegion region(profiling_, "fieldsync::halo::wait");
    const auto startTime = stamp();
    notices_.setRaised(false);
    try
    {
        if (check_ != nullptr)
        {
            check_->wait(exchange, where);
        }
        else if (DuplexBuffer& buffer = pool_[exchange.buffer]; !buffer.isComplete(where))
        {
            waitLoop(exchange, buffer, where); // the usual exchange is done at its first test
        }
    }
    catch (const Error&)
    {
        exchange.stats.waitSeconds += ticksBetween(startTime, stamp());
        if (!notices_.raised()) // a notice settled the exchange already
        {
            releaseAfterFailure(exchange, where);
        }
        // no notice: a time-out raised as an error leaves the exchange in flight with its sends
        // posted (it may be waited for again), so its messages do come; a peer that waits on a
        // late rank reaches its own time-out
        throw;
    }
    const auto endTime = stamp();
    exchange.stats.waitSeconds += ticksBetween(startTime, endTime);
    return endTime;
}

void CommunicatorState::waitLoop(
    Exchange& exchange, DuplexBuffer& buffer, const std::source_location& where
)
{
    // one reference captured, so the std::function holds it without allocating
    const auto listenHere = [this, &exchange, &where]
    {
        listen(exchange, where);
    };
    buffer.waitComplete(exchange.key.name(), where, [&listenHere] { listenHere(); });
}

void CommunicatorState::releaseAfterFailure(Exchange& exchange, const std::source_location& where)
{
    // a message of the wrong size: the exchange is over (its buffer is released once the sends
    // are done); a time-out error leaves it in flight, to be waited for again; a failed check
    // (check mode) released it already
    if (exchange.buffer != Exchange::npos &&
        pool_[exchange.buffer].releaseAfterFailure(exchange.key.name(), where))
    {
        release(exchange);
    }
}

// --- Communicator ---------------------------------------------------------------------------

Communicator::Communicator() = default;

Communicator::Communicator(
    mpi::MPIEnvironment env,
    RankSimplexCommMap sendMap,
    RankSimplexCommMap receiveMap,
    std::source_location where
)
    : Communicator(env, std::move(sendMap), std::move(receiveMap), CommitOptions {}, where)
{
}

Communicator::Communicator(
    mpi::MPIEnvironment env,
    RankSimplexCommMap sendMap,
    RankSimplexCommMap receiveMap,
    const CommitOptions& options,
    std::source_location where
)
{
    mpi::detail::requireMpiRunning("halo::Communicator constructor", where);
    // the pattern's check is an answered exchange through the one wait, which names a rank that
    // never comes; without it a blocking allreduce comes first, so the ranks agree before
    if (!options.checkPattern || checkMode())
    {
        mpi::agreeOnSetUp(env.comm(), mpi::detail::SetUpCall::HaloCommunicator, where);
    }
    if (options.checkPattern)
    {
        // the pattern's check and the context's agreement in one collective step
        ExchangeContext context { checkAndAgree(env, sendMap, receiveMap, options, where) };
        state_ = std::make_unique<CommunicatorState>(
            std::move(context), std::move(sendMap), std::move(receiveMap), where
        );
        state_->commit(options, where, true);
    }
    else
    {
        state_ = std::make_unique<CommunicatorState>(
            agreeContext(env, false, where), std::move(sendMap), std::move(receiveMap), where
        );
        state_->commit(options, where);
    }
    trackLive(state_.get(), "fieldsync::halo::Communicator", where);
}

Communicator Communicator::adopt(
    ExchangeContext context,
    RankSimplexCommMap sendMap,
    RankSimplexCommMap receiveMap,
    const CommitOptions& options,
    const std::source_location& where
)
{
    Communicator adopted;
    adopted.state_ = std::make_unique<CommunicatorState>(
        std::move(context), std::move(sendMap), std::move(receiveMap), where, true
    );
    adopted.state_->commit(options, where, true);
    // in the registry like a map-built one: MPIInit's end names it if it outlives MPI
    trackLive(adopted.state_.get(), "fieldsync::halo::Communicator", where);
    return adopted;
}

Communicator Communicator::declare(
    mpi::MPIEnvironment env,
    RankSimplexCommMap sendMap,
    RankSimplexCommMap receiveMap,
    std::source_location where
)
{
    // a declared Communicator commits later, when its ranks choose: its collectives must not
    // meet other Communicators', so it gets a communicator of its own
    mpi::detail::requireMpiRunning("Communicator::declare", where);
    mpi::agreeOnSetUp(env.comm(), mpi::detail::SetUpCall::HaloCommunicator, where);
    Communicator declared;
    declared.state_ = std::make_unique<CommunicatorState>(
        agreeContext(env, true, where), std::move(sendMap), std::move(receiveMap), where
    );
    trackLive(declared.state_.get(), "fieldsync::halo::Communicator", where);
    return declared;
}

void Communicator::commit(const CommitOptions& options, std::source_location where)
{
    running("Communicator::commit", where).commit(options, where);
}

bool Communicator::committed() const noexcept
{
    return state_ != nullptr && state_->committed_;
}

BackEnd Communicator::backEnd() const
{
    return state(std::source_location::current()).backEnd_->value;
}

namespace
{
/** Leaves the live-object registry; after MPIInit ended, leaks the state instead of freeing
 * it (its views and MPI objects cannot be freed then: MPIInit named it at its end). */
void retire(std::unique_ptr<CommunicatorState>& state) noexcept
{
    if (state != nullptr)
    {
        untrackLive(state.get());
        if (runtimeEnded())
        {
            static_cast<void>(state.release());
        }
    }
}
} // namespace

Communicator::~Communicator()
{
    retire(state_);
}

Communicator::Communicator(Communicator&&) noexcept = default;

Communicator& Communicator::operator=(Communicator&& other) noexcept
{
    if (this != &other)
    {
        retire(state_);
        state_ = std::move(other.state_);
    }
    return *this;
}

CommunicatorState& Communicator::state(const std::source_location& where) const
{
    FIELDSYNC_CHECK_AT(
        state_ != nullptr,
        "Communicator: used before it was given an environment and maps (default-constructed)",
        where
    );
    return *state_;
}

CommunicatorState& Communicator::running(const char* call, const std::source_location& where) const
{
    CommunicatorState& s = state(where);
    mpi::detail::requireMpiRunning(call, where); // one load while MPI runs
    return s;
}

void Communicator::checkBlock(
    int order,
    const std::array<std::size_t, 3>& extents,
    const std::string& label,
    const std::source_location& where
) const
{
    const std::optional<detail::BlockShape>& shape { state(where).pattern_.blockShape() };
    if (!shape)
    {
        return; // maps of another origin: a rank-3 view is its span, as documented
    }
    const auto expected = static_cast<int>(shape->order);
    FIELDSYNC_CHECK_AT(
        order < 0 || order == expected,
        "Communicator: rank-3 view '" + label + "' is " +
            (order == 0 ? "LayoutRight" : "LayoutLeft") + ", but the maps (a StructuredBlock's) " +
            "index a " + toString(shape->order) + " array: its cells would be named wrongly. " +
            "Give the StructuredBlock BlockOrder::" + (order == 0 ? "LayoutRight" : "LayoutLeft") +
            ", or the view Kokkos::" + toString(shape->order) +
            " (Kokkos::View<T***> is LayoutLeft on CUDA and HIP)",
        where
    );
    bool same { true };
    for (std::size_t d { 0 }; d < 3; ++d)
    {
        same = same && static_cast<std::int64_t>(extents[d]) == shape->extents[d];
    }
    FIELDSYNC_CHECK_AT(
        same,
        "Communicator: rank-3 view '" + label + "' has extents " + std::to_string(extents[0]) +
            " x " + std::to_string(extents[1]) + " x " + std::to_string(extents[2]) +
            ", the maps (a StructuredBlock's) index a padded array of " +
            std::to_string(shape->extents[0]) + " x " + std::to_string(shape->extents[1]) + " x " +
            std::to_string(shape->extents[2]),
        where
    );
}

void Communicator::start(const Fields& fields, const CommKey& key, bool reverse, ReverseOp op)
{
    running(reverse ? "Communicator::startReverse" : "Communicator::startComm", key.where())
        .start(fields, key, reverse, op);
}

void Communicator::finish(
    const Fields& fields, const CommKey* key, bool reverse, const std::source_location& where
)
{
    CommunicatorState& s =
        running(reverse ? "Communicator::finaliseReverse" : "Communicator::finaliseComm", where);
    Exchange& exchange =
        key != nullptr
            ? s.table_.byKey(*key, reverse)
            : s.table_.byField(fields.count() > 0 ? fields.shape(0).data : nullptr, where, reverse);
    s.finish(fields, exchange, where);
}

bool Communicator::isComplete(const CommKey& key)
{
    CommunicatorState& s = running("Communicator::isComplete", key.where());
    return s.test(s.table_.byKey(key, false), key.where());
}

void Communicator::waitComplete(const CommKey& key)
{
    CommunicatorState& s = running("Communicator::waitComplete", key.where());
    s.wait(s.table_.byKey(key, false), key.where());
}

bool Communicator::testByField(const void* data, const std::source_location& where)
{
    CommunicatorState& s = running("Communicator::isComplete", where);
    return s.test(s.table_.byField(data, where, std::nullopt), where);
}

void Communicator::waitByField(const void* data, const std::source_location& where)
{
    CommunicatorState& s = running("Communicator::waitComplete", where);
    s.wait(s.table_.byField(data, where, std::nullopt), where);
}

const ExchangeOptions& Communicator::options() const
{
    return state(std::source_location::current()).options_;
}

void Communicator::setOptions(const ExchangeOptions& options, const std::source_location& where)
{
    CommunicatorState& s = state(where);
    ExchangeOptions checked { options };
    if (!checked.waitPolicy)
    {
        checked.waitPolicy = mpi::WaitPolicy::fromEnvironment();
    }
    const double seconds { checked.waitPolicy->timeoutSeconds };
    // inf would never report, nan never compares: both would turn a hang back into a silent one
    FIELDSYNC_CHECK_AT(
        std::isfinite(seconds) && seconds > 0.0,
        "Communicator::setOptions: ExchangeOptions::waitPolicy.timeoutSeconds = " +
            std::to_string(seconds) + " is not a finite number of seconds greater than 0",
        where
    );
    s.options_ = checked;
}

void Communicator::setWaitPolicy(mpi::WaitPolicy policy)
{
    ExchangeOptions options { this->options() };
    options.waitPolicy = policy;
    setOptions(options);
}

void Communicator::setPersistent(bool persistent)
{
    ExchangeOptions options { this->options() };
    options.persistentFrom = persistent ? 0 : ExchangeOptions::neverPersistent;
    setOptions(options);
}

void Communicator::setStaging(mpi::Staging staging)
{
    ExchangeOptions options { this->options() };
    options.staging = staging;
    setOptions(options);
}

void Communicator::setInPlace(bool inPlace)
{
    ExchangeOptions options { this->options() };
    options.inPlace = inPlace;
    setOptions(options);
}

void Communicator::setTiming(bool timing)
{
    ExchangeOptions options { this->options() };
    options.timing = timing;
    setOptions(options);
}

const mpi::MPIEnvironment& Communicator::environment() const
{
    return state(std::source_location::current()).env_;
}

int Communicator::tagOf(const CommKey& key, bool reverse) const
{
    return state(key.where()).table_.tagOf(key, reverse);
}

const RankSimplexCommMap& Communicator::sendMap() const
{
    return state(std::source_location::current()).pattern_.sendMap();
}

const RankSimplexCommMap& Communicator::receiveMap() const
{
    return state(std::source_location::current()).pattern_.receiveMap();
}

std::string Communicator::describeInFlight() const
{
    return state_ == nullptr ? std::string(" none") : state_->table_.describeInFlight();
}

std::size_t Communicator::poolSize() const noexcept
{
    return state_ == nullptr ? 0 : state_->pool_.size();
}

namespace
{
/** @brief @p ticks (times kept in telemetry-clock ticks) with the times in seconds. */
ExchangeStats inSeconds(const ExchangeStats& ticks)
{
    const double secondsPerTick { telemetrySecondsPerTick() };
    ExchangeStats seconds { ticks };
    seconds.packSeconds *= secondsPerTick;
    seconds.postSeconds *= secondsPerTick;
    seconds.waitSeconds *= secondsPerTick;
    seconds.unpackSeconds *= secondsPerTick;
    return seconds;
}
} // namespace

const ExchangeStats& Communicator::stats(const CommKey& key, bool reverse) const
{
    const CommunicatorState& s = state(key.where());
    std::string known;
    for (const auto& exchange : s.table_.all())
    {
        if (exchange.reverse == reverse && exchange.key == key)
        {
            exchange.reported = inSeconds(exchange.stats);
            return exchange.reported;
        }
        known += (known.empty() ? " '" : ", '") + exchange.key.name() + "'" +
                 (exchange.reverse ? " (reverse)" : "");
    }
    throw Error(
        std::string("Communicator::stats: no ") + (reverse ? "reverse " : "") + "exchange '" +
            key.name() + "' was ever started. Keys:" + (known.empty() ? " none" : known),
        key.where()
    );
}

std::string Communicator::statsJson(const std::source_location& where) const
{
    const CommunicatorState& s = state(where);
    const auto quoted = [](const std::string& text)
    {
        std::string out { "\"" };
        for (const char c : text)
        {
            if (c == '"' || c == '\\')
            {
                out.append(1, '\\').append(1, c);
            }
            else if (static_cast<unsigned char>(c) < 0x20)
            {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                out.append(escaped);
            }
            else
            {
                out.append(1, c);
            }
        }
        return out.append(1, '"');
    };
    const auto number = [](double value)
    {
        char text[32];
        std::snprintf(text, sizeof text, "%.9g", value);
        return std::string(text);
    };
    std::string json { "{\"rank\": " };
    json.append(std::to_string(s.env_.rank())).append(", \"keys\": [");
    bool first { true };
    for (const auto& exchange : s.table_.all())
    {
        const ExchangeStats t = inSeconds(exchange.stats);
        json.append(first ? "" : ", ").append("{\"key\": ").append(quoted(exchange.key.name()));
        json.append(", \"reverse\": ").append(exchange.reverse ? "true" : "false");
        json.append(", \"exchanges\": ").append(std::to_string(t.exchanges));
        json.append(", \"messages\": ").append(std::to_string(t.messages));
        json.append(", \"bytesSent\": ").append(std::to_string(t.bytesSent));
        json.append(", \"bytesReceived\": ").append(std::to_string(t.bytesReceived));
        json.append(", \"packSeconds\": ").append(number(t.packSeconds));
        json.append(", \"postSeconds\": ").append(number(t.postSeconds));
        json.append(", \"waitSeconds\": ").append(number(t.waitSeconds));
        json.append(", \"unpackSeconds\": ").append(number(t.unpackSeconds)).append("}");
        first = false;
    }
    return json.append("]}");
}

void Communicator::writeStats(const std::string& path, const std::source_location& where) const
{
    const CommunicatorState& s = state(where);
    const std::string mine = statsJson(where);
    const MPI_Comm comm = s.env_.comm();
    const int me = s.env_.rank();
    const int size = s.env_.sizeRank();
    std::vector<int> lengths(static_cast<std::size_t>(size));
    const int length = static_cast<int>(mine.size());
    mpi::allGather(std::span(&length, 1), lengths, comm, {}, where); // gatherV reads them all
    int total { 0 };
    for (const int l : lengths)
    {
        total += l;
    }
    std::vector<char> all(me == 0 ? static_cast<std::size_t>(total) : 0);
    mpi::gatherV(std::span(mine.data(), mine.size()), all, lengths, 0, comm, {}, where);
    int written { 1 };
    if (me == 0)
    {
        std::FILE* file = std::fopen(path.c_str(), "w");
        written = file != nullptr ? 1 : 0;
        std::size_t offset { 0 };
        for (int r = 0; file != nullptr && r < size; ++r)
        {
            std::fputs(r == 0 ? "{\"ranks\": [\n  " : ",\n  ", file);
            const auto l = static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)]);
            std::fwrite(all.data() + offset, 1, l, file);
            offset += l;
        }
        if (file != nullptr)
        {
            std::fputs("\n]}\n", file);
            written = std::fclose(file) == 0 ? 1 : 0;
        }
    }
    mpi::broadcast(std::span(&written, 1), 0, comm, {}, where);
    FIELDSYNC_CHECK_AT(
        written == 1, "Communicator::writeStats: rank 0 could not write '" + path + "'", where
    );
}

void Communicator::resetStats() noexcept
{
    if (state_ != nullptr)
    {
        for (auto& exchange : state_->table_.all())
        {
            exchange.stats = ExchangeStats {};
        }
    }
}

} // namespace fieldsync::halo
