// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/mpiEnvironment.hpp"

#include "fieldsync/mpi/detail/collectiveCall.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/logger.hpp"

#include <string>
#include <vector>

namespace fieldsync::mpi
{

struct MPIEnvironment::Owned
{
    MPI_Comm comm { MPI_COMM_NULL };

    explicit Owned(MPI_Comm c) : comm(c) {}

    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;

    ~Owned()
    {
        int finalised { 0 };
        MPI_Finalized(&finalised);
        if (!finalised && comm != MPI_COMM_NULL)
        {
            if (MPI_Comm_free(&comm) != MPI_SUCCESS)
            {
                logger().error("MPIEnvironment: MPI_Comm_free failed");
            }
        }
    }
};

MPIEnvironment::MPIEnvironment(MPI_Comm comm, std::source_location where) : comm_(comm)
{
    detail::requireMpiRunning("MPIEnvironment", where);
    FIELDSYNC_CHECK_AT(
        comm != MPI_COMM_NULL, "MPIEnvironment: communicator is MPI_COMM_NULL", where
    );
    FIELDSYNC_MPI_AT(MPI_Comm_rank(comm_, &rank_), where);
    FIELDSYNC_MPI_AT(MPI_Comm_size(comm_, &size_), where);
}

MPIEnvironment::MPIEnvironment(std::shared_ptr<Owned> owner, std::source_location where)
    : MPIEnvironment(owner->comm, where)
{
    owner_ = std::move(owner);
    FIELDSYNC_MPI_AT(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), where);
    // the library's private duplicate, made while every rank is here (a later first use by a
    // collective that some rank skips would wait in it instead of naming that rank)
    static_cast<void>(detail::privateComm(comm_, where));
}

MPIEnvironment MPIEnvironment::adopt(MPI_Comm comm, std::source_location where)
{
    detail::requireMpiRunning("MPIEnvironment::adopt", where);
    FIELDSYNC_CHECK_AT(
        comm != MPI_COMM_NULL, "MPIEnvironment::adopt: communicator is MPI_COMM_NULL", where
    );
    return MPIEnvironment(std::make_shared<Owned>(comm), where);
}

MPIEnvironment MPIEnvironment::split(int color, int key, std::source_location where) const
{
    detail::requireMpiRunning("MPIEnvironment::split", where);
    FIELDSYNC_CHECK_AT(
        color >= 0,
        "MPIEnvironment::split: color " + std::to_string(color) + " on rank " +
            std::to_string(rank_) + " is negative; every rank must pass a color >= 0",
        where
    );
    agreeOnSetUp(comm_, detail::SetUpCall::Split, where);
    return splitAgreed(color, key, where);
}

MPIEnvironment MPIEnvironment::splitAgreed(int color, int key, std::source_location where) const
{
    MPI_Comm newComm { MPI_COMM_NULL };
    FIELDSYNC_MPI_AT(MPI_Comm_split(comm_, color, key, &newComm), where);
    return MPIEnvironment(std::make_shared<Owned>(newComm), where);
}

MPIEnvironment MPIEnvironment::split(std::string_view name, std::source_location where) const
{
    // Gather every rank's name and use the lowest rank with the same name as the colour, so
    // equal names (and only equal names) share a communicator.
    detail::requireMpiRunning("MPIEnvironment::split", where);
    agreeOnSetUp(comm_, detail::SetUpCall::SplitByName, where);
    const int length = static_cast<int>(name.size());
    std::vector<int> lengths(static_cast<std::size_t>(size_));
    FIELDSYNC_MPI_AT(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm_), where);
    std::vector<int> displacements(static_cast<std::size_t>(size_) + 1, 0);
    for (std::size_t r = 0; r < lengths.size(); ++r)
    {
        displacements[r + 1] = displacements[r] + lengths[r];
    }
    std::string all(static_cast<std::size_t>(displacements.back()), '\0');
    FIELDSYNC_MPI_AT(
        MPI_Allgatherv(
            name.data(),
            length,
            MPI_CHAR,
            all.data(),
            lengths.data(),
            displacements.data(),
            MPI_CHAR,
            comm_
        ),
        where
    );
    int color { rank_ };
    for (int r = 0; r < size_; ++r)
    {
        const auto ur = static_cast<std::size_t>(r);
        const std::string_view other(
            all.data() + displacements[ur], static_cast<std::size_t>(lengths[ur])
        );
        if (other == name)
        {
            color = r;
            break;
        }
    }
    return splitAgreed(color, rank_, where);
}

MPIEnvironment MPIEnvironment::splitShared(std::source_location where) const
{
    detail::requireMpiRunning("MPIEnvironment::splitShared", where);
    agreeOnSetUp(comm_, detail::SetUpCall::SplitShared, where);
    MPI_Comm newComm { MPI_COMM_NULL };
    FIELDSYNC_MPI_AT(
        MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &newComm), where
    );
    return MPIEnvironment(std::make_shared<Owned>(newComm), where);
}

MPIEnvironment MPIEnvironment::duplicate(std::source_location where) const
{
    return duplicate(detail::SetUpCall::Duplicate, where);
}

MPIEnvironment MPIEnvironment::duplicate(detail::SetUpCall as, std::source_location where) const
{
    detail::requireMpiRunning("MPIEnvironment::duplicate", where);
    agreeOnSetUp(comm_, as, where);
    MPI_Comm newComm { MPI_COMM_NULL };
    FIELDSYNC_MPI_AT(MPI_Comm_dup(comm_, &newComm), where);
    return MPIEnvironment(std::make_shared<Owned>(newComm), where);
}

} // namespace fieldsync::mpi
