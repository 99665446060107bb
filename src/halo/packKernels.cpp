// SPDX-License-Identifier: MIT
// The host copy per run of the pack and unpack by runs (fieldsync/halo/detail/runKernels.hpp):
// the field's cells and the buffer as bytes, so one compiled loop serves every value type.
#include "fieldsync/halo/detail/runKernels.hpp"

#include "copyBytes.hpp"

namespace fieldsync::halo
{

void copyRuns(
    bool toBuffer,
    std::byte* field,
    std::byte* buffer,
    const LocalIndex* first,
    const std::size_t* at,
    std::size_t runBegin,
    std::size_t runEnd,
    std::size_t cellBytes
) noexcept
{
    // the pointers are restrict: the copies' stores could otherwise alias them, which the loop
    // would then read again after every run
    std::byte* __restrict const cells = field;
    std::byte* __restrict const values = buffer;
    // the runs lie scattered over the field: fetch the field's line of the run `ahead` runs on
    // while this one is copied, so that the misses of several runs overlap
    constexpr std::size_t ahead { 8 };
    for (std::size_t r = runBegin; r < runEnd; ++r)
    {
        const std::size_t next = r + ahead < runEnd ? r + ahead : r;
        prefetchLine(cells + static_cast<std::size_t>(first[next]) * cellBytes);
        std::byte* const run = cells + static_cast<std::size_t>(first[r]) * cellBytes;
        std::byte* const packed = values + at[r] * cellBytes;
        const std::size_t bytes = (at[r + 1] - at[r]) * cellBytes;
        if (toBuffer)
        {
            copyBytes(packed, run, bytes);
        }
        else
        {
            copyBytes(run, packed, bytes);
        }
    }
}

} // namespace fieldsync::halo
