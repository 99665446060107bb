// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/tag.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/detail/tagWindow.hpp"

namespace fieldsync::mpi
{

int tagFromHash(std::uint32_t hash, MPI_Comm comm)
{
    int* upper { nullptr };
    int flag { 0 };
    FIELDSYNC_MPI(MPI_Comm_get_attr(comm, MPI_TAG_UB, &upper, &flag));
    const int tagUpperBound =
        (flag != 0 && upper != nullptr) ? *upper : detail::TagWindow::leastUpperBound;
    const int first { detail::TagWindow::hashedFirst(tagUpperBound) };
    const auto span = static_cast<std::uint32_t>(tagUpperBound - first + 1);
    return first + static_cast<int>(hash % span);
}

} // namespace fieldsync::mpi
