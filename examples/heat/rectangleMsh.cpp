// SPDX-License-Identifier: MIT
#include "rectangleMsh.hpp"

#include "fieldsync/core/error.hpp"

#include <cmath>
#include <cstdio>
#include <memory>

namespace fieldsync::heat
{

namespace
{
/** @brief Closes a FILE* on scope exit. */
struct FileCloser
{
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

/** @brief The corners of triangle @p t (0, 1) of a square, as (di, dj) offsets. */
std::array<std::array<int, 2>, 3> corners(std::int64_t i, std::int64_t j, int t)
{
    // the diagonal alternates with (i + j), so the mesh is not a plain structured split
    if ((i + j) % 2 == 0)
    {
        return t == 0 ? std::array<std::array<int, 2>, 3> { { { 0, 0 }, { 1, 0 }, { 1, 1 } } }
                      : std::array<std::array<int, 2>, 3> { { { 0, 0 }, { 1, 1 }, { 0, 1 } } };
    }
    return t == 0 ? std::array<std::array<int, 2>, 3> { { { 0, 0 }, { 1, 0 }, { 0, 1 } } }
                  : std::array<std::array<int, 2>, 3> { { { 1, 0 }, { 1, 1 }, { 0, 1 } } };
}
} // namespace

RectangleMsh::RectangleMsh(int nx, int ny) : nx_(nx), ny_(ny)
{
    FIELDSYNC_CHECK(
        nx >= 1 && ny >= 1,
        "RectangleMsh: needs at least 1 x 1 squares, got " + std::to_string(nx) + " x " +
            std::to_string(ny)
    );
}

std::int64_t RectangleMsh::tag(std::int64_t i, std::int64_t j) const noexcept
{
    // file order k: row by row from the bottom; tags count down in steps of 2
    const std::int64_t n { (nx_ + 1) * (ny_ + 1) };
    const std::int64_t k { i + (nx_ + 1) * j };
    return 2 * (n - k);
}

Point RectangleMsh::gridPoint(std::int64_t i, std::int64_t j) const
{
    double x { 2.0 * static_cast<double>(i) / static_cast<double>(nx_) };
    double y { static_cast<double>(j) / static_cast<double>(ny_) };
    if (i > 0 && i < nx_ && j > 0 && j < ny_)
    {
        const auto a = static_cast<double>(i);
        const auto b = static_cast<double>(j);
        x += 0.25 * (2.0 / static_cast<double>(nx_)) * std::sin(1.3 * a + 0.7 * b);
        y += 0.25 * (1.0 / static_cast<double>(ny_)) * std::cos(0.9 * a - 1.1 * b);
    }
    return { x, y, 0.0 };
}

std::array<std::int64_t, 3> RectangleMsh::triangleTags(GlobalIndex id) const
{
    FIELDSYNC_CHECK(
        id >= 0 && id < nTriangles(),
        "RectangleMsh::triangleTags: triangle " + std::to_string(id) + " is not in the mesh"
    );
    const std::int64_t square { id / 2 };
    const std::int64_t i { square % nx_ };
    const std::int64_t j { square / nx_ };
    std::array<std::int64_t, 3> tags {};
    const auto c = corners(i, j, static_cast<int>(id % 2));
    for (std::size_t v { 0 }; v < 3; ++v)
    {
        tags[v] = tag(i + c[v][0], j + c[v][1]);
    }
    return tags;
}

Point RectangleMsh::point(std::int64_t tagValue) const
{
    const std::int64_t n { (nx_ + 1) * (ny_ + 1) };
    FIELDSYNC_CHECK(
        tagValue % 2 == 0 && tagValue >= 2 && tagValue <= 2 * n,
        "RectangleMsh::point: no node has tag " + std::to_string(tagValue)
    );
    const std::int64_t k { n - tagValue / 2 };
    return gridPoint(k % (nx_ + 1), k / (nx_ + 1));
}

void RectangleMsh::write(const std::string& path) const
{
    const std::unique_ptr<std::FILE, FileCloser> file { std::fopen(path.c_str(), "w") };
    FIELDSYNC_CHECK(file != nullptr, "RectangleMsh::write: cannot open '" + path + "'");
    std::FILE* f { file.get() };
    const std::int64_t n { (nx_ + 1) * (ny_ + 1) };
    const std::int64_t half { ny_ / 2 };
    const auto ll = [](std::int64_t v)
    {
        return static_cast<long long>(v);
    };
    std::fprintf(f, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n");
    std::fprintf(f, "2 %lld 2 %lld\n", ll(n), ll(2 * n));
    // block 1: the bottom row (on curve 1); block 2: the other rows (on surface 1)
    const std::array<std::array<std::int64_t, 3>, 2> blocks { { { 1, 0, 1 }, { 2, 1, ny_ + 1 } } };
    for (const auto& [dim, firstRow, endRow] : blocks)
    {
        std::fprintf(f, "%lld 1 0 %lld\n", ll(dim), ll((endRow - firstRow) * (nx_ + 1)));
        for (std::int64_t j { firstRow }; j < endRow; ++j)
        {
            for (std::int64_t i { 0 }; i <= nx_; ++i)
            {
                std::fprintf(f, "%lld\n", ll(tag(i, j)));
            }
        }
        for (std::int64_t j { firstRow }; j < endRow; ++j)
        {
            for (std::int64_t i { 0 }; i <= nx_; ++i)
            {
                const Point p { gridPoint(i, j) };
                std::fprintf(f, "%.17g %.17g 0\n", p[0], p[1]);
            }
        }
    }
    std::fprintf(
        f, "$EndNodes\n$Elements\n3 %lld 1 %lld\n", ll(nx_ + nTriangles()), ll(nx_ + nTriangles())
    );
    std::fprintf(f, "1 1 1 %lld\n", ll(nx_));
    for (std::int64_t i { 0 }; i < nx_; ++i)
    {
        std::fprintf(f, "%lld %lld %lld\n", ll(i + 1), ll(tag(i, 0)), ll(tag(i + 1, 0)));
    }
    // the triangles of rows [0, half) and [half, ny) in two blocks
    const std::array<std::array<std::int64_t, 2>, 2> rows { { { 0, half }, { half, ny_ } } };
    for (const auto& [first, end] : rows)
    {
        std::fprintf(f, "2 1 2 %lld\n", ll(2 * nx_ * (end - first)));
        for (GlobalIndex id { 2 * nx_ * first }; id < 2 * nx_ * end; ++id)
        {
            const auto t = triangleTags(id);
            std::fprintf(
                f, "%lld %lld %lld %lld\n", ll(nx_ + 1 + id), ll(t[0]), ll(t[1]), ll(t[2])
            );
        }
    }
    std::fprintf(f, "$EndElements\n");
    FIELDSYNC_CHECK(std::ferror(f) == 0, "RectangleMsh::write: cannot write '" + path + "'");
}

} // namespace fieldsync::heat
