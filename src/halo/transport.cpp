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

} // namespace fieldsync::halo
