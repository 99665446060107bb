// SPDX-License-Identifier: MIT
#include "triMesh.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

namespace fieldsync::heat
{

TriMesh::TriMesh(
    std::string path,
    std::vector<std::array<double, 2>> nodes,
    std::vector<std::array<std::int64_t, 3>> triangles
)
    : path_(std::move(path)), nodes_(std::move(nodes)), triangles_(std::move(triangles))
{
    const std::size_t n { triangles_.size() };
    faceNeighbour_.assign(n, { -1, -1, -1 });
    // edge (low node, high node) -> first (cell, face) that has it
    std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::size_t, int>> edges;
    for (std::size_t c { 0 }; c < n; ++c)
    {
        const auto& t = triangles_[c];
        for (int k { 0 }; k < 3; ++k)
        {
            const std::int64_t p { t[static_cast<std::size_t>(k)] };
            const std::int64_t q { t[static_cast<std::size_t>((k + 1) % 3)] };
            const auto key = std::make_pair(std::min(p, q), std::max(p, q));
            const auto [it, inserted] = edges.emplace(key, std::make_pair(c, k));
            if (!inserted)
            {
                const auto [other, otherFace] = it->second;
                faceNeighbour_[c][static_cast<std::size_t>(k)] = static_cast<GlobalIndex>(other);
                faceNeighbour_[other][static_cast<std::size_t>(otherFace)] =
                    static_cast<GlobalIndex>(c);
            }
        }
    }
}

MeshPiece TriMesh::piece(std::span<const GlobalIndex> ids) const
{
    std::vector<GlobalIndex> cells(ids.begin(), ids.end());
    for (const GlobalIndex id : ids)
    {
        FIELDSYNC_CHECK(
            id >= 0 && id < nCells(),
            "TriMesh::piece: cell " + std::to_string(id) + " is not in the mesh"
        );
        for (const GlobalIndex nb : faceNeighbour_[static_cast<std::size_t>(id)])
        {
            if (nb >= 0)
            {
                cells.push_back(nb);
            }
        }
    }
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    std::vector<PatchCell> patch;
    patch.reserve(cells.size());
    for (const GlobalIndex c : cells)
    {
        PatchCell cell { c, CellShape::Triangle, {}, {} };
        for (std::size_t v { 0 }; v < 3; ++v)
        {
            const std::int64_t node { triangles_[static_cast<std::size_t>(c)][v] };
            const auto& xy = nodes_[static_cast<std::size_t>(node)];
            cell.nodes[v] = node;
            cell.points[v] = { xy[0], xy[1], 0.0 };
        }
        patch.push_back(cell);
    }
    return MeshPiece(patch, ids);
}

TriMesh TriMesh::readGmsh(const std::string& path)
{
    std::ifstream in(path);
    FIELDSYNC_CHECK(in.good(), "TriMesh::readGmsh: cannot open '" + path + "'");
    std::string line;
    std::size_t lineNo { 0 };
    const auto next = [&]() -> std::string // a copy: nvcc warns on a reference
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
    return TriMesh(path, std::move(nodes), std::move(triangles));
}

} // namespace fieldsync::heat
