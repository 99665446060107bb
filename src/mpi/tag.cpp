// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/tag.hpp"

#include "fieldsync/core/error.hpp"

namespace fieldsync::mpi
{

int tagFromHash(std::uint32_t hash, MPI_Comm comm)
{
    int* upper { nullptr };
    int flag { 0 };
    FIELDSYNC_MPI(MPI_Comm_get_attr(comm, MPI_TAG_UB, &upper, &flag));
    const int tagUpperBound = (flag != 0 && upper != nullptr) ? *upper : 32767;
    return static_cast<int>(hash % static_cast<std::uint32_t>(tagUpperBound));
}

} // namespace fieldsync::mpi
