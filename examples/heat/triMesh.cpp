// SPDX-License-Identifier: MIT
#include "triMesh.hpp"

#include "fieldsync/core/error.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <unordered_map>

namespace fieldsync::heat
{

namespace
{
/** @brief A uniform double in [0, 1) from 53 random bits (same on every standard library). */
double uniform(std::mt19937_64& gen)
{
    return static_cast<double>(gen() >> 11) * 0x1.0p-53;
}
} // namespace

TriMesh::TriMesh(
    std::vector<std::array<double, 2>> nodes, std::vector<std::array<std::int64_t, 3>> triangles
)
    : nodes_(std::move(nodes)), triangles_(std::move(triangles))
{
    const std::size_t n { triangles_.size() };
    area_.resize(n);
    centroid_.resize(n);
    faceNeighbour_.assign(n, { -1, -1, -1 });
    faceCoefficient_.resize(n);
    // edge (low node, high node) -> first (cell, face) that has it
    std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::size_t, int>> edges;
    for (std::size_t c { 0 }; c < n; ++c)
    {
        const auto& t = triangles_[c];
        const auto& a = nodes_[static_cast<std::size_t>(t[0])];
        const auto& b = nodes_[static_cast<std::size_t>(t[1])];
        const auto& d = nodes_[static_cast<std::size_t>(t[2])];
        area_[c] = 0.5 * std::abs((b[0] - a[0]) * (d[1] - a[1]) - (d[0] - a[0]) * (b[1] - a[1]));
        FIELDSYNC_CHECK(area_[c] > 0.0, "TriMesh: cell " + std::to_string(c) + " has zero area");
        centroid_[c] = { (a[0] + b[0] + d[0]) / 3.0, (a[1] + b[1] + d[1]) / 3.0 };
        for (int k { 0 }; k < 3; ++k)
        {
            const std::int64_t p { t[static_cast<std::size_t>(k)] };
            const std::int64_t q { t[static_cast<std::size_t>((k + 1) % 3)] };
            const auto key = std::make_pair(std::min(p, q), std::max(p, q));
            const auto [it, inserted] = edges.emplace(key, std::make_pair(c, k));
            if (!inserted)
            {
                const auto [other, otherFace] = it->second;
                FIELDSYNC_CHECK(
                    faceNeighbour_[other][static_cast<std::size_t>(otherFace)] == -1,
                    "TriMesh: edge " + std::to_string(p) + "-" + std::to_string(q) +
                        " is shared by more than two cells (cell " + std::to_string(c) + ")"
                );
                faceNeighbour_[c][static_cast<std::size_t>(k)] = static_cast<GlobalIndex>(other);
                faceNeighbour_[other][static_cast<std::size_t>(otherFace)] =
                    static_cast<GlobalIndex>(c);
            }
        }
    }
    for (std::size_t c { 0 }; c < n; ++c)
    {
        const auto& t = triangles_[c];
        for (int k { 0 }; k < 3; ++k)
        {
            const auto& p = nodes_[static_cast<std::size_t>(t[static_cast<std::size_t>(k)])];
            const auto& q =
                nodes_[static_cast<std::size_t>(t[static_cast<std::size_t>((k + 1) % 3)])];
            const double length { std::hypot(q[0] - p[0], q[1] - p[1]) };
            const GlobalIndex nb { faceNeighbour_[c][static_cast<std::size_t>(k)] };
            // the far point: the neighbour's centroid, or the face midpoint on the boundary
            const std::array<double, 2> far {
                nb >= 0 ? centroid_[static_cast<std::size_t>(nb)]
                        : std::array<double, 2> { 0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1]) }
            };
            const double distance {
                std::hypot(far[0] - centroid_[c][0], far[1] - centroid_[c][1])
            };
            faceCoefficient_[c][static_cast<std::size_t>(k)] = length / distance;
        }
    }
}

TriMesh TriMesh::generate(int nx, int ny, std::uint64_t seed, double jitter)
{
    FIELDSYNC_CHECK(nx >= 1 && ny >= 1, "TriMesh::generate: needs nx, ny >= 1");
    std::mt19937_64 gen(seed);
    const double hx { 1.0 / nx };
    const double hy { 1.0 / ny };
    std::vector<std::array<double, 2>> nodes;
    nodes.reserve(static_cast<std::size_t>((nx + 1) * (ny + 1)));
    for (int j { 0 }; j <= ny; ++j)
    {
        for (int i { 0 }; i <= nx; ++i)
        {
            double x { i * hx };
            double y { j * hy };
            const double dx { (uniform(gen) - 0.5) * 2.0 * jitter * hx };
            const double dy { (uniform(gen) - 0.5) * 2.0 * jitter * hy };
            x += (i > 0 && i < nx) ? dx : 0.0;
            y += (j > 0 && j < ny) ? dy : 0.0;
            nodes.push_back({ x, y });
        }
    }
    const auto node = [nx](int i, int j)
    {
        return static_cast<std::int64_t>(i + (nx + 1) * j);
    };
    std::vector<std::array<std::int64_t, 3>> triangles;
    triangles.reserve(static_cast<std::size_t>(2 * nx * ny));
    for (int j { 0 }; j < ny; ++j)
    {
        for (int i { 0 }; i < nx; ++i)
        {
            const std::int64_t a { node(i, j) };
            const std::int64_t b { node(i + 1, j) };
            const std::int64_t c { node(i + 1, j + 1) };
            const std::int64_t d { node(i, j + 1) };
            if (uniform(gen) < 0.5)
            {
                triangles.push_back({ a, b, c });
                triangles.push_back({ a, c, d });
            }
            else
            {
                triangles.push_back({ a, b, d });
                triangles.push_back({ b, c, d });
            }
        }
    }
    return TriMesh(std::move(nodes), std::move(triangles));
}

