// SPDX-License-Identifier: MIT
// The answered sparse exchange: questions, answers, then one dissemination reduction that tells
// every rank that every question was answered and what the ranks bid.
#include "fieldsync/mpi/answeredExchange.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/faults.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>

namespace fieldsync::mpi
{

namespace
{
/** @brief The caller's answerer. */
using Answerer = std::function<void(const SparseMessage&, std::span<std::int64_t>)>;

/** @brief The most rounds of the agreement (ceil(log2 P) for P up to 2^31). */
constexpr std::size_t maxRounds { 32 };

/** @brief One rank's side of an answered exchange in progress. */
class AnsweringExchange
{
public:
    /** @brief An exchange on @p comm with tags @p tag .. @p tag + 2, for errors at @p where. */
    AnsweringExchange(
        MPI_Comm comm,
        int tag,
        std::size_t width,
        const Answerer& answer,
        const std::function<AgreementBid(std::span<const std::int64_t>)>& bid,
        const std::source_location& where
    )
        : comm_(comm), tag_(tag), width_(width), answer_(answer), bid_(bid), where_(where),
          scratch_(width)
    {
        FIELDSYNC_MPI_AT(MPI_Comm_rank(comm, &self_), where);
        FIELDSYNC_MPI_AT(MPI_Comm_size(comm, &size_), where);
        hearing_.fill(MPI_REQUEST_NULL);
        while (rounds_ < maxRounds && (std::int64_t { 1 } << rounds_) < size_)
        {
            ++rounds_;
        }
    }

    AnsweringExchange(const AnsweringExchange&) = delete;
    AnsweringExchange& operator=(const AnsweringExchange&) = delete;

    /** @brief Posts a receive for each answer, then sends each question (kept here until the
     * exchange ends: an abandoned exchange's sends may still read them); answers its own. */
    void ask(std::vector<SparseMessage> questionsGiven, const std::string& what)
    {
        questions_ = std::move(questionsGiven);
        const std::vector<SparseMessage>& questions { questions_ };
        // every size checked before anything is posted: an Error here leaves nothing in flight
        for (const SparseMessage& question : questions)
        {
            FIELDSYNC_CHECK_AT(
                question.data.size() * sizeof(std::int64_t) < static_cast<std::size_t>(INT_MAX),
                what + ": question of " + std::to_string(question.data.size()) +
                    " values to rank " + std::to_string(question.rank) + " is too large",
                where_
            );
        }
        if (faultHappens(&fieldsync::detail::FaultSettings::delay))
        {
            faultDelay(); // fault injection: a late asker
        }
        offsets_.assign(questions.size() + 1, 0);
        for (std::size_t k { 0 }; k < questions.size(); ++k)
        {
            offsets_[k + 1] = offsets_[k] + answerSize(questions[k].data.size());
        }
        answers_.assign(offsets_.back(), 0);
        answerReceives_.assign(questions.size(), MPI_REQUEST_NULL);
        sends_.reserve(2 * questions.size() + 2);
        for (std::size_t k { 0 }; k < questions.size(); ++k)
        {
            const SparseMessage& question { questions[k] };
            if (question.rank == self_)
            {
                answer_(question, answerOf(k));
                asked_.push_back(question);
                continue;
            }
            FIELDSYNC_MPI_AT(
                MPI_Irecv(
                    answers_.data() + offsets_[k],
                    static_cast<int>(offsets_[k + 1] - offsets_[k]),
                    MPI_INT64_T,
                    question.rank,
                    tag_ + 1,
                    comm_,
                    &answerReceives_[k]
                ),
                where_
            );
            sends_.push_back(MPI_REQUEST_NULL);
            FIELDSYNC_MPI_AT(
                MPI_Isend(
                    question.data.data(),
                    static_cast<int>(question.data.size()),
                    MPI_INT64_T,
                    question.rank,
                    tag_,
                    comm_,
                    &sends_.back()
                ),
                where_
            );
        }
    }

