// SPDX-License-Identifier: MIT
// The answered sparse exchange: every rank receives exactly the questions sent to it, every
// question gets its answer, and every rank ends with the maximum of all bids. The truth is
// computed here from formulas of the ranks and the round, never from the exchange.
#include "fieldsync_test/catch.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/answeredExchange.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include <algorithm>
#include <numeric>

using namespace fieldsync;
using namespace fieldsync::mpi;

namespace
{
/** @brief Whether rank @p from asks rank @p to in @p round (sparse, asymmetric, itself too). */
bool asks(int from, int to, int round)
{
    return (from * 7 + to * 3 + round) % 4 == 1 || to == (from + 1 + round) % 5;
}

/** @brief The question from @p from to @p to in @p round: length and values known to all. */
std::vector<std::int64_t> question(int from, int to, int round)
{
    std::vector<std::int64_t> data(static_cast<std::size_t>((from + 2 * to + round) % 5));
    for (std::size_t k { 0 }; k < data.size(); ++k)
    {
        data[k] = 1000 * from + 10 * to + round + static_cast<std::int64_t>(k);
    }
    return data;
}

/** @brief The answer rank @p to gives rank @p from in @p round, from the formulas alone. */
std::int64_t expectedAnswer(int from, int to, int round)
{
    const std::vector<std::int64_t> data { question(from, to, round) };
    return 100000 * to + 3 * std::accumulate(data.begin(), data.end(), std::int64_t { 0 }) + 1;
}

/** @brief The bid of rank @p r in @p round before it sees its answers. */
AgreementBid ownBid(int r, int round)
{
    return { static_cast<std::uint64_t>((r * 5 + round) % 7),
             static_cast<std::uint64_t>(r == round % 3 ? 9 : 2),
             0 };
}

/** @brief The sum of the answers rank @p r gets in @p round on @p n ranks (the bid's third). */
std::uint64_t answerSum(int r, int round, int n)
{
    std::int64_t sum { 0 };
    for (int to { 0 }; to < n; ++to)
    {
        sum += asks(r, to, round) ? expectedAnswer(r, to, round) : 0;
    }
    return static_cast<std::uint64_t>(sum);
}
} // namespace

TEST_CASE("answeredExchange: questions, answers and the agreed maxima, many calls back to back")
{
    const mpi::MPIEnvironment env;
    const mpi::MPIEnvironment own { env.duplicate() };
    const int me { env.rank() };
    const int n { env.sizeRank() };
    const WaitPolicy policy { 30.0, TimeoutAction::Error };
    // no barrier between the calls: a rank that leaves early asks again while others still
    // listen; each call's tags (from the library's allocator) keep the calls apart
    for (int round { 0 }; round < 40; ++round)
    {
        std::vector<SparseMessage> out;
        for (int to { 0 }; to < n; ++to)
        {
            if (asks(me, to, round))
            {
                out.push_back(SparseMessage { to, question(me, to, round) });
            }
        }
        int answered { 0 };
        const AnsweredExchange result { answeredExchange(
            own.comm(),
            out,
            2,
            [&](const SparseMessage& q, std::span<std::int64_t> answer)
            {
                ++answered;
                answer[0] = 100000 * me +
                            3 * std::accumulate(q.data.begin(), q.data.end(), std::int64_t { 0 }) +
                            1;
                answer[1] = -static_cast<std::int64_t>(q.data.size()) - q.rank;
            },
            [&](std::span<const std::int64_t> answers)
            {
                AgreementBid bid { ownBid(me, round) };
                for (std::size_t k { 0 }; k < answers.size(); k += 2)
                {
                    bid[2] += static_cast<std::uint64_t>(answers[k]);
                }
                return bid;
            },
            policy,
            "test"
        ) };
        CAPTURE(me, n, round);
        // the questions that reached this rank: from the formula, ordered by asker
        std::vector<int> askers;
        for (int from { 0 }; from < n; ++from)
        {
            if (asks(from, me, round))
            {
                askers.push_back(from);
            }
        }
        REQUIRE(answered == static_cast<int>(askers.size()));
        REQUIRE(result.questions.size() == askers.size());
        for (std::size_t m { 0 }; m < askers.size(); ++m)
        {
            REQUIRE(result.questions[m].rank == askers[m]);
            REQUIRE(result.questions[m].data == question(askers[m], me, round));
        }
        // the answers to this rank's questions, in their order, two values each
        REQUIRE(result.answers.size() == 2 * out.size());
        for (std::size_t k { 0 }; k < out.size(); ++k)
        {
            REQUIRE(result.answers[2 * k] == expectedAnswer(me, out[k].rank, round));
            REQUIRE(
                result.answers[2 * k + 1] ==
                -static_cast<std::int64_t>(question(me, out[k].rank, round).size()) - me
            );
        }
        // the maxima over every rank's bid
        AgreementBid expected { 0, 0, 0 };
        for (int r { 0 }; r < n; ++r)
        {
            const AgreementBid bid { ownBid(r, round) };
            expected[0] = std::max(expected[0], bid[0]);
            expected[1] = std::max(expected[1], bid[1]);
            expected[2] = std::max(expected[2], answerSum(r, round, n));
        }
        REQUIRE(result.agreed == expected);
    }
}

TEST_CASE("answeredExchange: a rank that never enters is an Error naming call site, tag, what")
{
    const mpi::MPIEnvironment env;
    if (env.sizeRank() < 2)
    {
        return; // needs a rank that stays away
    }
    // the others ask the late rank (they wait for its answer), or ask nobody (they wait in the
    // agreement for a round that the late rank's absence holds back)
    const bool askLate { GENERATE(true, false) };
    const mpi::MPIEnvironment own { env.duplicate() };
    // the private duplicate is made while every rank is here (its first use is collective)
    static_cast<void>(mpi::detail::privateComm(own.comm(), std::source_location::current()));
    const int late { env.sizeRank() - 1 };
    if (env.rank() != late)
    {
        std::vector<SparseMessage> out;
        if (askLate)
        {
            out.push_back({ late, { 7, 8 } });
        }
        const WaitPolicy policy { 0.2, TimeoutAction::Error };
        const std::source_location site { std::source_location::current() };
        try
        {
            static_cast<void>(answeredExchange(
                own.comm(),
                std::move(out), // the exchange keeps it while its send may be in flight
                1,
                [](const SparseMessage&, std::span<std::int64_t>) {},
                [](std::span<const std::int64_t>) { return AgreementBid {}; },
                policy,
                "lonely",
                site
            ));
            FAIL("no fieldsync::Error from an exchange the late rank never entered");
        }
        catch (const Error& error)
        {
            const std::string what { error.what() };
            INFO(what);
            CHECK(what.find("answered exchange 'lonely (tag ") != std::string::npos);
            CHECK(what.find(toString(site)) != std::string::npos);
            CHECK(error.where().line() == site.line());
            if (askLate)
            {
                CHECK(
                    what.find("the answers of rank(s) " + std::to_string(late)) != std::string::npos
                );
            }
            else
            {
                CHECK(what.find("of its agreement, from rank ") != std::string::npos);
            }
        }
    }
    // the late rank never enters: the others' exchanges were abandoned (their receives
    // cancelled, their buffers kept) and the duplicate is used for nothing else
    MPI_Barrier(env.comm());
}