TriMesh TriMesh::readGmsh(const std::string& path)
{
    std::ifstream in(path);
    FIELDSYNC_CHECK(in.good(), "TriMesh::readGmsh: cannot open '" + path + "'");
    std::string line;
    std::size_t lineNo { 0 };
    const auto next = [&]() -> std::string&
    {
        FIELDSYNC_CHECK(
            static_cast<bool>(std::getline(in, line)),
            "TriMesh::readGmsh: " + path + ": unexpected end of file after line " +
                std::to_string(lineNo)
        );
        ++lineNo;
        return line;
    };
    const auto where = [&]
    {
        return path + ":" + std::to_string(lineNo);
    };
    std::vector<std::array<double, 2>> nodes;
    std::unordered_map<std::int64_t, std::int64_t> nodeIndex;
    std::vector<std::array<std::int64_t, 3>> triangles;
    bool formatSeen { false };
    while (std::getline(in, line))
    {
        ++lineNo;
        if (line.rfind("$MeshFormat", 0) == 0)
        {
            std::istringstream s(next());
            double version { 0 };
            int binary { 1 };
            s >> version >> binary;
            FIELDSYNC_CHECK(
                version >= 4.1 && version < 5.0 && binary == 0,
                "TriMesh::readGmsh: " + where() + ": needs Gmsh 4.1 ASCII, got '" + line + "'"
            );
            formatSeen = true;
        }
        else if (line.rfind("$Nodes", 0) == 0)
        {
            std::istringstream header(next());
            std::int64_t blocks { 0 };
            std::int64_t count { 0 };
            header >> blocks >> count;
            nodes.reserve(static_cast<std::size_t>(count));
            for (std::int64_t b { 0 }; b < blocks; ++b)
            {
                std::istringstream bh(next());
                int dim { 0 };
                int tag { 0 };
                int parametric { 0 };
                std::int64_t inBlock { 0 };
                bh >> dim >> tag >> parametric >> inBlock;
                FIELDSYNC_CHECK(!bh.fail(), "TriMesh::readGmsh: " + where() + ": bad node block");
                std::vector<std::int64_t> tags(static_cast<std::size_t>(inBlock));
                for (auto& t : tags)
                {
                    t = std::stoll(next());
                }
                for (const std::int64_t t : tags)
                {
                    std::istringstream xyz(next());
                    double x { 0 };
                    double y { 0 };
                    xyz >> x >> y;
                    FIELDSYNC_CHECK(!xyz.fail(), "TriMesh::readGmsh: " + where() + ": bad node");
                    nodeIndex[t] = static_cast<std::int64_t>(nodes.size());
                    nodes.push_back({ x, y });
                }
            }
        }
        else if (line.rfind("$Elements", 0) == 0)
        {
            std::istringstream header(next());
            std::int64_t blocks { 0 };
            header >> blocks;
            for (std::int64_t b { 0 }; b < blocks; ++b)
            {
                std::istringstream bh(next());
                int dim { 0 };
                int tag { 0 };
                int type { 0 };
                std::int64_t inBlock { 0 };
                bh >> dim >> tag >> type >> inBlock;
                FIELDSYNC_CHECK(
                    !bh.fail(), "TriMesh::readGmsh: " + where() + ": bad element block"
                );
                for (std::int64_t e { 0 }; e < inBlock; ++e)
                {
                    std::istringstream el(next());
                    if (type != 2) // only 3-node triangles are cells
                    {
                        continue;
                    }
                    std::int64_t id { 0 };
                    std::array<std::int64_t, 3> t {};
                    el >> id >> t[0] >> t[1] >> t[2];
                    FIELDSYNC_CHECK(!el.fail(), "TriMesh::readGmsh: " + where() + ": bad triangle");
                    for (auto& v : t)
                    {
                        const auto it = nodeIndex.find(v);
                        FIELDSYNC_CHECK(
                            it != nodeIndex.end(),
                            "TriMesh::readGmsh: " + where() + ": unknown node " + std::to_string(v)
                        );
                        v = it->second;
                    }
                    triangles.push_back(t);
                }
            }
        }
    }
    FIELDSYNC_CHECK(formatSeen, "TriMesh::readGmsh: " + path + ": no $MeshFormat section");
    FIELDSYNC_CHECK(!triangles.empty(), "TriMesh::readGmsh: " + path + ": no triangles");
    return TriMesh(std::move(nodes), std::move(triangles));
}

CellGraph TriMesh::graph() const
{
    std::vector<std::size_t> offsets { 0 };
    std::vector<GlobalIndex> adjacency;
    adjacency.reserve(3 * nCells());
    for (std::size_t c { 0 }; c < nCells(); ++c)
    {
        for (const GlobalIndex nb : faceNeighbour_[c])
        {
            if (nb >= 0)
            {
                adjacency.push_back(nb);
            }
        }
        offsets.push_back(adjacency.size());
    }
    return CellGraph::global(std::move(offsets), std::move(adjacency));
}

} // namespace fieldsync::heat