    /**
     * @brief One poll: answers every question that has arrived, enters the agreement once the
     * own questions are answered, advances it, and returns true when it is over.
     */
    bool step()
    {
        if (agreeing_ && faultHappens(&fieldsync::detail::FaultSettings::delay))
        {
            faultDelay(); // fault injection: a late poll while the agreement is under way
        }
        while (answerArrived())
        {
        }
        if (!agreeing_)
        {
            int done { 0 };
            std::vector<MPI_Status> statuses(answerReceives_.size());
            FIELDSYNC_MPI_AT(
                MPI_Testall(
                    static_cast<int>(answerReceives_.size()),
                    answerReceives_.data(),
                    &done,
                    statuses.data()
                ),
                where_
            );
            if (done == 0)
            {
                return false;
            }
            for (std::size_t k { 0 }; k < statuses.size(); ++k)
            {
                if (questions_[k].rank != self_)
                {
                    detail::checkReceived(
                        statuses[k], MPI_INT64_T, answerOf(k).size(), "answer", where_
                    );
                }
            }
            enterAgreement();
        }
        return advanceAgreement();
    }

    /** @brief What the exchange still waits for, for a time-out report. */
    [[nodiscard]] std::string describe() const
    {
        if (agreeing_)
        {
            return "round " + std::to_string(round_ + 1) + " of " + std::to_string(rounds_) +
                   " of its agreement, from rank " + std::to_string(partner(round_, -1)) +
                   " (its own questions were all answered); a rank may not have entered this "
                   "exchange";
        }
        std::string ranks;
        for (const MPI_Request& request : answerReceives_)
        {
            int complete { 0 };
            MPI_Request_get_status(request, &complete, MPI_STATUS_IGNORE);
            if (complete == 0)
            {
                const auto k = static_cast<std::size_t>(&request - answerReceives_.data());
                ranks.append(ranks.empty() ? "" : ", ").append(std::to_string(questions_[k].rank));
            }
        }
        return "the answers of rank(s) " + ranks + "; a rank may not have entered this exchange";
    }

    /**
     * @brief After a time-out error: cancels the receives still posted, so that nothing that
     * arrives later is written anywhere, and frees the sends still in flight (their buffers are
     * this object's, which answeredExchange then keeps to the end of the process).
     */
    void abandon() noexcept
    {
        const auto cancel = [](MPI_Request& request)
        {
            if (request != MPI_REQUEST_NULL)
            {
                MPI_Cancel(&request);
                MPI_Wait(&request, MPI_STATUS_IGNORE);
            }
        };
        std::for_each(answerReceives_.begin(), answerReceives_.end(), cancel);
        std::for_each(
            hearing_.begin(), hearing_.begin() + static_cast<std::ptrdiff_t>(rounds_), cancel
        );
        for (MPI_Request& request : sends_)
        {
            if (request != MPI_REQUEST_NULL)
            {
                MPI_Request_free(&request);
            }
        }
    }

    /** @brief The result: the questions by asker, the answers, the agreed bid. */
    AnsweredExchange take()
    {
        for (SparseMessage& question : asked_)
        {
            const std::size_t answered { width_ != 0 ? width_ : question.data.size() / 2 };
            question.data.resize(question.data.size() - (question.rank == self_ ? 0 : answered));
        }
        std::sort(
            asked_.begin(),
            asked_.end(),
            [](const SparseMessage& a, const SparseMessage& b) { return a.rank < b.rank; }
        );
        return { std::move(asked_), std::move(answers_), agreed_ };
    }

private:
    /** @brief The values of the answer to a question of @p values values. */
    [[nodiscard]] std::size_t answerSize(std::size_t values) const noexcept
    {
        return width_ != 0 ? width_ : values;
    }

    /** @brief Where the answer to the own question @p k lands. */
    [[nodiscard]] std::span<std::int64_t> answerOf(std::size_t k)
    {
        return std::span(answers_).subspan(offsets_[k], offsets_[k + 1] - offsets_[k]);
    }

