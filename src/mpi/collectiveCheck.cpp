// SPDX-License-Identifier: MIT
// Check mode for the collectives (FIELDSYNC_CHECK=1): before MPI, every rank all-gathers a
// small signature of its call (operation, element type, op, root, counts), so that a
// disagreement that MPI would turn into wrong data, a truncation on some ranks or a hang is an
// Error on every rank instead, naming the ranks and what they passed. The V operations also
// compare each rank's count with what the root (or each peer) expects. The algorithm is part of
// the signature: a rank on fieldsync's ring and another on MPI's own would wait on each other.
#include "collectiveEngine.hpp"
#include "timedAllGather.hpp"

#include "fieldsync/mpi/detail/privateComm.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fieldsync::mpi::detail
{

namespace
{

/** The fields of one rank's signature, in the order disagreements are reported. */
enum SignatureField : std::size_t
{
    LocalError, /**< 1 when this rank's own checks failed */
    KindField,  /**< Kind, times 2, plus 1 for the blocking form */
    TypeHash,   /**< hash of the element type's MPI name */
    TypeBytes,  /**< sizeof one value */
    OpField,    /**< ReduceOp for reductions, -1 otherwise */
    RootField,  /**< root for rooted operations, -1 otherwise */
    AlgoField,  /**< Algorithm (Native or one of fieldsync's own): ranks on different ones hang */
    Count,      /**< the count every rank must pass, -1 when the operation has none */
    CountsHash, /**< hash of a counts vector every rank must pass alike, 0 when none */
    IdHash,     /**< hash of CallOptions::matchId, 0 when none */
    Own,        /**< V operations: the count this rank sends (gatherV) or receives (scatterV) */
    FieldCount
};

using Signature = std::array<std::int64_t, FieldCount>;

std::int64_t hashOf(const void* data, std::size_t bytes)
{
    std::uint64_t hash { 1469598103934665603ULL }; // FNV-1a
    const auto* byte = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i)
    {
        hash = (hash ^ byte[i]) * 1099511628211ULL;
    }
    return static_cast<std::int64_t>(hash >> 1);
}

std::int64_t hashOf(std::span<const int> counts)
{
    return hashOf(counts.data(), counts.size_bytes()) | 1; // never 0, "no counts"
}

/** The values every rank must pass alike, in the engine's own terms (per rank where split). */
std::int64_t agreedCount(const Engine& e)
{
    const Call& c = e.call();
    const auto in = static_cast<std::int64_t>(c.inPlace ? c.recv.count : c.send.count);
    const auto size = static_cast<std::int64_t>(e.size());
    switch (c.kind)
    {
    case Kind::AllReduce:
    case Kind::Reduce:
    case Kind::Scan:
    case Kind::ExScan:
        return in;
    case Kind::Broadcast:
        return static_cast<std::int64_t>(c.recv.count);
    case Kind::AllGather:
    case Kind::Gather:
        return c.inPlace ? static_cast<std::int64_t>(c.recv.count) / size : in;
    case Kind::Scatter:
        return static_cast<std::int64_t>(c.recv.count) / (c.inPlace ? size : 1);
    case Kind::AllToAll:
    case Kind::ReduceScatterBlock:
        return in / size;
    default:
        return -1;
    }
}

/** counts[rank], or -1 when @p counts has not one entry per rank. */
std::int64_t entry(const Engine& e, std::span<const int> counts, int rank)
{
    return counts.size() == e.usize() ? counts[static_cast<std::size_t>(rank)] : -1;
}

/** gatherV: what this rank sends; scatterV: what it receives; -1 otherwise. */
std::int64_t ownCount(const Engine& e)
{
    const Call& c = e.call();
    if (c.kind == Kind::GatherV)
    {
        return c.inPlace ? entry(e, c.recvCounts, e.rank())
                         : static_cast<std::int64_t>(c.send.count);
    }
    if (c.kind == Kind::ScatterV)
    {
        const bool counted = c.inPlace || e.isRoot() || !c.sendCounts.empty();
        return counted ? entry(e, c.sendCounts, e.rank()) : static_cast<std::int64_t>(c.recv.count);
    }
    return -1;
}

Signature signatureOf(const Engine& e, bool localError)
{
    const Call& c = e.call();
    const std::string type = typeName(c.type);
    const bool rooted = c.kind == Kind::Reduce || c.kind == Kind::Broadcast ||
                        c.kind == Kind::Gather || c.kind == Kind::GatherV ||
                        c.kind == Kind::Scatter || c.kind == Kind::ScatterV;
    const bool reduction = c.kind == Kind::AllReduce || c.kind == Kind::Reduce ||
                           c.kind == Kind::ReduceScatter || c.kind == Kind::ReduceScatterBlock ||
                           c.kind == Kind::Scan || c.kind == Kind::ExScan;
    const bool sameCounts = c.kind == Kind::AllGatherV || c.kind == Kind::ReduceScatter;
    Signature s {};
    s[LocalError] = localError ? 1 : 0;
    s[KindField] = static_cast<std::int64_t>(c.kind) * 2 + (c.blocking ? 1 : 0);
    s[TypeHash] = c.kind == Kind::Barrier ? 0 : hashOf(type.data(), type.size());
    s[TypeBytes] = c.kind == Kind::Barrier ? 0
                                           : static_cast<std::int64_t>(c.type.bytes) * 16 +
                                                 static_cast<std::int64_t>(c.type.typeClass);
    s[OpField] = reduction ? static_cast<std::int64_t>(c.op) : -1;
    s[RootField] = rooted ? c.root : -1;
    s[AlgoField] = static_cast<std::int64_t>(c.algorithm);
    s[Count] = agreedCount(e);
    s[CountsHash] = sameCounts ? hashOf(c.recvCounts) : 0;
    s[IdHash] =
        c.matchId != nullptr ? hashOf(c.matchId->shown().data(), c.matchId->shown().size()) | 1 : 0;
    s[Own] = ownCount(e);
    return s;
}

/** One field's value of rank @p r, as a message shows it. */
std::string shown(SignatureField field, const Signature& s)
{
    switch (field)
    {
    case KindField:
        return publicName(static_cast<Kind>(s[KindField] / 2), s[KindField] % 2 == 1);
    case TypeBytes:
    case TypeHash:
        return std::to_string(s[TypeBytes] / 16) + "-byte " +
               className(static_cast<TypeClass>(s[TypeBytes] % 16)) + " values";
    case OpField:
        return toString(static_cast<ReduceOp>(s[OpField]));
    case AlgoField:
        return toString(static_cast<Algorithm>(s[AlgoField]));
    default:
        return std::to_string(s[field]);
    }
}

const char* fieldName(SignatureField field)
{
    switch (field)
    {
    case KindField:
        return "operations (or blocking and non-blocking forms)";
    case TypeHash:
    case TypeBytes:
        return "element types";
    case OpField:
        return "ReduceOps";
    case RootField:
        return "roots";
    case AlgoField:
        return "algorithms (CallOptions::algorithm)";
    case Count:
        return "counts";
    case IdHash:
        return "matchIds (CallOptions::matchId)";
    default:
        return "recvCounts";
    }
}

/** The rank the others are compared with: the root where the roots agree, otherwise rank 0. */
std::size_t referenceRank(const Engine& e, const std::vector<Signature>& all)
{
    const std::int64_t root { all[0][RootField] };
    for (const Signature& s : all)
    {
        if (s[RootField] != root)
        {
            return 0;
        }
    }
    return root >= 0 && root < e.size() ? static_cast<std::size_t>(root) : 0;
}

/** The first field in which some rank differs from @p reference, or FieldCount. */
SignatureField firstDisagreement(const std::vector<Signature>& all, std::size_t reference)
{
    for (std::size_t f = KindField; f < Own; ++f)
    {
        for (const Signature& s : all)
        {
            if (s[f] != all[reference][f])
            {
                return static_cast<SignatureField>(f);
            }
        }
    }
    return FieldCount;
}

/** "ranks passed different roots (check mode): rank 1 passed 1, rank 0 passed 0". */
std::string
disagreement(const std::vector<Signature>& all, std::size_t reference, SignatureField field)
{
    // append() throughout: GCC 12 warns (-Wrestrict, a false positive) on operator+ chains here
    std::string text { "ranks passed different " };
    text.append(fieldName(field)).append(" (check mode):");
    const auto passed = [&](std::size_t r, const char* hashed)
    {
        text.append(" rank ").append(std::to_string(r)).append(" passed ");
        text.append(
            field == CountsHash || field == IdHash ? std::string(hashed) : shown(field, all[r])
        );
    };
    std::size_t listed { 0 };
    for (std::size_t r = 0; r < all.size(); ++r)
    {
        if (all[r][field] != all[reference][field] && listed++ < 8)
        {
            passed(r, "other values");
            text.append(",");
        }
    }
    if (listed > 8)
    {
        text.append(" ").append(std::to_string(listed - 8)).append(" more ranks differ,");
    }
    passed(reference, "its own");
    return text;
}

/** Every rank raises when any rank's own checks failed; that rank rethrows its own error. */
void reportLocalFailures(
    const Engine& e, const std::vector<Signature>& all, const std::exception_ptr& localFailure
)
{
    if (localFailure)
    {
        std::rethrow_exception(localFailure);
    }
    for (std::size_t r = 0; r < all.size(); ++r)
    {
        if (all[r][LocalError] != 0)
        {
            e.fail(
                "rank " + std::to_string(r) +
                " failed its own checks of this call (its error says why); check mode raises "
                "the error on every rank"
            );
        }
    }
}

/** gatherV / scatterV: each rank's count against the root's counts, broadcast from the root. */
void checkRootCounts(const Engine& e, const std::vector<Signature>& all)
{
    const Call& c = e.call();
    const bool gather = c.kind == Kind::GatherV;
    const std::span<const int> counts = gather ? c.recvCounts : c.sendCounts;
    std::vector<int> rootCounts(e.usize());
    if (e.isRoot())
    {
        std::copy(counts.begin(), counts.end(), rootCounts.begin());
    }
    FIELDSYNC_MPI_AT(MPI_Bcast(rootCounts.data(), e.size(), MPI_INT, c.root, c.comm), c.where);
    std::string text;
    for (std::size_t r = 0; r < all.size(); ++r)
    {
        if (all[r][Own] != rootCounts[r])
        {
            text += " rank " + std::to_string(r) + (gather ? " sends " : " receives ") +
                    std::to_string(all[r][Own]) + " values but the root (rank " +
                    std::to_string(c.root) + ") has " + (gather ? "recvCounts[" : "sendCounts[") +
                    std::to_string(r) + "] = " + std::to_string(rootCounts[r]) + ";";
        }
    }
    e.check(text.empty(), [&] { return "counts disagree with the root's (check mode):" + text; });
}

/** allToAllV: what each rank sends to a peer against what that peer expects from it. */
void checkPeerCounts(const Engine& e)
{
    const Call& c = e.call();
    const std::span<const int> sendCounts = c.inPlace ? c.recvCounts : c.sendCounts;
    std::vector<int> incoming(e.usize());
    FIELDSYNC_MPI_AT(
        MPI_Alltoall(sendCounts.data(), 1, MPI_INT, incoming.data(), 1, MPI_INT, c.comm), c.where
    );
    std::array<int, 3> mismatch { -1, 0, 0 }; // sender, sent, expected
    for (std::size_t r = 0; r < e.usize() && mismatch[0] < 0; ++r)
    {
        if (incoming[r] != c.recvCounts[r])
        {
            mismatch = { static_cast<int>(r), incoming[r], c.recvCounts[r] };
        }
    }
    std::vector<int> all(3 * e.usize());
    FIELDSYNC_MPI_AT(
        MPI_Allgather(mismatch.data(), 3, MPI_INT, all.data(), 3, MPI_INT, c.comm), c.where
    );
    std::string text;
    for (std::size_t r = 0; r < e.usize(); ++r)
    {
        if (all[3 * r] >= 0)
        {
            text += " rank " + std::to_string(all[3 * r]) + " sends " +
                    std::to_string(all[3 * r + 1]) + " values to rank " + std::to_string(r) +
                    ", whose recvCounts[" + std::to_string(all[3 * r]) + "] is " +
                    std::to_string(all[3 * r + 2]) + ";";
        }
    }
    e.check(text.empty(), [&] { return "counts disagree between peers (check mode):" + text; });
}

/** All ranks' signatures, through the timed all-gather (timedAllGather.hpp) on the private
 * duplicate of the caller's communicator, whose arrival notices have a tag of their own. */
std::vector<Signature> gatherSignatures(const Engine& e, const Signature& mine)
{
    const TimedAllGather how { privateComm(e.comm(), e.call().where),
                               reservedTag(ReservedTag::CheckArrival),
                               0,
                               "fieldsync::mpi check mode",
                               e.call().name,
                               e.call().where };
    const std::vector<std::int64_t> flat = timedAllGather(how, mine);
    std::vector<Signature> all(e.usize());
    for (std::size_t r = 0; r < all.size(); ++r)
    {
        std::copy_n(
            flat.begin() + static_cast<std::ptrdiff_t>(r * FieldCount), FieldCount, all[r].begin()
        );
    }
    return all;
}

} // namespace

void checkAgreement(const Engine& e, const std::exception_ptr& localFailure)
{
    const Signature mine = signatureOf(e, localFailure != nullptr);
    const std::vector<Signature> all = gatherSignatures(e, mine);
    reportLocalFailures(e, all, localFailure);
    const std::size_t reference = referenceRank(e, all);
    const SignatureField field = firstDisagreement(all, reference);
    if (field != FieldCount)
    {
        e.fail(disagreement(all, reference, field));
    }
    if (e.call().kind == Kind::GatherV || e.call().kind == Kind::ScatterV)
    {
        checkRootCounts(e, all);
    }
    else if (e.call().kind == Kind::AllToAllV)
    {
        checkPeerCounts(e);
    }
}

} // namespace fieldsync::mpi::detail
