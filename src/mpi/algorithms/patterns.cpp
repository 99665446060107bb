// SPDX-License-Identifier: MIT
// The communication patterns the algorithms are made of: binomial trees, rings, recursive
// halving and doubling, and the fold that lets the last two run on any number of ranks.
#include "scheduleState.hpp"

#include <algorithm>

namespace fieldsync::mpi::algorithms
{

std::vector<std::size_t> balancedBounds(std::size_t n, int p)
{
    std::vector<std::size_t> bounds(static_cast<std::size_t>(p) + 1);
    for (int k = 0; k <= p; ++k)
    {
        bounds[static_cast<std::size_t>(k)] = blockStart(n, p, k);
    }
    return bounds;
}

std::vector<std::size_t> equalBounds(std::size_t each, int p)
{
    return balancedBounds(each * static_cast<std::size_t>(p), p);
}

void transferBlocks(
    ScheduleState& s, bool isSend, int peer, const BlockBuffer& buffer, int first, int last
)
{
    s.transfer({ isSend, peer, buffer.block(s, first), buffer.values(first, last) });
}

std::vector<TreeStep> scatterSteps(int vr, int p)
{
    std::vector<TreeStep> steps;
    int lo { 0 };
    int hi { p };
    while (hi - lo > 1)
    {
        const int mid = lo + (hi - lo + 1) / 2;
        if (vr < mid)
        {
            if (vr == lo)
            {
                steps.push_back({ true, mid, mid, hi });
            }
            hi = mid;
        }
        else
        {
            if (vr == mid)
            {
                steps.push_back({ false, lo, mid, hi });
            }
            lo = mid;
        }
    }
    return steps;
}

int subtreeEnd(const std::vector<TreeStep>& steps, int p)
{
    return !steps.empty() && !steps.front().isSend ? steps.front().last : p;
}

void addTreeScatter(ScheduleState& s, const BlockBuffer& buffer)
{
    const int p = s.size();
    const int vr = relative(s.rank(), buffer.root, p);
    for (const TreeStep& step : scatterSteps(vr, p))
    {
        s.newRound();
        transferBlocks(
            s, step.isSend, absolute(step.peer, buffer.root, p), buffer, step.first, step.last
        );
    }
}

void addRingAllGather(ScheduleState& s, const BlockBuffer& buffer)
{
    const int p = s.size();
    const int vr = relative(s.rank(), buffer.root, p);
    const int right = absolute((vr + 1) % p, buffer.root, p);
    const int left = absolute((vr + p - 1) % p, buffer.root, p);
    for (int step = 0; step < p - 1; ++step)
    {
        const int out = (vr - step + p) % p;
        const int in = (vr - step - 1 + p) % p;
        s.newRound();
        transferBlocks(s, false, left, buffer, in, in + 1);
        transferBlocks(s, true, right, buffer, out, out + 1);
    }
}

void addTreeReduce(ScheduleState& s, const std::byte* in, std::byte* out, std::size_t n, int root)
{
    const int p = s.size();
    const int treeRoot = s.commutative() ? root : 0;
    const int vr = relative(s.rank(), treeRoot, p);
    // the partial result alternates between two buffers: next = current op child, with the
    // lower ranks on the left, so the tree combines in rank order when it is not rotated
    const std::byte* current = in;
    std::byte* buffers[2] { nullptr, nullptr };
    int which { 0 };
    int mask { 1 };
    for (; mask < p && (vr & mask) == 0; mask <<= 1)
    {
        if (vr + mask < p)
        {
            // the root's last child is received into the result itself, saving a copy of n
            const bool last = vr == 0 && treeRoot == root && 2 * mask >= p && out != current;
            std::byte*& spare = buffers[which];
            spare = last || spare != nullptr ? spare : s.scratch(n);
            std::byte* next = last ? out : spare;
            s.newRound();
            s.transfer({ false, absolute(vr + mask, treeRoot, p), next, n });
            s.combine({ CombineKind::Reduce, current, next, n });
            current = next;
            which = 1 - which;
        }
    }
    const int parent = mask < p ? absolute(vr - mask, treeRoot, p) : root;
    if (s.rank() != parent)
    {
        s.newRound().transfer({ true, parent, const_cast<std::byte*>(current), n });
    }
    if (s.rank() == root && treeRoot != root)
    {
        s.newRound().transfer({ false, treeRoot, out, n });
    }
    else if (s.rank() == root)
    {
        s.copy(current, out, n);
    }
}

void addFoldIn(ScheduleState& s, const Fold& fold, std::byte* data, std::size_t n)
{
    if (s.rank() >= 2 * fold.extra)
    {
        return;
    }
    s.newRound();
    if (fold.sitsOut())
    {
        s.transfer({ true, s.rank() + 1, data, n });
        return;
    }
    std::byte* incoming = s.scratch(n);
    s.transfer({ false, s.rank() - 1, incoming, n });
    s.combine({ CombineKind::Reduce, incoming, data, n });
}

void addFoldOut(ScheduleState& s, const Fold& fold, std::byte* data, std::size_t n)
{
    if (s.rank() < 2 * fold.extra)
    {
        const int peer = fold.sitsOut() ? s.rank() + 1 : s.rank() - 1;
        s.newRound().transfer({ !fold.sitsOut(), peer, data, n });
    }
}

void addRotation(
    ScheduleState& s,
    const std::byte* from,
    std::byte* to,
    std::size_t each,
    int root,
    bool toRelative
)
{
    // relative block k is communicator block (k + root) % p: two contiguous runs
    const std::size_t p = static_cast<std::size_t>(s.size());
    const std::size_t r = static_cast<std::size_t>(root);
    s.newRound();
    const std::byte* upperFrom = toRelative ? s.at(from, r * each) : from;
    std::byte* upperTo = toRelative ? to : s.at(to, r * each);
    const std::byte* lowerFrom = toRelative ? from : s.at(from, (p - r) * each);
    std::byte* lowerTo = toRelative ? s.at(to, (p - r) * each) : to;
    s.combine({ CombineKind::Copy, upperFrom, upperTo, (p - r) * each });
    s.combine({ CombineKind::Copy, lowerFrom, lowerTo, r * each });
}

void addTreeBroadcast(ScheduleState& s, std::byte* data, std::size_t n, int root)
{
    const int p = s.size();
    const int vr = relative(s.rank(), root, p);
    int mask { 1 };
    while (mask < p && (vr & mask) == 0)
    {
        mask <<= 1;
    }
    if (mask < p)
    {
        s.newRound().transfer({ false, absolute(vr - mask, root, p), data, n });
    }
    s.newRound();
    for (mask >>= 1; mask > 0; mask >>= 1)
    {
        if (vr + mask < p)
        {
            s.transfer({ true, absolute(vr + mask, root, p), data, n });
        }
    }
}

int powerOfTwoBelow(int p) noexcept
{
    int p2 { 1 };
    while (p2 * 2 <= p)
    {
        p2 *= 2;
    }
    return p2;
}

Fold::Fold(int rank, int p) noexcept : p2(powerOfTwoBelow(p)), extra(p - p2)
{
    if (rank >= 2 * extra)
    {
        virt = rank - extra;
    }
    else if (rank % 2 == 1)
    {
        virt = rank / 2;
    }
}

std::vector<std::size_t> foldedBounds(const Fold& fold, std::size_t each)
{
    std::vector<std::size_t> bounds(static_cast<std::size_t>(fold.p2) + 1);
    for (int v = 0; v <= fold.p2; ++v)
    {
        const int first = v < fold.p2 ? fold.first(v) : fold.p2 + fold.extra;
        bounds[static_cast<std::size_t>(v)] = static_cast<std::size_t>(first) * each;
    }
    return bounds;
}

void addRecursiveHalving(
    ScheduleState& s, const Fold& fold, const BlockBuffer& buffer, const std::byte* source
)
{
    int lo { 0 };
    const int half = fold.p2 / 2;
    std::byte* incoming = s.scratch(std::max(buffer.values(0, half), buffer.values(half, fold.p2)));
    for (int mask = fold.p2 / 2; mask > 0; mask /= 2)
    {
        const int partner = fold.virt ^ mask;
        const bool keepLow = (fold.virt & mask) == 0;
        const int keepFirst = keepLow ? lo : lo + mask;
        const int sendFirst = keepLow ? lo + mask : lo;
        const std::size_t kept = buffer.values(keepFirst, keepFirst + mask);
        std::byte* keep = buffer.block(s, keepFirst);
        s.newRound();
        if (source != nullptr && mask == half)
        {
            // the first round reads the caller's values: the partner's half is received into
            // the buffer and the kept half of the source reduced into it, so nothing is copied
            const BlockBuffer original { const_cast<std::byte*>(source), buffer.bounds, 0, 0 };
            transferBlocks(s, true, fold.real(partner), original, sendFirst, sendFirst + mask);
            s.transfer({ false, fold.real(partner), keep, kept });
            s.combine({ CombineKind::Reduce, original.block(s, keepFirst), keep, kept });
        }
        else
        {
            transferBlocks(s, true, fold.real(partner), buffer, sendFirst, sendFirst + mask);
            s.transfer({ false, fold.real(partner), incoming, kept });
            s.combine({ CombineKind::Reduce, incoming, keep, kept });
        }
        lo = keepFirst;
    }
}

void addRecursiveDoublingGather(ScheduleState& s, const Fold& fold, const BlockBuffer& buffer)
{
    for (int mask = 1; mask < fold.p2; mask *= 2)
    {
        const int partner = fold.virt ^ mask;
        const int mine = fold.virt & ~(mask - 1);
        const int theirs = partner & ~(mask - 1);
        s.newRound();
        transferBlocks(s, false, fold.real(partner), buffer, theirs, theirs + mask);
        transferBlocks(s, true, fold.real(partner), buffer, mine, mine + mask);
    }
}

} // namespace fieldsync::mpi::algorithms