    /** @brief The rank this one sends to (@p direction 1) or hears from (-1) in @p round. */
    [[nodiscard]] int partner(std::size_t round, int direction) const noexcept
    {
        const std::int64_t distance { std::int64_t { 1 } << round };
        return static_cast<int>(((self_ + direction * distance) % size_ + size_) % size_);
    }

    /** @brief Receives and answers one question if one has arrived. */
    bool answerArrived()
    {
        int arrived { 0 };
        MPI_Status status;
        FIELDSYNC_MPI_AT(MPI_Iprobe(MPI_ANY_SOURCE, tag_, comm_, &arrived, &status), where_);
        if (arrived == 0)
        {
            return false;
        }
        int count { 0 };
        FIELDSYNC_MPI_AT(MPI_Get_count(&status, MPI_INT64_T, &count), where_);
        SparseMessage question;
        question.rank = status.MPI_SOURCE;
        // room for the answer after the payload: it travels from there (the buffer stays put
        // until take() cuts it off again), so answering allocates nothing of its own
        const std::size_t size { answerSize(static_cast<std::size_t>(count)) };
        question.data.reserve(static_cast<std::size_t>(count) + size);
        question.data.resize(static_cast<std::size_t>(count));
        scratch_.resize(size);
        FIELDSYNC_MPI_AT(
            MPI_Recv(
                question.data.data(),
                count,
                MPI_INT64_T,
                status.MPI_SOURCE,
                tag_,
                comm_,
                MPI_STATUS_IGNORE
            ),
            where_
        );
        std::fill(scratch_.begin(), scratch_.end(), 0);
        answer_(question, scratch_);
        // within the capacity: the buffer stays
        question.data.insert(question.data.end(), scratch_.begin(), scratch_.end());
        if (faultHappens(&fieldsync::detail::FaultSettings::delay))
        {
            faultDelay(); // fault injection: a late answer
        }
        sends_.push_back(MPI_REQUEST_NULL);
        FIELDSYNC_MPI_AT(
            MPI_Isend(
                question.data.data() + count,
                static_cast<int>(size),
                MPI_INT64_T,
                question.rank,
                tag_ + 1,
                comm_,
                &sends_.back()
            ),
            where_
        );
        asked_.push_back(std::move(question));
        return true;
    }

    /** @brief Takes this rank's bid and sends it in the first round (none on one rank). */
    void enterAgreement()
    {
        agreeing_ = true;
        agreed_ = bid_(answers_);
        for (std::size_t round { 0 }; round < rounds_; ++round)
        {
            FIELDSYNC_MPI_AT(
                MPI_Irecv(
                    heard_[round].data(),
                    static_cast<int>(agreed_.size()),
                    MPI_UINT64_T,
                    partner(round, -1),
                    tag_ + 2,
                    comm_,
                    &hearing_[round]
                ),
                where_
            );
        }
        tell();
    }

    /** @brief Sends the maxima known so far in the current round. */
    void tell()
    {
        if (round_ >= rounds_)
        {
            return;
        }
        told_[round_] = agreed_;
        sends_.push_back(MPI_REQUEST_NULL);
        FIELDSYNC_MPI_AT(
            MPI_Isend(
                told_[round_].data(),
                static_cast<int>(agreed_.size()),
                MPI_UINT64_T,
                partner(round_, 1),
                tag_ + 2,
                comm_,
                &sends_.back()
            ),
            where_
        );
    }

    /** @brief Takes every round that has arrived; true once the last one has. */
    bool advanceAgreement()
    {
        while (round_ < rounds_)
        {
            int done { 0 };
            MPI_Status status;
            FIELDSYNC_MPI_AT(MPI_Test(&hearing_[round_], &done, &status), where_);
            if (done == 0)
            {
                return false;
            }
            detail::checkReceived(status, MPI_UINT64_T, agreed_.size(), "agreement", where_);
            for (std::size_t k { 0 }; k < agreed_.size(); ++k)
            {
                agreed_[k] = std::max(agreed_[k], heard_[round_][k]);
            }
            ++round_;
            tell();
        }
        // every rank entered the agreement: every send of this rank was received
        FIELDSYNC_MPI_AT(
            MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE), where_
        );
        return true;
    }

