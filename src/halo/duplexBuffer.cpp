// SPDX-License-Identifier: MIT
#include "fieldsync/halo/duplexBuffer.hpp"

#include "fieldsync/core/commKey.hpp"
#include "fieldsync/core/error.hpp"
#include "fieldsync/core/faults.hpp"
#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "fieldsync/mpi/tag.hpp"

#include "transport.hpp"

namespace fieldsync::halo::detail
{

DuplexBuffer::DuplexBuffer(const mpi::detail::SpaceOps& space) : send_(space), receive_(space) {}

DuplexBuffer::DuplexBuffer(
    const mpi::detail::SpaceOps& space,
    MPIEnvironment env,
    std::vector<std::size_t> sendSize,
    std::vector<std::size_t> receiveSize
)
    : send_(space, env, std::move(sendSize)), receive_(space, env, std::move(receiveSize)),
      comm_(env.comm())
{
}

DuplexBuffer::DuplexBuffer(
    const mpi::detail::SpaceOps& space,
    MPIEnvironment env,
    std::vector<int> sendRanks,
    std::vector<std::size_t> sendCounts,
    std::vector<int> receiveRanks,
    std::vector<std::size_t> receiveCounts
)
    : send_(space, env, std::move(sendRanks), std::move(sendCounts)),
      receive_(space, env, std::move(receiveRanks), std::move(receiveCounts)), comm_(env.comm())
{
}

void DuplexBuffer::initComm(
    std::string_view name,
    const std::type_info& type,
    std::size_t entryBytes,
    const std::source_location& where
)
{
    send_.claimBytes(name, type, entryBytes, where);
    try
    {
        receive_.claimBytes(name, type, entryBytes, where);
    }
    catch (...)
    {
        send_.finaliseComm(where);
        throw;
    }
    if (!tagSet_)
    {
        mpi::detail::requireMpiRunning("FullDuplexCommBuffer::initComm", where);
        tag_ = mpi::tagFromHash(fnv1a32(name), comm_);
    }
}

void DuplexBuffer::setTransports(
    std::unique_ptr<Transport> send,
    std::unique_ptr<Transport> receive,
    const std::source_location& where
)
{
    together_ = false;
    send_.setTransport(std::move(send), where);
    receive_.setTransport(std::move(receive), where);
}

void DuplexBuffer::startReceives(const std::source_location& where)
{
    mpi::detail::requireMpiRunning("FullDuplexCommBuffer::startComm", where);
    if (receive_.state() != BufferState::Claimed)
    {
        failState("startComm", receive_.state(), where);
    }
    if (!receive_.hasTransport() && !send_.hasTransport() && comm_ != MPI_COMM_NULL)
    {
        // no back end set: point-to-point, both directions' requests in one array (testHalves)
        auto [send, receive] = makePointToPointPair(comm_);
        setTransports(std::move(send), std::move(receive), where);
        together_ = true;
    }
    receive_.receive(tag_, where);
}

void DuplexBuffer::startSends(const std::source_location& where)
{
    if (send_.state() != BufferState::Claimed)
    {
        failState("startComm", send_.state(), where);
    }
    copySelf(where);
    send_.send(tag_, where);
}

bool DuplexBuffer::testHalves(const std::source_location& where)
{
    if (faultHappens(&fieldsync::detail::FaultSettings::order
        )) // fault injection: the receives are tested first
    {
        const bool received = receive_.complete(true, where);
        return send_.complete(false, where) && received;
    }
    // Both directions in one MPI test where the back end keeps them together (point-to-point):
    // one call into MPI and one progress of its engine per test, as MPI_Waitall would do
    if (together_ && send_.state() == BufferState::InFlight &&
        receive_.state() == BufferState::InFlight)
    {
        if (const std::optional<bool> both = receive_.completeTogether(send_, where))
        {
            return *both;
        }
    }
    // Otherwise sends first, and both halves every time: the sends are usually done while the
    // receives are still awaited, so once the last message lands one MPI test (of the
    // receives) is left on the critical path, not two. A completed half answers from its state.
    const bool sent = send_.complete(false, where);
    return receive_.complete(true, where) && sent;
}

bool DuplexBuffer::isComplete(const std::source_location& where)
{
    mpi::detail::requireMpiRunning("FullDuplexCommBuffer::isComplete", where);
    checkStarted("isComplete", where);
    return testHalves(where);
}

void DuplexBuffer::waitComplete(
    std::string_view what, const std::source_location& where, const std::function<void()>& listen
)
{
    mpi::detail::requireMpiRunning("FullDuplexCommBuffer::waitComplete", where);
    checkStarted("waitComplete", where);
    // the one wait's fast phase completes the common case (done after overlap) in a test or two
    mpi::waitWithTimeout(
        [&] { return testHalves(where); },
        [&]
        {
            std::string text = receive_.describePending(where);
            const std::string sends = send_.describePending(where);
            return text + (!text.empty() && !sends.empty() ? ", " : "") + sends;
        },
        policy(),
        "communication",
        what,
        where,
        listen
    );
}

void DuplexBuffer::checkReceived(const std::source_location& where) const
{
    if (receive_.state() != BufferState::Complete)
    {
        throw Error(
            "communication buffer '" + name() +
                "': getReceiveBuffer before the communication completed (state " +
                toString(receive_.state()) + "; call waitComplete or test isComplete first)",
            where
        );
    }
}

void DuplexBuffer::checkFinalise(const std::source_location& where) const
{
    if (send_.state() == BufferState::InFlight || receive_.state() == BufferState::InFlight)
    {
        throw Error(
            "communication buffer '" + name() +
                "': finaliseComm while communication is in flight (call waitComplete first)",
            where
        );
    }
    if (!isCommInit())
    {
        throw Error("communication buffer: finaliseComm on a buffer that is not claimed", where);
    }
}

bool DuplexBuffer::releaseAfterFailure(std::string_view what, const std::source_location& where)
{
    if (!receive_.failed())
    {
        return false;
    }
    if (send_.state() == BufferState::InFlight)
    {
        waitComplete(what, where);
    }
    finaliseComm(where);
    return true;
}

void DuplexBuffer::failState(
    std::string_view call, BufferState state, const std::source_location& where
) const
{
    const std::string why = state == BufferState::Free
                                ? "the buffer is not claimed (call initComm first)"
                                : "communication was already started";
    throw Error("communication buffer '" + name() + "': " + std::string(call) + ": " + why, where);
}

void DuplexBuffer::checkNotStarted(std::string_view call, const std::source_location& where) const
{
    if (send_.state() != BufferState::Claimed)
    {
        failState(call, send_.state(), where);
    }
}

void DuplexBuffer::failStarted(std::string_view call, const std::source_location& where) const
{
    throw Error(
        "communication buffer '" + name() + "': " + std::string(call) +
            " before startComm (state " + toString(send_.state()) + ")",
        where
    );
}

void DuplexBuffer::copySelf(const std::source_location& where)
{
    const int self = send_.myRank();
    const int ks = send_.selfSlot();
    const int kr = receive_.selfSlot();
    const std::size_t sendBytes = ks < 0 ? 0 : send_.bytesOf(static_cast<std::size_t>(ks));
    const std::size_t receiveBytes = kr < 0 ? 0 : receive_.bytesOf(static_cast<std::size_t>(kr));
    if (sendBytes != receiveBytes)
    {
        throw Error(
            "communication buffer '" + name() + "': rank " + std::to_string(self) + " sends " +
                std::to_string(sendBytes) + " bytes to itself but expects " +
                std::to_string(receiveBytes),
            where
        );
    }
    if (sendBytes > 0)
    {
        send_.space().copy(
            receive_.data() + receive_.byteOffsetOf(static_cast<std::size_t>(kr)),
            send_.data() + send_.byteOffsetOf(static_cast<std::size_t>(ks)),
            sendBytes
        );
    }
}

} // namespace fieldsync::halo::detail
