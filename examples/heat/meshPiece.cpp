// SPDX-License-Identifier: MIT
#include "meshPiece.hpp"

#include "fieldsync/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace fieldsync::heat
{

namespace
{
/** @brief Node positions (within the cell) of each face; -1 pads faces with fewer nodes. */
using FaceTable = std::array<std::array<int, 4>, 6>;

constexpr FaceTable triangleFaces { { { 0, 1, -1, -1 }, { 1, 2, -1, -1 }, { 2, 0, -1, -1 } } };
constexpr FaceTable tetrahedronFaces {
    { { 1, 2, 3, -1 }, { 0, 2, 3, -1 }, { 0, 1, 3, -1 }, { 0, 1, 2, -1 } }
};
constexpr FaceTable hexahedronFaces { { { 0, 3, 2, 1 },
                                        { 4, 5, 6, 7 },
                                        { 0, 1, 5, 4 },
                                        { 1, 2, 6, 5 },
                                        { 2, 3, 7, 6 },
                                        { 3, 0, 4, 7 } } };

const FaceTable& faces(CellShape shape)
{
    switch (shape)
    {
    case CellShape::Triangle:
        return triangleFaces;
    case CellShape::Tetrahedron:
        return tetrahedronFaces;
    case CellShape::Hexahedron:
        return hexahedronFaces;
    }
    return triangleFaces;
}

int faceNodeCount(CellShape shape)
{
    return shape == CellShape::Hexahedron ? 4 : dimension(shape);
}

Point minus(const Point& a, const Point& b)
{
    return { a[0] - b[0], a[1] - b[1], a[2] - b[2] };
}

Point cross(const Point& a, const Point& b)
{
    return { a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0] };
}

double norm(const Point& a)
{
    return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

double tetrahedronVolume(const Point& a, const Point& b, const Point& c, const Point& d)
{
    const Point u { minus(b, a) };
    const Point v { minus(c, a) };
    const Point w { minus(d, a) };
    const Point uv { cross(u, v) };
    return std::abs(uv[0] * w[0] + uv[1] * w[1] + uv[2] * w[2]) / 6.0;
}

/** @brief Area (2-D) or volume (3-D) of a cell from its nodes. */
double cellVolume(CellShape shape, const std::array<Point, 8>& p)
{
    switch (shape)
    {
    case CellShape::Triangle:
        return 0.5 * std::abs(
                         (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) -
                         (p[2][0] - p[0][0]) * (p[1][1] - p[0][1])
                     );
    case CellShape::Tetrahedron:
        return tetrahedronVolume(p[0], p[1], p[2], p[3]);
    case CellShape::Hexahedron:
    {
        // the six tetrahedra from node 0 to node 6 (the Kuhn split), in a fixed order
        constexpr std::array<std::array<int, 2>, 6> middle {
            { { 1, 2 }, { 1, 5 }, { 3, 2 }, { 3, 7 }, { 4, 5 }, { 4, 7 } }
        };
        double sum { 0.0 };
        for (const auto& m : middle)
        {
            sum += tetrahedronVolume(
                p[0], p[static_cast<std::size_t>(m[0])], p[static_cast<std::size_t>(m[1])], p[6]
            );
        }
        return sum;
    }
    }
    return 0.0;
}

/** @brief Length (2 nodes), area of a triangle (3) or of a quadrilateral (4, by diagonals). */
double faceMeasure(const std::array<Point, 4>& q, int n)
{
    if (n == 2)
    {
        return norm(minus(q[1], q[0]));
    }
    if (n == 3)
    {
        return 0.5 * norm(cross(minus(q[1], q[0]), minus(q[2], q[0])));
    }
    return 0.5 * norm(cross(minus(q[2], q[0]), minus(q[3], q[1])));
}

Point mean(std::span<const Point> points)
{
    Point sum { 0.0, 0.0, 0.0 };
    for (const Point& p : points)
    {
        sum = { sum[0] + p[0], sum[1] + p[1], sum[2] + p[2] };
    }
    const auto n = static_cast<double>(points.size());
    return { sum[0] / n, sum[1] / n, sum[2] / n };
}

/** @brief A face as the patch sees it: sorted node ids, the patch cell and its face number. */
struct FaceEntry
{
    std::array<std::int64_t, 4> key; /**< sorted global node ids, padded with -1 */
    std::uint32_t cell;              /**< patch cell (32 bits: 40 bytes an entry, not 48) */
    int face;                        /**< face number within the cell */
};

/** @brief Sorts the first @p n (<= 4) entries of @p key (insertion sort: GCC 12 warns falsely on
 * std::sort over part of a std::array). */
void sortKey(std::array<std::int64_t, 4>& key, int n)
{
    for (std::size_t i { 1 }; i < static_cast<std::size_t>(n); ++i)
    {
        for (std::size_t j { i }; j > 0 && key[j - 1] > key[j]; --j)
        {
            std::swap(key[j - 1], key[j]);
        }
    }
}

/** @brief The faces of a patch matched up: per cell its first face, per face the neighbour. */
struct FaceMatch
{
    std::vector<std::size_t> first;      /**< CSR offsets of each patch cell's faces */
    std::vector<std::int64_t> neighbour; /**< neighbouring patch cell per face, or -1 */
};

/** @brief For each patch cell and face: the neighbouring patch cell, or -1. */
FaceMatch matchFaces(std::span<const PatchCell> patch)
{
    FIELDSYNC_CHECK(
        patch.size() <= std::numeric_limits<std::uint32_t>::max(),
        "MeshPiece: a patch of " + std::to_string(patch.size()) + " cells is too large"
    );
    std::vector<std::size_t> first(patch.size() + 1, 0);
    for (std::size_t c { 0 }; c < patch.size(); ++c)
    {
        first[c + 1] = first[c] + static_cast<std::size_t>(faceCount(patch[c].shape));
    }
    std::vector<FaceEntry> entries;
    entries.reserve(first.back()); // exact: no doubling of the largest set-up array
    for (std::size_t c { 0 }; c < patch.size(); ++c)
    {
        const PatchCell& cell = patch[c];
        const int nFaceNodes { faceNodeCount(cell.shape) };
        for (int f { 0 }; f < faceCount(cell.shape); ++f)
        {
            FaceEntry e { { -1, -1, -1, -1 }, static_cast<std::uint32_t>(c), f };
            for (int k { 0 }; k < nFaceNodes; ++k)
            {
                const int node { faces(cell.shape
                )[static_cast<std::size_t>(f)][static_cast<std::size_t>(k)] };
                e.key[static_cast<std::size_t>(k)] = cell.nodes[static_cast<std::size_t>(node)];
            }
            sortKey(e.key, nFaceNodes);
            entries.push_back(e);
        }
    }
    std::sort(
        entries.begin(),
        entries.end(),
        [](const FaceEntry& a, const FaceEntry& b) { return a.key < b.key; }
    );
    std::vector<std::int64_t> neighbour(first.back(), -1);
    for (std::size_t k { 0 }; k < entries.size();)
    {
        std::size_t end { k + 1 };
        while (end < entries.size() && entries[end].key == entries[k].key)
        {
            ++end;
        }
        FIELDSYNC_CHECK(
            end - k <= 2,
            "MeshPiece: a face of cell " + std::to_string(patch[entries[k].cell].id) +
                " is shared by more than two cells"
        );
        if (end - k == 2)
        {
            const FaceEntry& a = entries[k];
            const FaceEntry& b = entries[k + 1];
            neighbour[first[a.cell] + static_cast<std::size_t>(a.face)] =
                static_cast<std::int64_t>(b.cell);
            neighbour[first[b.cell] + static_cast<std::size_t>(b.face)] =
                static_cast<std::int64_t>(a.cell);
        }
        k = end;
    }
    return { std::move(first), std::move(neighbour) };
}

/** @brief Sets node @p n's point to @p p, or checks that it is @p p already (NaN: not set). */
void placeNode(std::vector<Point>& points, std::size_t n, const Point& p, std::int64_t node)
{
    if (std::isnan(points[n][0]))
    {
        points[n] = p;
        return;
    }
    FIELDSYNC_CHECK(
        points[n] == p, "MeshPiece: node " + std::to_string(node) + " has two positions"
    );
}

/** @brief Checks that a node table of @p n nodes can be indexed by 32 bits. */
void checkNodeCount(std::size_t n)
{
    FIELDSYNC_CHECK(
        n <= std::numeric_limits<std::uint32_t>::max(),
        "MeshPiece: " + std::to_string(n) + " nodes are too many for a piece"
    );
}
} // namespace

int nodeCount(CellShape shape) noexcept
{
    return shape == CellShape::Triangle ? 3 : shape == CellShape::Tetrahedron ? 4 : 8;
}

int faceCount(CellShape shape) noexcept
{
    return shape == CellShape::Triangle ? 3 : shape == CellShape::Tetrahedron ? 4 : 6;
}

int dimension(CellShape shape) noexcept
{
    return shape == CellShape::Triangle ? 2 : 3;
}

int vtkType(CellShape shape) noexcept
{
    return shape == CellShape::Triangle ? 5 : shape == CellShape::Tetrahedron ? 10 : 12;
}

MeshPiece::MeshPiece(std::span<const PatchCell> patch, std::span<const GlobalIndex> ownedIds)
{
    const FaceMatch matched { matchFaces(patch) };
    const std::vector<std::size_t>& first = matched.first;
    const std::vector<std::int64_t>& neighbour = matched.neighbour;
    // patch position of each owned id
    std::vector<std::pair<GlobalIndex, std::size_t>> byId;
    byId.reserve(patch.size());
    for (std::size_t c { 0 }; c < patch.size(); ++c)
    {
        byId.emplace_back(patch[c].id, c);
    }
    std::sort(byId.begin(), byId.end());
    std::vector<Point> centroids(patch.size());
    for (std::size_t c { 0 }; c < patch.size(); ++c)
    {
        centroids[c] = mean(
            std::span<const Point>(patch[c].points.data(), std::size_t(nodeCount(patch[c].shape)))
        );
    }
    // patch position of each owned cell, and the exact sizes of the arrays (no doubling)
    std::vector<std::size_t> position;
    position.reserve(ownedIds.size());
    std::size_t nFaces { 0 };
    std::size_t nCorners { 0 };
    for (const GlobalIndex id : ownedIds)
    {
        const auto it =
            std::lower_bound(byId.begin(), byId.end(), std::make_pair(id, std::size_t { 0 }));
        FIELDSYNC_CHECK(
            it != byId.end() && it->first == id,
            "MeshPiece: cell " + std::to_string(id) + " is not in the patch"
        );
        position.push_back(it->second);
        nFaces += static_cast<std::size_t>(faceCount(patch[it->second].shape));
        nCorners += static_cast<std::size_t>(nodeCount(patch[it->second].shape));
    }
    std::vector<std::pair<GlobalIndex, std::size_t>>().swap(byId);
    // the node table: the owned cells' nodes, each once, ascending by global id
    {
        std::vector<std::int64_t> corners;
        corners.reserve(nCorners);
        for (const std::size_t c : position)
        {
            const PatchCell& cell = patch[c];
            corners.insert(
                corners.end(), cell.nodes.begin(), cell.nodes.begin() + nodeCount(cell.shape)
            );
        }
        std::sort(corners.begin(), corners.end());
        nodeIds_.assign(corners.begin(), std::unique(corners.begin(), corners.end()));
    }
    checkNodeCount(nodeIds_.size());
    constexpr double unset { std::numeric_limits<double>::quiet_NaN() };
    nodePoints_.assign(nodeIds_.size(), Point { unset, unset, unset });
    ids_.assign(ownedIds.begin(), ownedIds.end());
    shapes_.reserve(ids_.size());
    volume_.reserve(ids_.size());
    centroid_.reserve(ids_.size());
    faceOffsets_.reserve(ids_.size() + 1);
    nodeOffsets_.reserve(ids_.size() + 1);
    faceNeighbour_.reserve(nFaces);
    faceCoefficient_.reserve(nFaces);
    cellNodes_.reserve(nCorners);
    for (std::size_t i { 0 }; i < ids_.size(); ++i)
    {
        const GlobalIndex id { ids_[i] };
        const std::size_t c { position[i] };
        const PatchCell& cell = patch[c];
        shapes_.push_back(cell.shape);
        const double v { cellVolume(cell.shape, cell.points) };
        FIELDSYNC_CHECK(v > 0.0, "MeshPiece: cell " + std::to_string(id) + " has zero volume");
        volume_.push_back(v);
        centroid_.push_back(centroids[c]);
        const int nFaceNodes { faceNodeCount(cell.shape) };
        for (int f { 0 }; f < faceCount(cell.shape); ++f)
        {
            std::array<Point, 4> q {};
            for (int k { 0 }; k < nFaceNodes; ++k)
            {
                q[static_cast<std::size_t>(k)] =
                    cell.points[static_cast<std::size_t>(faces(cell.shape
                    )[static_cast<std::size_t>(f)][static_cast<std::size_t>(k)])];
            }
            const std::int64_t nb { neighbour[first[c] + static_cast<std::size_t>(f)] };
            // the far point: the neighbour's centroid, or the face centre on the boundary
            const Point far {
                nb >= 0
                    ? centroids[static_cast<std::size_t>(nb)]
                    : mean(std::span<const Point>(q.data(), static_cast<std::size_t>(nFaceNodes)))
            };
            faceNeighbour_.push_back(nb >= 0 ? patch[static_cast<std::size_t>(nb)].id : -1);
            faceCoefficient_.push_back(faceMeasure(q, nFaceNodes) / norm(minus(far, centroids[c])));
        }
        faceOffsets_.push_back(faceNeighbour_.size());
        for (std::size_t k { 0 }; k < static_cast<std::size_t>(nodeCount(cell.shape)); ++k)
        {
            const auto n { static_cast<std::size_t>(
                std::lower_bound(nodeIds_.begin(), nodeIds_.end(), cell.nodes[k]) - nodeIds_.begin()
            ) };
            placeNode(nodePoints_, n, cell.points[k], cell.nodes[k]);
            cellNodes_.push_back(static_cast<std::uint32_t>(n));
        }
        nodeOffsets_.push_back(cellNodes_.size());
    }
}

CellGraph MeshPiece::graph() const
{
    std::vector<std::size_t> offsets;
    offsets.reserve(nCells() + 1);
    offsets.push_back(0);
    std::size_t inner { 0 };
    for (const GlobalIndex n : faceNeighbour_)
    {
        inner += n >= 0 ? 1 : 0;
    }
    std::vector<GlobalIndex> adjacency;
    adjacency.reserve(inner);
    for (std::size_t i { 0 }; i < nCells(); ++i)
    {
        for (std::size_t f { faceOffsets_[i] }; f < faceOffsets_[i + 1]; ++f)
        {
            if (faceNeighbour_[f] >= 0)
            {
                adjacency.push_back(faceNeighbour_[f]);
            }
        }
        offsets.push_back(adjacency.size());
    }
    return CellGraph(ids_, std::move(offsets), std::move(adjacency));
}

void MeshPiece::reserve(std::size_t cells, std::size_t faces, std::size_t corners)
{
    ids_.reserve(cells);
    shapes_.reserve(cells);
    volume_.reserve(cells);
    centroid_.reserve(cells);
    faceOffsets_.reserve(cells + 1);
    nodeOffsets_.reserve(cells + 1);
    faceNeighbour_.reserve(faces);
    faceCoefficient_.reserve(faces);
    cellNodes_.reserve(corners);
}

void MeshPiece::append(const MeshPiece& other)
{
    FIELDSYNC_CHECK(
        ids_.empty() || other.ids_.empty() || ids_.back() < other.ids_.front(),
        "MeshPiece::append: cell " +
            std::to_string(other.ids_.empty() ? GlobalIndex { -1 } : other.ids_.front()) +
            " does not follow the piece's last cell"
    );
    const std::size_t faceBase { faceNeighbour_.size() };
    const std::size_t cornerBase { cellNodes_.size() };
    ids_.insert(ids_.end(), other.ids_.begin(), other.ids_.end());
    shapes_.insert(shapes_.end(), other.shapes_.begin(), other.shapes_.end());
    volume_.insert(volume_.end(), other.volume_.begin(), other.volume_.end());
    centroid_.insert(centroid_.end(), other.centroid_.begin(), other.centroid_.end());
    faceNeighbour_.insert(
        faceNeighbour_.end(), other.faceNeighbour_.begin(), other.faceNeighbour_.end()
    );
    faceCoefficient_.insert(
        faceCoefficient_.end(), other.faceCoefficient_.begin(), other.faceCoefficient_.end()
    );
    for (std::size_t i { 1 }; i < other.faceOffsets_.size(); ++i)
    {
        faceOffsets_.push_back(faceBase + other.faceOffsets_[i]);
        nodeOffsets_.push_back(cornerBase + other.nodeOffsets_[i]);
    }
    // Merge the node tables from the first of this table's nodes not below the other's smallest
    // (in a piece made in chunks of ascending ids, only the last rows of nodes): the merged tail,
    // where each of this table's nodes from there moves, and where each of the other's goes.
    const std::size_t n0 { nodeIds_.size() };
    const std::size_t m { other.nodeIds_.size() };
    const std::size_t p0 {
        other.nodeIds_.empty()
            ? n0
            : static_cast<std::size_t>(
                  std::lower_bound(nodeIds_.begin(), nodeIds_.end(), other.nodeIds_.front()) -
                  nodeIds_.begin()
              )
    };
    std::vector<std::int64_t> tailIds;
    std::vector<Point> tailPoints;
    tailIds.reserve(n0 - p0 + m);
    tailPoints.reserve(n0 - p0 + m);
    std::vector<std::uint32_t> moved(n0 - p0);
    std::vector<std::uint32_t> placed(m);
    bool shifted { false };
    for (std::size_t a { p0 }, b { 0 }; a < n0 || b < m;)
    {
        const bool mine { b == m || (a < n0 && nodeIds_[a] <= other.nodeIds_[b]) };
        const bool theirs { a == n0 || (b < m && other.nodeIds_[b] <= nodeIds_[a]) };
        const std::size_t at { p0 + tailIds.size() };
        if (mine)
        {
            moved[a - p0] = static_cast<std::uint32_t>(at);
            shifted = shifted || at != a;
            tailIds.push_back(nodeIds_[a]);
            tailPoints.push_back(nodePoints_[a]);
        }
        else
        {
            tailIds.push_back(other.nodeIds_[b]);
            tailPoints.push_back(other.nodePoints_[b]);
        }
        if (theirs)
        {
            FIELDSYNC_CHECK(
                !mine || nodePoints_[a] == other.nodePoints_[b],
                "MeshPiece::append: node " + std::to_string(other.nodeIds_[b]) +
                    " has two positions"
            );
            placed[b++] = static_cast<std::uint32_t>(at);
        }
        a += mine ? 1 : 0;
    }
    checkNodeCount(p0 + tailIds.size());
    if (shifted) // a node of the other piece goes before some of this piece's
    {
        for (std::size_t k { 0 }; k < cornerBase; ++k)
        {
            if (cellNodes_[k] >= p0)
            {
                cellNodes_[k] = moved[cellNodes_[k] - p0];
            }
        }
    }
    nodeIds_.resize(p0);
    nodeIds_.insert(nodeIds_.end(), tailIds.begin(), tailIds.end());
    nodePoints_.resize(p0);
    nodePoints_.insert(nodePoints_.end(), tailPoints.begin(), tailPoints.end());
    for (const std::uint32_t n : other.cellNodes_)
    {
        cellNodes_.push_back(placed[n]);
    }
}

void MeshPiece::shrinkToFit()
{
    nodeIds_.shrink_to_fit();
    nodePoints_.shrink_to_fit();
}

std::size_t MeshPiece::memoryBytes() const noexcept
{
    return ids_.capacity() * sizeof(GlobalIndex) + shapes_.capacity() * sizeof(CellShape) +
           volume_.capacity() * sizeof(double) + centroid_.capacity() * sizeof(Point) +
           (faceOffsets_.capacity() + nodeOffsets_.capacity()) * sizeof(std::size_t) +
           faceNeighbour_.capacity() * sizeof(GlobalIndex) +
           faceCoefficient_.capacity() * sizeof(double) +
           cellNodes_.capacity() * sizeof(std::uint32_t) +
           nodeIds_.capacity() * sizeof(std::int64_t) + nodePoints_.capacity() * sizeof(Point);
}

} // namespace fieldsync::heat
