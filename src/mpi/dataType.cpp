// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/dataType.hpp"

#include "fieldsync/core/error.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace fieldsync::mpi::detail
{

namespace
{
using TypeCache = std::map<std::pair<MPI_Datatype, int>, MPI_Datatype>;

TypeCache& cache()
{
    static TypeCache instance;
    return instance;
}

std::mutex& cacheMutex()
{
    static std::mutex instance;
    return instance;
}

// Called by MPI_Finalize (attributes on MPI_COMM_SELF are deleted first thing): free the types.
int freeCachedTypes(MPI_Comm, int, void*, void*)
{
    const std::lock_guard lock(cacheMutex());
    for (auto& entry : cache())
    {
        MPI_Type_free(&entry.second);
    }
    cache().clear();
    return MPI_SUCCESS;
}
} // namespace

MPI_Datatype contiguousType(MPI_Datatype element, int count)
{
    const std::lock_guard lock(cacheMutex());
    auto& types = cache();
    if (types.empty())
    {
        int keyval { MPI_KEYVAL_INVALID };
        FIELDSYNC_MPI(
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, freeCachedTypes, &keyval, nullptr)
        );
        FIELDSYNC_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr));
        FIELDSYNC_MPI(MPI_Comm_free_keyval(&keyval));
    }
    const auto key = std::make_pair(element, count);
    const auto found = types.find(key);
    if (found != types.end())
    {
        return found->second;
    }
    MPI_Datatype created { MPI_DATATYPE_NULL };
    FIELDSYNC_MPI(MPI_Type_contiguous(count, element, &created));
    FIELDSYNC_MPI(MPI_Type_commit(&created));
    types.emplace(key, created);
    return created;
}

} // namespace fieldsync::mpi::detail