    MPI_Comm comm_;          /**< the communicator */
    int tag_;                /**< the questions' tag */
    std::size_t width_;      /**< values per answer */
    const Answerer& answer_; /**< the answerer */
    const std::function<AgreementBid(std::span<const std::int64_t>)>& bid_; /**< the bidder */
    std::source_location where_;                    /**< the caller's call site, for errors */
    int self_ { 0 };                                /**< this rank in comm_ */
    int size_ { 1 };                                /**< ranks of comm_ */
    std::size_t rounds_ { 0 };                      /**< rounds of the agreement */
    std::vector<SparseMessage> questions_;          /**< the own questions (the sends' buffers) */
    std::vector<std::int64_t> scratch_;             /**< one answer, as it is made */
    std::vector<std::int64_t> answers_;             /**< the answers to the own questions */
    std::vector<std::size_t> offsets_;              /**< where each one starts in answers_ */
    std::vector<MPI_Request> answerReceives_;       /**< their receives */
    std::vector<MPI_Request> sends_;                /**< questions, answers, agreement rounds */
    std::vector<SparseMessage> asked_;              /**< the questions answered here */
    bool agreeing_ { false };                       /**< whether the own questions are answered */
    std::size_t round_ { 0 };                       /**< the agreement's round under way */
    AgreementBid agreed_ {};                        /**< the maxima known so far */
    std::array<AgreementBid, maxRounds> heard_ {};  /**< each round's incoming bid */
    std::array<AgreementBid, maxRounds> told_ {};   /**< each round's outgoing bid */
    std::array<MPI_Request, maxRounds> hearing_ {}; /**< each round's receive */
};

/**
 * @brief Keeps the exchanges that ended in a time-out error to the end of the process: their
 * sends may still read their buffers.
 */
void keepAbandoned(std::unique_ptr<AnsweringExchange> exchange)
{
    static std::mutex lock;
    static std::vector<std::unique_ptr<AnsweringExchange>> kept;
    const std::scoped_lock guard { lock };
    kept.push_back(std::move(exchange));
}
} // namespace

AnsweredExchange answeredExchange(
    MPI_Comm userComm,
    std::vector<SparseMessage> questions,
    std::size_t answerWidth,
    const std::function<void(const SparseMessage& question, std::span<std::int64_t> answer)>&
        answer,
    const std::function<AgreementBid(std::span<const std::int64_t> answers)>& bid,
    const WaitPolicy& policy,
    const std::string& what,
    std::source_location where
)
{
    // on the heap: requests in flight point into it, and an abandoned one must stay put
    FIELDSYNC_CHECK_AT(
        answerWidth <= 1024,
        what + ": answers of " + std::to_string(answerWidth) + " values (0 to 1024)",
        where
    );
    const MPI_Comm comm { detail::privateComm(userComm, where) };
    const int tag { detail::takeTags(comm, 3, where) };
    auto exchange = std::make_unique<AnsweringExchange>(comm, tag, answerWidth, answer, bid, where);
    exchange->ask(std::move(questions), what);
    // most exchanges are over after a few polls: poll first, the general wait only after
    for (int poll { 0 }; poll < 64; ++poll)
    {
        if (exchange->step())
        {
            return exchange->take();
        }
    }
    try
    {
        mpi::waitWithTimeout(
            [&exchange] { return exchange->step(); },
            [&exchange] { return exchange->describe(); },
            policy,
            "answered exchange",
            what + " (tag " + std::to_string(tag) + ")",
            where
        );
    }
    catch (...)
    {
        exchange->abandon();
        keepAbandoned(std::move(exchange));
        throw;
    }
    return exchange->take();
}

} // namespace fieldsync::mpi
