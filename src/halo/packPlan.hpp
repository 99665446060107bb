// SPDX-License-Identifier: MIT
// Internal: the pack strategy of a Communicator, the one file to edit to change it
// (doc/architecture.md, "Changing the pack strategy"): how each neighbour's list of each
// direction travels (in place, by runs, by per-cell indices) and why.
#pragma once

#include "engineNames.hpp"

#include "fieldsync/halo/rankSimplexCommMap.hpp"

#include <cstddef>
#include <vector>

namespace fieldsync::halo
{

/** @brief How one neighbour's list of one direction of an exchange travels. */
enum class PackForm : unsigned char
{
    InPlace, /**< MPI sends from (receives into) the field: a contiguous run of cells */
    Runs,    /**< packed run by run (a copy or a loop per run, halo::packRuns) */
    Indices  /**< gathered cell by cell through the index list (halo::pack) */
};

/** @brief Why a form is not open to an exchange (Allowed: it is). */
enum class PackWhy : unsigned char
{
    Allowed,       /**< nothing rules it out */
    SwitchedOff,   /**< ExchangeOptions::inPlace false */
    SeveralFields, /**< several fields share each neighbour's message */
    Staged,        /**< the messages go through a host staging copy */
    Layout,        /**< a run of cells is not one stretch of memory (FieldShape::rowsContiguous) */
    Neighbourhood, /**< the neighbourhood collective sends from one buffer */
    Reverse,       /**< a reverse exchange unpacks (combines) into the cells it receives */
    NotHost        /**< the kernels are not synchronous on the host: the gather is faster there */
};

/** @brief A short text of @p why, for messages and logs. */
const char* toString(PackWhy why) noexcept;

/** @brief What the fields of one exchange add to the plan (PackPlan::choose). */
struct PackFields
{
    std::size_t count { 1 };       /**< fields exchanged together */
    bool rowsContiguous { true };  /**< the first field's cells are rows (FieldShape) */
    bool synchronousHost { true }; /**< the kernels run synchronously on the host (Fields) */
    bool staged { false };         /**< the buffer stages through the host (claim) */
    bool neighbourhood { false };  /**< the back end is a neighbourhood collective */
    bool inPlaceOn { true };       /**< ExchangeOptions::inPlace */
    bool reverse { false };        /**< a reverse exchange */
};

/** @brief The plan completed for one exchange: which forms are open, and why not. */
struct PackChoice
{
    PackWhy sendInPlace { PackWhy::Allowed };    /**< contiguous sends go from the field */
    PackWhy receiveInPlace { PackWhy::Allowed }; /**< contiguous receives land in the field */
    PackWhy runs { PackWhy::Allowed };           /**< lists of long runs are packed by runs */

    /** @brief Whether lists of long runs are packed by runs. */
    [[nodiscard]] bool byRuns() const noexcept { return runs == PackWhy::Allowed; }
    /** @brief Whether contiguous lists of the @p sending half go in place. */
    [[nodiscard]] bool inPlace(bool sending) const noexcept
    {
        return (sending ? sendInPlace : receiveInPlace) == PackWhy::Allowed;
    }
};

/**
 * @brief The pack strategy of a Pattern: what depends on the maps alone, found once at
 * construction (each neighbour list's runs, whether it is one contiguous run, whether its runs
 * are long enough to pack by runs), and choose(), the one function that completes it for an
 * exchange with what depends on the fields (count, layout, memory and execution space, staging,
 * back end, direction). The steps of an exchange ask it; nothing else decides a form.
 */
class PackPlan
{
public:
    /** @brief Mean run length (cells) from which a list is packed by runs (measured:
     * doc/notes/performance.md, pack_bench). */
    static constexpr double runsFrom { 4.0 };

    /** @brief What the plan knows of one map (the send or the receive map). */
    struct Side
    {
        IndexRuns runs;                        /**< the runs of each neighbour's list */
        std::vector<unsigned char> contiguous; /**< list k is one run, not this rank's own */
        std::vector<unsigned char> longRuns;   /**< list k's mean run is at least runsFrom */
        std::size_t nonEmpty { 0 };            /**< lists with a cell */
        std::size_t contiguousCount { 0 };     /**< lists contiguous[k] */
        bool anyLongRuns { false };            /**< some list has longRuns */
    };

    /** @brief The plan of @p sendMap and @p receiveMap, seen from rank @p me. */
    PackPlan(const RankSimplexCommMap& sendMap, const RankSimplexCommMap& receiveMap, int me);

    /** @brief Completes the plan for one exchange of @p fields (the only per-exchange decision). */
    [[nodiscard]] static PackChoice choose(const PackFields& fields) noexcept;

    /** @brief The side a @p reverse exchange sends from (the receive map's for a reverse one). */
    [[nodiscard]] const Side& from(bool reverse) const noexcept
    {
        return reverse ? receive_ : send_;
    }
    /** @brief The side a @p reverse exchange receives into. */
    [[nodiscard]] const Side& to(bool reverse) const noexcept { return reverse ? send_ : receive_; }
    /** @brief The side of the send map. */
    [[nodiscard]] const Side& send() const noexcept { return send_; }
    /** @brief The side of the receive map. */
    [[nodiscard]] const Side& receive() const noexcept { return receive_; }

    /** @brief How list @p k of @p side travels under @p choice in its @p sending half. */
    [[nodiscard]] static PackForm
    form(const Side& side, std::size_t k, const PackChoice& choice, bool sending) noexcept
    {
        if (choice.inPlace(sending) && side.contiguous[k] != 0)
        {
            return PackForm::InPlace;
        }
        return choice.byRuns() && side.longRuns[k] != 0 ? PackForm::Runs : PackForm::Indices;
    }

    /** @brief Whether some non-empty list of @p side goes through the buffer under @p choice. */
    [[nodiscard]] static bool
    anyThroughBuffer(const Side& side, const PackChoice& choice, bool sending) noexcept
    {
        return side.nonEmpty > (choice.inPlace(sending) ? side.contiguousCount : 0);
    }

    /**
     * @brief Calls @p byRuns(k0, k1) or @p gather(k0, k1) for each range [k0, k1) of the
     * neighbours of @p map that go through the buffer in one form under @p choice, as long as
     * possible (one kernel for the range) unless @p perNeighbour; lists in place split ranges,
     * empty lists join either.
     */
    template<typename ByRuns, typename Gather>
    static void forEachRange(
        const Side& side,
        const RankSimplexCommMap& map,
        const PackChoice& choice,
        bool sending,
        bool perNeighbour,
        const ByRuns& byRuns,
        const Gather& gather
    )
    {
        const std::size_t n = map.neighbourCount();
        const auto empty = [&](std::size_t k)
        {
            return map.offsets()[k] == map.offsets()[k + 1];
        };
        std::size_t k { 0 };
        while (k < n)
        {
            const PackForm first = form(side, k, choice, sending);
            if (first == PackForm::InPlace || empty(k))
            {
                ++k;
                continue;
            }
            std::size_t end { k + 1 };
            while (!perNeighbour && end < n &&
                   (empty(end) || form(side, end, choice, sending) == first))
            {
                ++end;
            }
            if (first == PackForm::Runs)
            {
                byRuns(k, end);
            }
            else
            {
                gather(k, end);
            }
            k = end;
        }
    }

private:
    Side send_;    /**< of the send map */
    Side receive_; /**< of the receive map */
};

} // namespace fieldsync::halo
