// SPDX-License-Identifier: MIT
#pragma once

#include "fieldsync/core/callerValue.hpp"
#include "fieldsync/mpi/mpiEnvironment.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"
#include "fieldsync/partition/cellGraph.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstring>
#include <source_location>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace fieldsync::partition
{

/**
 * @brief A field Migration::migrate() can move: a Kokkos::View of rank 1 or 2 (one row per
 * cell) of trivially copyable values.
 */
template<typename View>
concept MigratableField = Kokkos::is_view<View>::value &&(View::rank == 1 || View::rank == 2) &&
                          std::is_trivially_copyable_v<typename View::non_const_value_type>;

/**
 * @brief Moves owned cells to new owner ranks: the cells' graph rows first (at construction),
 * then the owned values of any number of fields (migrate()), as a load balancer needs after it
 * has chosen a new owner for each cell.
 *
 * Construction is collective: each rank sends every owned cell (global id and neighbour ids)
 * to its new owner with the NBX sparse exchange (mpi::sparseExchange()), so no rank learns
 * anything about ranks it does not exchange cells with. The new owned cells are numbered in
 * ascending global id. The plan (who sends which rows to whom, where each arriving row lands)
 * is kept, and each migrate() moves the rows of its fields point to point along it, one
 * message per peer for all the fields together; cells that stay are copied locally.
 *
 * Fields are Kokkos views of rank 1 (one value per cell) or rank 2 (extent(1) components per
 * cell) in any memory space and layout, of any trivially copyable value type. Only the owned
 * rows (0 .. nOldOwned()-1) move; ghost rows of the new views are zero until the next halo
 * exchange on the new layout.
 */
class Migration
{
public:
    /**
     * @brief Collective over @p env: sends each row of @p owned to @p newOwners (parallel to
     * the rows) and keeps the plan.
     * @throws Error on every rank when some rank passes a newOwners of the wrong length or an
     * owner outside [0, sizeRank()) (that rank names the cell and the owner).
     */
    Migration(
        mpi::MPIEnvironment env,
        const CellGraph& owned,
        std::span<const int> newOwners,
        std::source_location where = std::source_location::current()
    );

    /** @brief The cells this rank owns after the migration, ascending id, with neighbours. */
    [[nodiscard]] const CellGraph& cells() const noexcept { return cells_; }

    /** @brief Owned cells before the migration. */
    [[nodiscard]] std::size_t nOldOwned() const noexcept { return nOldOwned_; }

    /** @brief Owned cells after the migration (cells().nCells()). */
    [[nodiscard]] std::size_t nNewOwned() const noexcept { return cells_.nCells(); }

    /** @brief Cells this rank sends to other ranks (the cells that leave it). */
    [[nodiscard]] std::size_t nSent() const noexcept { return nSent_; }

    /**
     * @brief Collective: replaces each of @p fields (views over the old layout, at least
     * nOldOwned() rows) with a view of @p newExtent rows (>= nNewOwned(): the new layout's
     * nLocal()) whose owned rows hold the values of the same cells. One message per peer
     * carries all the fields. @p newExtent carries the caller's std::source_location (a
     * plain number converts, see detail::CallerValue).
     * @throws Error on every rank, before any message moves, when some rank passes a field
     * with too few rows or a @p newExtent below nNewOwned() (that rank names the field and the
     * sizes, the others name the failing rank; all at the caller's line). The Migration stays
     * usable.
     */
    template<typename... Views>
    void migrate(fieldsync::detail::CallerValue<std::size_t> newExtent, Views&... fields) const
    {
        static_assert(
            (MigratableField<Views> && ...),
            "fieldsync::partition::Migration::migrate: each field must be a Kokkos::View of rank "
            "1 or 2 (one row per cell) whose value type is trivially copyable (Rebalancer::"
            "rebalance passes its fields here)"
        );
        if constexpr ((MigratableField<Views> && ...)) // no cascade after the message above
        {
            migrateFields(newExtent, fields...);
        }
    }

    /**
     * @brief Collective, the compiled engine under migrate(): rows of @p rowBytes bytes, one
     * per old owned cell in @p oldRows, land in @p newRows (one per new owned cell, ascending
     * id).
     * @throws Error naming the call site when the sizes do not match the plan.
     */
    void moveRows(
        std::span<const std::byte> oldRows,
        std::size_t rowBytes,
        std::span<std::byte> newRows,
        std::source_location where = std::source_location::current()
    ) const;

private:
    /** @brief migrate() once every field is known to be migratable. */
    template<typename... Views>
    void migrateFields(
        const fieldsync::detail::CallerValue<std::size_t>& newExtent, Views&... fields
    ) const
    {
        const std::source_location& where { newExtent.where() };
        agreeOnRows(
            std::vector<std::size_t> { fields.extent(0)... },
            std::vector<std::string> { fields.label()... },
            newExtent.value(),
            where
        );
        const std::size_t rowBytes { (bytesPerRow(fields) + ... + std::size_t { 0 }) };
        std::vector<std::byte> oldRows(nOldOwned_ * rowBytes);
        std::vector<std::byte> newRows(nNewOwned() * rowBytes);
        std::size_t offset { 0 };
        ((packRows(fields, rowBytes, offset, oldRows), offset += bytesPerRow(fields)), ...);
        moveRows(oldRows, rowBytes, newRows, where);
        offset = 0;
        ((fields = unpackRows(fields, newExtent.value(), rowBytes, offset, newRows),
          offset += bytesPerRow(fields)),
         ...);
    }

    /** @brief Step 1 of construction: the send plan and one message per new owner. */
    std::vector<mpi::SparseMessage>
    planSends(const CellGraph& owned, std::span<const int> newOwners);

    /** @brief Step 2: the arriving cells, numbered by ascending id, and the receive plan. */
    void receiveCells(
        const std::vector<mpi::SparseMessage>& incoming, const std::source_location& where
    );

    /** @brief moveRows() step: a receive per other peer into @p received. */
    void postReceives(
        int tag,
        std::size_t rowBytes,
        std::vector<std::vector<std::byte>>& received,
        std::vector<MPI_Request>& requests,
        const std::source_location& where
    ) const;

    /**
     * @brief moveRows() after a failed wait: cancels the receives and keeps every buffer MPI
     * may still use (never freed), so no message lands in freed memory.
     */
    static void keepInFlight(
        std::vector<MPI_Request> requests,
        std::size_t receives,
        std::vector<std::vector<std::byte>> received,
        std::vector<std::vector<std::byte>> sent
    ) noexcept;

    /** @brief moveRows() step: packs and sends; the rows that stay go to @p received. */
    void postSends(
        int tag,
        std::span<const std::byte> oldRows,
        std::size_t rowBytes,
        std::vector<std::vector<std::byte>>& sent,
        std::vector<std::vector<std::byte>>& received,
        std::vector<MPI_Request>& requests,
        const std::source_location& where
    ) const;

    /** @brief Bytes of one cell of @p field (value size times components). */
    template<typename View>
    static std::size_t bytesPerRow(const View& field)
    {
        const std::size_t components { View::rank == 2 ? field.extent(1) : 1 };
        return sizeof(typename View::non_const_value_type) * components;
    }

    /** @brief Copies the owned rows of @p field into @p rows at byte @p offset of each row. */
    template<typename View>
    void packRows(
        const View& field, std::size_t rowBytes, std::size_t offset, std::span<std::byte> rows
    ) const
    {
        const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
        using Value = typename View::non_const_value_type;
        const std::size_t components { bytesPerRow(field) / sizeof(Value) };
        for (std::size_t i { 0 }; i < nOldOwned_; ++i)
        {
            for (std::size_t c { 0 }; c < components; ++c)
            {
                const Value value { element(host, i, c) };
                std::memcpy(
                    &rows[i * rowBytes + offset + c * sizeof(Value)], &value, sizeof(Value)
                );
            }
        }
    }

    /** @brief A view like @p field with @p extent rows, owned rows read from @p rows. */
    template<typename View>
    View unpackRows(
        const View& field,
        std::size_t extent,
        std::size_t rowBytes,
        std::size_t offset,
        std::span<const std::byte> rows
    ) const
    {
        using Value = typename View::non_const_value_type;
        const std::size_t components { bytesPerRow(field) / sizeof(Value) };
        View result { withRows(field, extent) };
        auto host = Kokkos::create_mirror_view(result);
        Kokkos::deep_copy(host, Value {});
        for (std::size_t i { 0 }; i < nNewOwned(); ++i)
        {
            for (std::size_t c { 0 }; c < components; ++c)
            {
                std::memcpy(
                    &element(host, i, c),
                    &rows[i * rowBytes + offset + c * sizeof(Value)],
                    sizeof(Value)
                );
            }
        }
        Kokkos::deep_copy(result, host);
        return result;
    }

    /** @brief A new view like @p field (label, components) with @p extent rows. */
    template<typename View>
    static View withRows(const View& field, std::size_t extent)
    {
        if constexpr (View::rank_dynamic == 1)
        {
            return View(field.label(), extent);
        }
        else
        {
            return View(field.label(), extent, field.extent(1));
        }
    }

    /** @brief Entry (i, c) of a rank-1 (c = 0) or rank-2 host view. */
    template<typename HostView>
    static auto& element(const HostView& view, std::size_t i, std::size_t c)
    {
        if constexpr (HostView::rank == 1)
        {
            (void)c;
            return view(i);
        }
        else
        {
            return view(i, c);
        }
    }

    /**
     * @brief migrate()'s first step, collective: every rank learns whether some rank's fields
     * (@p rows rows each, named @p labels) or @p newExtent cannot hold its owned rows, and
     * throws at @p where if so (mpi::raiseIfAnyFailed), before any message moves.
     */
    void agreeOnRows(
        const std::vector<std::size_t>& rows,
        const std::vector<std::string>& labels,
        std::size_t newExtent,
        const std::source_location& where
    ) const;

    mpi::MPIEnvironment env_; /**< the library's private duplicate of the caller's communicator */
    std::size_t nOldOwned_ { 0 };                /**< owned cells before */
    std::size_t nSent_ { 0 };                    /**< cells that leave this rank */
    CellGraph cells_;                            /**< owned cells after, ascending id */
    std::vector<int> sendRanks_;                 /**< peers rows go to (ascending, self included) */
    std::vector<std::size_t> sendOffsets_ { 0 }; /**< CSR offsets into sendRows_ */
    std::vector<std::size_t> sendRows_;          /**< old owned rows, grouped by peer */
    std::vector<int> receiveRanks_;              /**< peers rows come from (ascending) */
    std::vector<std::size_t> receiveOffsets_ { 0 }; /**< CSR offsets into receiveRows_ */
    std::vector<std::size_t> receiveRows_;          /**< new owned rows, grouped by peer */
};

} // namespace fieldsync::partition
