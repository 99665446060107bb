// SPDX-License-Identifier: MIT
// Check mode of one halo exchange: headers, checksums and their comparison.
#include "exchangeCheck.hpp"

#include "checkMode.hpp"

#include "transport.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/faults.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace fieldsync::halo
{

namespace
{
/** @brief "rank R (key 'K', started at S)" for the messages, from a header. */
std::string startedText(int rank, const CheckHeader& h)
{
    return std::string("rank ")
        .append(std::to_string(rank))
        .append(" started key '")
        .append(headerText(h.keyName))
        .append("' at ")
        .append(headerText(h.site));
}

/** @brief Completes @p request under the time-out (cancelled first when @p cancel). */
bool completeRequest(MPI_Request& request, bool cancel, std::string_view name) noexcept
{
    if (request == MPI_REQUEST_NULL)
    {
        return true;
    }
    if (cancel)
    {
        MPI_Cancel(&request);
    }
    return completeDropped(
        [&request]
        {
            int flag { 0 };
            MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
            return flag != 0;
        },
        "a check-mode message",
        name
    );
}
/** @brief Completes each of @p requests under the time-out; false when one could not. */
bool completeAll(std::vector<MPI_Request>& requests, std::string_view name) noexcept
{
    bool done { true };
    for (MPI_Request& request : requests)
    {
        done = completeRequest(request, false, name) && done;
    }
    return done;
}
} // namespace

void messagesOf(
    const CommBufferCore& half, std::vector<std::size_t>& slots, std::vector<int>& ranks
)
{
    slots.clear();
    ranks.clear();
    for (std::size_t k = 0; k < half.ranks().size(); ++k)
    {
        if (half.ranks()[k] != half.myRank() && half.bytesOf(k) > 0)
        {
            slots.push_back(k);
            ranks.push_back(half.ranks()[k]);
        }
    }
}

std::uint64_t checksum64(const char* data, std::size_t bytes) noexcept
{
    constexpr std::uint64_t prime { 0x100000001b3ULL };
    std::uint64_t hash { 0xcbf29ce484222325ULL ^ bytes };
    std::size_t i { 0 };
    for (; i + 8 <= bytes; i += 8) // word by word: any change of one word changes the result
    {
        std::uint64_t word { 0 };
        std::memcpy(&word, data + i, 8);
        hash = (hash ^ word) * prime;
    }
    for (; i < bytes; ++i)
    {
        hash = (hash ^ static_cast<unsigned char>(data[i])) * prime;
    }
    return hash;
}

ExchangeCheck::~ExchangeCheck()
{
    int finalised { 0 };
    MPI_Finalized(&finalised);
    if (finalised == 0)
    {
        finishHeaders("<destroyed>");
    }
}

std::uint64_t
ExchangeCheck::checksumOf(const mpi::detail::SpaceOps& space, const char* data, std::size_t bytes)
{
    if (space.hostAccessible())
    {
        return checksum64(data, bytes);
    }
    scratch_.resize(std::max(scratch_.size(), bytes)); // device memory: read a host copy
    space.toHost(scratch_.data(), data, bytes);
    return checksum64(scratch_.data(), bytes);
}

void ExchangeCheck::seal(const CommBufferCore& send, std::span<const std::uint64_t> cells)
{
    static_cast<void>(finishHeaders(headerText(mine_.keyName))); // an earlier start left them
    messagesOf(send, outSlots_, outRanks_);
    out_.assign(outSlots_.size(), mine_);
    for (std::size_t i = 0; i < out_.size(); ++i)
    {
        const std::size_t k = outSlots_[i];
        char* data = send.slotData(k);
        out_[i].bytes = send.bytesOf(k);
        out_[i].cells = k < cells.size() ? cells[k] : 0;
        out_[i].checksum = checksumOf(send.space(), data, send.bytesOf(k));
        if (!send.isDirect(k) &&
            faultHappens(&fieldsync::detail::FaultSettings::corrupt)) // never the user's field
        {
            char byte { 0 };
            send.space().toHost(&byte, data, 1);
            byte = static_cast<char>(byte ^ 0x5a);
            send.space().fromHost(data, &byte, 1);
        }
    }
}

void ExchangeCheck::post(
    const CommBufferCore& receive, MPI_Comm comm, int tag, const std::source_location& where
)
{
    messagesOf(receive, inSlots_, inRanks_);
    in_.resize(inSlots_.size());
    found_.assign(in_.size(), 0);
    outRequests_.assign(out_.size(), MPI_REQUEST_NULL);
    compared = false;
    verified = false;
    for (std::size_t i = 0; i < out_.size(); ++i)
    {
        FIELDSYNC_MPI_AT(
            MPI_Isend(
                &out_[i], sizeof(CheckHeader), MPI_BYTE, outRanks_[i], tag, comm, &outRequests_[i]
            ),
            where
        );
    }
}

bool ExchangeCheck::headersDone(
    CheckMode& mailbox, MPI_Comm comm, int tag, const std::source_location& where
)
{
    mailbox.pump(comm, tag, where);
    bool all { true };
    for (std::size_t i = 0; i < in_.size(); ++i)
    {
        if (found_[i] == 0 && mailbox.take(inRanks_[i], mine_.key, in_[i]))
        {
            found_[i] = 1;
        }
        all = all && found_[i] != 0;
    }
    int out { 0 };
    FIELDSYNC_MPI_AT(
        MPI_Testall(
            static_cast<int>(outRequests_.size()), outRequests_.data(), &out, MPI_STATUSES_IGNORE
        ),
        where
    );
    return all && out != 0;
}

std::string ExchangeCheck::otherKeys(CheckMode& mailbox, int me)
{
    std::string error;
    for (std::size_t i = 0; i < in_.size(); ++i)
    {
        if (found_[i] != 0 || !mailbox.takeOther(inRanks_[i], mine_.key, in_[i]))
        {
            continue;
        }
        found_[i] = 1;
        error.append("\n  ")
            .append(startedText(me, mine_))
            .append(" but ")
            .append(startedText(inRanks_[i], in_[i]))
            .append(" and has not started it (rank ")
            .append(std::to_string(inRanks_[i]))
            .append(" probably skipped or reordered a call, or waits for a peer that did)");
    }
    return error;
}

std::string ExchangeCheck::compare(
    const CommBufferCore& receive, std::span<const std::uint64_t> cells, int me
) const
{
    std::string error;
    for (std::size_t i = 0; i < in_.size(); ++i)
    {
        const CheckHeader& h = in_[i];
        const int peer = inRanks_[i];
        const std::size_t k = inSlots_[i];
        std::string diff;
        const auto add = [&diff](const std::string& part)
        {
            diff.append(diff.empty() ? "" : "; ").append(part);
        };
        if (h.counter != mine_.counter)
        {
            add("this is exchange " + std::to_string(mine_.counter) + " of the key on rank " +
                std::to_string(me) + ", " + std::to_string(h.counter) + " on rank " +
                std::to_string(peer));
        }
        if (h.type != mine_.type || h.cellBytes != mine_.cellBytes)
        {
            add("element type '" + headerText(mine_.typeName) + "' (" +
                std::to_string(mine_.cellBytes) + " bytes per cell) on rank " + std::to_string(me) +
                ", '" + headerText(h.typeName) + "' (" + std::to_string(h.cellBytes) +
                " bytes per cell) on rank " + std::to_string(peer));
        }
        if (h.bytes != receive.bytesOf(k))
        {
            add("receive from rank " + std::to_string(peer) + ": expected " +
                std::to_string(receive.bytesOf(k)) + " bytes, received " + std::to_string(h.bytes) +
                " bytes" + (h.bytes > receive.bytesOf(k) ? " (truncated)" : "") +
                " (the send and receive maps disagree: rank " + std::to_string(peer) + " sends " +
                std::to_string(h.bytes) + " bytes, rank " + std::to_string(me) + " expects " +
                std::to_string(receive.bytesOf(k)) + " bytes)");
        }
        const std::uint64_t expected = k < cells.size() ? cells[k] : 0;
        if (h.globalIds != 0 && mine_.globalIds != 0 && h.cells != expected)
        {
            add("the global ids of the cells rank " + std::to_string(peer) +
                " sends differ from those rank " + std::to_string(me) +
                " expects (the maps list them in another order)");
        }
        if (!diff.empty())
        {
            error.append("\n  exchange '")
                .append(headerText(mine_.keyName))
                .append("': ")
                .append(startedText(me, mine_))
                .append(", ")
                .append(startedText(peer, h))
                .append(", and they disagree: ")
                .append(diff);
        }
    }
    return error;
}

std::string ExchangeCheck::verifyReceived(const CommBufferCore& receive, int me)
{
    std::string error;
    for (std::size_t i = 0; i < in_.size(); ++i)
    {
        const std::size_t k = inSlots_[i];
        const std::uint64_t sum = checksumOf(receive.space(), receive.slotData(k), in_[i].bytes);
        if (sum != in_[i].checksum)
        {
            error.append("\n  exchange '")
                .append(headerText(mine_.keyName))
                .append("': the message from rank ")
                .append(std::to_string(inRanks_[i]))
                .append(" (started at ")
                .append(headerText(in_[i].site))
                .append(") arrived at rank ")
                .append(std::to_string(me))
                .append(" with another checksum than rank ")
                .append(std::to_string(inRanks_[i]))
                .append(" computed after packing it (the message was corrupted on the way, or "
                        "the sender wrote its send cells while in flight)");
        }
    }
    verified = true;
    return error;
}

std::string ExchangeCheck::verifyInPlace(const CommBufferCore& send, int me)
{
    std::string error;
    for (std::size_t i = 0; i < out_.size(); ++i)
    {
        const std::size_t k = outSlots_[i];
        if (send.isDirect(k) &&
            checksumOf(send.space(), send.slotData(k), out_[i].bytes) != out_[i].checksum)
        {
            error.append("\n  exchange '")
                .append(headerText(mine_.keyName))
                .append("' (started at ")
                .append(headerText(mine_.site))
                .append("): send cells changed while in flight: rank ")
                .append(std::to_string(me))
                .append(" wrote the cells it sends in place to rank ")
                .append(std::to_string(outRanks_[i]))
                .append(" between startComm and finaliseComm (rank ")
                .append(std::to_string(outRanks_[i]))
                .append(" may have received the old or the new values)");
        }
    }
    return error;
}

std::span<const char> ExchangeCheck::drainOthers(MPI_Comm comm, std::string_view name) noexcept
{
    cancel_.assign(in_.size(), 0);
    for (std::size_t i = 0; i < in_.size(); ++i)
    {
        const CheckHeader& h = in_[i];
        if (h.tag < 0 || mine_.tag < 0 || h.tag == mine_.tag || h.bytes > INT_MAX)
        {
            continue; // a collective, or the message this rank's receive takes
        }
        cancel_[i] = 1;
        try
        {
            scratch_.resize(std::max<std::size_t>(scratch_.size(), h.bytes));
        }
        catch (...)
        {
            continue;
        }
        MPI_Request request { MPI_REQUEST_NULL };
        if (MPI_Irecv(
                scratch_.data(),
                static_cast<int>(h.bytes),
                MPI_BYTE,
                inRanks_[i],
                h.tag,
                comm,
                &request
            ) == MPI_SUCCESS)
        {
            static_cast<void>(completeRequest(request, false, name));
        }
    }
    return cancel_;
}

bool ExchangeCheck::finishHeaders(std::string_view name) noexcept
{
    return completeAll(outRequests_, name);
}

bool ExchangeCheck::awaitsHeaderFrom(int rank) const noexcept
{
    for (std::size_t i = 0; i < inRanks_.size(); ++i)
    {
        if (inRanks_[i] == rank && (i >= found_.size() || found_[i] == 0))
        {
            return true;
        }
    }
    return false;
}

std::string ExchangeCheck::describePending(const CheckMode& mailbox)
{
    std::string text;
    for (std::size_t i = 0; i < in_.size(); ++i)
    {
        if (found_[i] != 0)
        {
            continue;
        }
        const std::string other = mailbox.describe(inRanks_[i]);
        text.append(text.empty() ? "" : ", ")
            .append("check header from rank ")
            .append(std::to_string(inRanks_[i]))
            .append(other.empty() ? "" : " (from it arrived instead: rank ")
            .append(other.empty() ? "" : std::to_string(inRanks_[i]) + " " + other + ")");
    }
    for (std::size_t i = 0; i < outRequests_.size(); ++i)
    {
        int flag { 1 };
        if (outRequests_[i] != MPI_REQUEST_NULL)
        {
            MPI_Request_get_status(outRequests_[i], &flag, MPI_STATUS_IGNORE);
        }
        if (flag == 0)
        {
            text.append(text.empty() ? "" : ", ")
                .append("check header to rank ")
                .append(std::to_string(outRanks_[i]));
        }
    }
    return text;
}

} // namespace fieldsync::halo
