// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/mpi/sparseExchange.hpp"
#include "fieldsync/mpi/wait.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include <mpi.h>

namespace fieldsync::mpi
{

/** @brief A rank's bid in the agreement that closes mpi::answeredExchange(). */
using AgreementBid = std::array<std::uint64_t, 3>;

/** @brief What mpi::answeredExchange() hands back to one rank. */
struct AnsweredExchange
{
    std::vector<SparseMessage> questions; /**< the questions this rank answered, by asker */
    std::vector<std::int64_t> answers;    /**< the answers to its own, in their order, flat */
    AgreementBid agreed {};               /**< the element-wise maximum of every rank's bid */
};

/**
 * @brief Collective sparse exchange in which every question gets an answer, closed by an
 * agreement: the set-up pattern "tell each owner what you need, learn whether it can give it,
 * agree on the outcome" in one collective step.
 *
 * Each rank sends its @p questions (at most one per destination rank; one to itself is
 * answered locally), answers every question that reaches it with @p answer (@p answerWidth
 * values), and
 * once all its own questions are answered enters the agreement with the bid that @p bid makes
 * from those answers. The agreement is a dissemination reduction (the element-wise maximum,
 * ceil(log2 P) rounds of one small message) during which the rank goes on answering. When it
 * ends, every rank has entered it, so every question was answered: no rank learns or stores
 * anything about ranks it does not talk to, and nothing is sized by the communicator. Where NBX
 * (mpi::sparseExchange()) needs its barrier and then a separate collective to agree on what the
 * receivers found, the answers carry what the receivers found to the askers before they enter
 * the one agreement.
 *
 * The loop waits through mpi::waitWithTimeout under @p policy: past its time-out it warns, or
 * throws a fieldsync::Error naming the call site, @p what, its tag and what this rank still waits
 * for (the answers of which ranks, or which round of the agreement). An exchange that ended in
 * that error cannot be resumed: its receives are cancelled, so nothing that arrives later is
 * written anywhere, and its buffers (the questions included) are kept to the end of the process
 * for its sends still in flight; use @p comm for nothing else afterwards.
 *
 * The messages travel on @p comm's private duplicate, with three tags of the library's tag
 * allocator (mpi/detail/privateComm.hpp), so the application's own messages on @p comm, pending
 * or not, never meet them; every answer and agreement round is checked for its size.
 *
 * @param comm the communicator (collective over it)
 * @param questions at most one message per destination rank (taken: kept while in flight)
 * @param answerWidth the values of one answer (1 to 1024), or 0: as many values as the question
 * has (one answer value per question value)
 * @param answer called once per question that reaches this rank (its own included), in arrival
 * order, with the asker's rank and payload; writes the answer (zeroed before). It must not
 * throw.
 * @param bid called once, with the answers to this rank's questions (in their order, flat), before
 * the agreement; returns this rank's bid. It must not throw.
 * @param policy the wait policy
 * @param what a name for reports
 * @param where the caller's call site
 * @return the questions answered here (ordered by asker), the answers to this rank's questions,
 * the agreed maxima
 */
[[nodiscard]] AnsweredExchange answeredExchange(
    MPI_Comm comm,
    std::vector<SparseMessage> questions,
    std::size_t answerWidth,
    const std::function<void(const SparseMessage& question, std::span<std::int64_t> answer)>&
        answer,
    const std::function<AgreementBid(std::span<const std::int64_t> answers)>& bid,
    const WaitPolicy& policy,
    const std::string& what,
    std::source_location where = std::source_location::current()
);

} // namespace fieldsync::mpi
