// SPDX-License-Identifier: MIT
// A collective with CallOptions::algorithm other than Native: which of fieldsync's own
// algorithms (compat/fieldsync/mpi/algorithms.hpp) runs which collective, and running it on the
// pointers the family engine prepared (host memory, staged where needed).
#include "collectiveEngine.hpp"
#include "fieldsync/mpi/algorithms.hpp"

#include <memory>

namespace fieldsync::mpi::detail
{

namespace
{

namespace fa = fieldsync::mpi::algorithms;

using Starter =
    fa::Schedule (*)(const Engine&, const void*, void*, std::size_t, const fa::Context&);

/** One collective and algorithm fieldsync implements, and how to start it. */
struct Entry
{
    Kind kind;           /**< the collective */
    Algorithm algorithm; /**< the algorithm */
    Starter start;       /**< starts it on prepared pointers */
};

// clang-format off
constexpr Entry table[] {
    { Kind::AllReduce, Algorithm::RecursiveDoubling,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::allReduceRecursiveDoubling(s, r, n, e.call().type, e.op(), c); } },
    { Kind::AllReduce, Algorithm::Ring,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::allReduceRing(s, r, n, e.call().type, e.op(), c); } },
    { Kind::AllReduce, Algorithm::Rabenseifner,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::allReduceRabenseifner(s, r, n, e.call().type, e.op(), c); } },
    { Kind::Reduce, Algorithm::BinomialTree,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::reduceBinomial(s, r, n, e.call().type, e.op(), e.root(), c); } },
    { Kind::Broadcast, Algorithm::BinomialTree,
      [](const Engine& e, const void*, void* r, std::size_t n, const fa::Context& c)
      { return fa::broadcastBinomial(r, n, e.call().type, e.root(), c); } },
    { Kind::Broadcast, Algorithm::ScatterAllGather,
      [](const Engine& e, const void*, void* r, std::size_t n, const fa::Context& c)
      { return fa::broadcastScatterAllGather(r, n, e.call().type, e.root(), c); } },
    { Kind::AllGather, Algorithm::Ring,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::allGatherRing(s, r, n, e.call().type, c); } },
    { Kind::AllGather, Algorithm::RecursiveDoubling,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::allGatherRecursiveDoubling(s, r, n, e.call().type, c); } },
    { Kind::Gather, Algorithm::BinomialTree,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::gatherBinomial(s, r, n, e.call().type, e.root(), c); } },
    { Kind::Gather, Algorithm::Naive,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::gatherNaive(s, r, n, e.call().type, e.root(), c); } },
    { Kind::Scatter, Algorithm::Naive,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::scatterNaive(s, r, n, e.call().type, e.root(), c); } },
    { Kind::Scatter, Algorithm::DivideAndConquer,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::scatterDivideAndConquer(s, r, n, e.call().type, e.root(), c); } },
    { Kind::ReduceScatterBlock, Algorithm::RecursiveHalving,
      [](const Engine& e, const void* s, void* r, std::size_t n, const fa::Context& c)
      { return fa::reduceScatterRecursiveHalving(s, r, n, e.call().type, e.op(), c); } },
};
// clang-format on

const Entry* find(Kind kind, Algorithm algorithm) noexcept
{
    for (const Entry& entry : table)
    {
        if (entry.kind == kind && entry.algorithm == algorithm)
        {
            return &entry;
        }
    }
    return nullptr;
}

} // namespace

bool algorithmApplies(Kind kind, Algorithm algorithm) noexcept
{
    return find(kind, algorithm) != nullptr;
}

int runAlgorithm(Engine& e, const void* send, void* recv, std::size_t values)
{
    const Entry* entry = find(e.call().kind, e.call().algorithm);
    e.check(entry != nullptr, [] { return std::string("no such algorithm"); });
    fa::Schedule schedule = entry->start(
        e, send, recv, values, fa::Context { e.comm(), e.call().where, e.call().name }
    );
    if (e.blocking())
    {
        schedule.wait();
        return MPI_SUCCESS;
    }
    // a non-blocking call: the Request's test() and wait() move the schedule on
    e.state().schedule = std::move(schedule);
    e.state().scheduled = true;
    return MPI_SUCCESS;
}

} // namespace fieldsync::mpi::detail
