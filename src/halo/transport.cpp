// SPDX-License-Identifier: MIT
#include "transport.hpp"

#include "fieldsync/core/logger.hpp"
#include "fieldsync/mpi/wait.hpp"

namespace fieldsync::halo
{

bool completeDropped(
    const std::function<bool()>& test, const char* what, std::string_view name
) noexcept
{
    try
    {
        mpi::waitWithTimeout(
            test,
            [what] { return std::string(what); },
            mpi::WaitPolicy { mpi::WaitPolicy::fromEnvironment().timeoutSeconds,
                              mpi::TimeoutAction::Error },
            "dropped exchange",
            name,
            std::source_location::current()
        );
    }
    catch (const std::exception& e)
    {
        logger().error("{}; its memory is kept (not freed)", e.what());
        return false;
    }
    return true;
}

std::string describeNeighbourhood(
    std::string_view what, std::span<const int> sendRanks, std::span<const int> receiveRanks
)
{
    std::string text(what);
    text.append(" (sends to ranks");
    for (const int r : sendRanks)
    {
        text.append(1, ' ').append(std::to_string(r));
    }
    text.append("; receives from ranks");
    for (const int r : receiveRanks)
    {
        text.append(1, ' ').append(std::to_string(r));
    }
    return text.append(1, ')');
}

} // namespace fieldsync::halo
