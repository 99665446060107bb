// SPDX-License-Identifier: MIT
/**
 * @file answeredExchangeTag.hpp
 * @brief Deprecated: mpi::answeredExchange() with a tag of the caller's. Its messages travel on
 * the library's private duplicate of the communicator with tags of the library's allocator now,
 * so the tag is ignored; this overload remains for one minor release.
 */
#pragma once

#include "fieldsync/mpi/answeredExchange.hpp"

namespace fieldsync::mpi
{

/** @brief Deprecated: answeredExchange() without @p tag (which is ignored). */
[[deprecated("the tag is ignored: call answeredExchange(comm, questions, ...) without it"
)]] inline AnsweredExchange
answeredExchange(
    MPI_Comm comm,
    int /*tag*/,
    std::vector<SparseMessage> questions,
    std::size_t answerWidth,
    const std::function<void(const SparseMessage& question, std::span<std::int64_t> answer)>&
        answer,
    const std::function<AgreementBid(std::span<const std::int64_t> answers)>& bid,
    const WaitPolicy& policy,
    const std::string& what,
    std::source_location where = std::source_location::current()
)
{
    return answeredExchange(
        comm, std::move(questions), answerWidth, answer, bid, policy, what, where
    );
}

} // namespace fieldsync::mpi
