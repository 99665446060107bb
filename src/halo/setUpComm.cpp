// SPDX-License-Identifier: MIT
#include "setUpComm.hpp"

#include "fieldsync/core/error.hpp"

namespace fieldsync::halo
{

namespace
{
/**
 * @brief Frees the cached duplicate when the communicator it belongs to is freed; the
 * predefined communicators lose their attributes only inside MPI_Finalize, which frees
 * everything itself.
 */
int freeCached(MPI_Comm comm, int /*keyval*/, void* value, void* /*extra*/)
{
    auto* cached = static_cast<MPI_Comm*>(value);
    const bool predefined { comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF };
    const int code { predefined ? MPI_SUCCESS : MPI_Comm_free(cached) };
    delete cached;
    return code;
}

/** @brief The attribute key of the cache, made once per process. */
int cacheKey(const std::source_location& where)
{
    static const int key = [&where]
    {
        int made { MPI_KEYVAL_INVALID };
        FIELDSYNC_MPI_AT(
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, freeCached, &made, nullptr), where
        );
        return made;
    }();
    return key;
}
} // namespace

MPI_Comm setUpComm(MPI_Comm comm, const std::source_location& where)
{
    const int key { cacheKey(where) };
    void* value { nullptr };
    int found { 0 };
    FIELDSYNC_MPI_AT(MPI_Comm_get_attr(comm, key, &value, &found), where);
    if (found != 0)
    {
        return *static_cast<MPI_Comm*>(value);
    }
    auto* cached = new MPI_Comm { MPI_COMM_NULL };
    const int code { MPI_Comm_dup(comm, cached) };
    if (code != MPI_SUCCESS)
    {
        delete cached;
        detail::throwMpiError(code, "MPI_Comm_dup", where);
    }
    MPI_Comm_set_errhandler(*cached, MPI_ERRORS_RETURN);
    FIELDSYNC_MPI_AT(MPI_Comm_set_attr(comm, key, cached), where);
    return *cached;
}

} // namespace fieldsync::halo
