// SPDX-License-Identifier: MIT
// The benchmarks' one statistic: the median of repeated timings.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace fieldsync_bench
{

/** @brief The median of @p v (the upper middle of an even count); 0 for no values. */
inline double median(std::vector<double> v)
{
    if (v.empty())
    {
        return 0.0;
    }
    const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), middle, v.end());
    return *middle;
}

} // namespace fieldsync_bench
