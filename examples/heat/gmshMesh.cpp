// SPDX-License-Identifier: MIT
#include "gmshMesh.hpp"

#include "gmshScan.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/collectives.hpp"
#include "fieldsync/mpi/sparseExchange.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <climits>
#include <fstream>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>

namespace fieldsync::heat
{

namespace
{
// one tag per exchange: consecutive NBX exchanges on one communicator must not share a tag
constexpr int pairTag { 7611 };
constexpr int directoryTag { 7612 };
constexpr int askTag { 7613 };
constexpr int answerTag { 7614 };
constexpr int edgeTag { 7615 };
constexpr int sideTag { 7616 };
constexpr std::array<int, 2> requestTags { 7617, 7619 };
constexpr std::array<int, 2> replyTags { 7618, 7620 };

/** @brief Outgoing payloads by destination rank. */
using Outbox = std::map<int, std::vector<std::int64_t>>;

/** @brief Collective: sends @p outbox (one message per rank) and returns what arrived. */
std::vector<mpi::SparseMessage> exchange(MPI_Comm comm, int tag, Outbox& outbox, const char* what)
{
    std::vector<mpi::SparseMessage> outgoing;
    outgoing.reserve(outbox.size());
    for (auto& [rank, data] : outbox)
    {
        outgoing.push_back({ rank, std::move(data) });
    }
    outbox.clear();
    return mpi::sparseExchange(comm, tag, outgoing, what);
}

/**
 * @brief Collective: when some rank has an @p error, every rank throws an Error with the
 * message of the lowest such rank (which names the file and line), so none is left waiting.
 */
void agree(MPI_Comm comm, const std::string& error)
{
    int rank { 0 };
    FIELDSYNC_MPI(MPI_Comm_rank(comm, &rank));
    int failing { error.empty() ? INT_MAX : rank };
    mpi::allReduce(failing, mpi::ReduceOp::Min, comm);
    if (failing == INT_MAX)
    {
        return;
    }
    auto length = static_cast<std::int64_t>(rank == failing ? error.size() : 0);
    FIELDSYNC_MPI(MPI_Bcast(&length, 1, MPI_INT64_T, failing, comm));
    std::string message { rank == failing ? error
                                          : std::string(static_cast<std::size_t>(length), ' ') };
    FIELDSYNC_MPI(MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, failing, comm));
    if (rank != failing)
    {
        message.append(" (found by rank ").append(std::to_string(failing)).append(")");
    }
    throw Error(message);
}

/** @brief Collective: rank 0 scans @p path, every rank gets the scan (or the scan's Error). */
GmshScan broadcastScan(MPI_Comm comm, int rank, const std::string& path)
{
    std::vector<std::int64_t> packed;
    std::string error;
    if (rank == 0)
    {
        try
        {
            packed = GmshScan::read(path).pack();
        }
        catch (const Error& e)
        {
            error = e.message();
        }
    }
    agree(comm, error);
    auto n = static_cast<std::int64_t>(packed.size());
    FIELDSYNC_MPI(MPI_Bcast(&n, 1, MPI_INT64_T, 0, comm));
    packed.resize(static_cast<std::size_t>(n));
    FIELDSYNC_MPI(MPI_Bcast(packed.data(), static_cast<int>(n), MPI_INT64_T, 0, comm));
    return GmshScan::unpack(packed);
}

/** @brief Parses @p n whitespace-separated numbers of @p text into @p out; false if it cannot. */
template<typename T>
bool parse(std::string_view text, T* out, int n)
{
    const char* p { text.data() };
    const char* end { text.data() + text.size() };
    for (int k { 0 }; k < n; ++k)
    {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        {
            ++p;
        }
        const auto [next, ec] = std::from_chars(p, end, out[k]);
        if (ec != std::errc {})
        {
            return false;
        }
        p = next;
    }
    return true;
}

/**
 * @brief This rank's share of the lines of @p blocks: the lines whose first byte lies in
 * [T r / P, T (r+1) / P) of the blocks' T bytes laid end to end. Calls @p fn(line) for each
 * in file order; stops at the first line @p fn refuses and returns an error naming the file,
 * the block's header line and @p what. Reads only the share (plus the rest of the last line).
 */
template<typename Fn>
std::string forShare(
    std::ifstream& in,
    const std::string& path,
    const std::vector<GmshBlock>& blocks,
    std::pair<int, int> rankOf,
    const char* what,
    Fn fn
)
{
    std::int64_t total { 0 };
    for (const GmshBlock& b : blocks)
    {
        total += b.end - b.begin;
    }
    const std::int64_t lo { total * rankOf.first / rankOf.second };
    const std::int64_t hi { total * (rankOf.first + 1) / rankOf.second };
    std::int64_t base { 0 };
    std::string line;
    for (const GmshBlock& b : blocks)
    {
        const std::int64_t from { std::max(lo - base, std::int64_t { 0 }) };
        const std::int64_t to { std::min(hi - base, b.end - b.begin) };
        base += b.end - b.begin;
        if (from >= to)
        {
            continue;
        }
        std::int64_t at { b.begin + from };
        in.clear();
        in.seekg(from > 0 ? at - 1 : at);
        if (from > 0 && in.get() != '\n') // inside a line: it belongs to the share before
        {
            in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
            at += in.gcount();
        }
        while (at < b.begin + to && std::getline(in, line))
        {
            at += static_cast<std::int64_t>(line.size()) + 1;
            if (!fn(std::string_view(line)))
            {
                std::string error { "GmshMesh: " };
                error.append(path).append(": ").append(what).append(" block at line ");
                error.append(std::to_string(b.line)).append(": bad line '").append(line + "'");
                return error;
            }
        }
    }
    return {};
}

/** @brief Collective: the exclusive prefix sum of @p count over the ranks. */
std::int64_t exclusiveSum(MPI_Comm comm, std::int64_t count)
{
    std::int64_t first { 0 };
    FIELDSYNC_MPI(MPI_Exscan(&count, &first, 1, MPI_INT64_T, MPI_SUM, comm));
    int rank { 0 };
    FIELDSYNC_MPI(MPI_Comm_rank(comm, &rank));
    return rank == 0 ? 0 : first;
}

/** @brief Collective: every rank's @p value, then @p last. */
std::vector<std::int64_t> allFirsts(MPI_Comm comm, std::int64_t value, std::int64_t last)
{
    int size { 0 };
    FIELDSYNC_MPI(MPI_Comm_size(comm, &size));
    std::vector<std::int64_t> all(static_cast<std::size_t>(size) + 1, last);
    FIELDSYNC_MPI(MPI_Allgather(&value, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm));
    return all;
}

/** @brief The rank holding index @p k of @p firsts (ascending, firsts.back() the end). */
int rankOfIndex(const std::vector<std::int64_t>& firsts, std::int64_t k)
{
    const auto it = std::upper_bound(firsts.begin(), firsts.end() - 1, k);
    return static_cast<int>(it - firsts.begin()) - 1;
}

/** @brief A node as the directory keeps it. */
struct Node
{
    std::int64_t tag; /**< Gmsh tag */
    std::int64_t k;   /**< position in the file (a later node of the same tag wins) */
    double x;         /**< x */
    double y;         /**< y */
};

/** @brief The directory rank of node tag @p tag: tags in [min, max] split evenly. */
int directoryOf(const GmshScan& scan, int size, std::int64_t tag)
{
    const std::int64_t span { std::max<std::int64_t>(1, scan.maxNodeTag - scan.minNodeTag + 1) };
    const std::int64_t offset { std::clamp<std::int64_t>(tag - scan.minNodeTag, 0, span - 1) };
    return static_cast<int>(static_cast<__int128>(offset) * size / span);
}

/** @brief Appends @p n to a payload as four integers (tag, k, x bits, y bits). */
void appendNode(std::vector<std::int64_t>& out, const Node& n)
{
    out.insert(
        out.end(),
        { n.tag, n.k, std::bit_cast<std::int64_t>(n.x), std::bit_cast<std::int64_t>(n.y) }
    );
}

/** @brief Collective: sends @p outbox of appendNode() payloads; the nodes that arrived. */
std::vector<Node> exchangeNodes(MPI_Comm comm, int tag, Outbox& outbox, const char* what)
{
    std::vector<Node> nodes;
    for (const auto& message : exchange(comm, tag, outbox, what))
    {
        for (std::size_t m { 0 }; m + 3 < message.data.size(); m += 4)
        {
            nodes.push_back({ message.data[m],
                              message.data[m + 1],
                              std::bit_cast<double>(message.data[m + 2]),
                              std::bit_cast<double>(message.data[m + 3]) });
        }
    }
    return nodes;
}
} // namespace

namespace
{
/** @brief Everything the reading steps share. */
struct Reading
{
    MPI_Comm comm;           /**< private communicator */
    int rank;                /**< this rank */
    int size;                /**< ranks */
    const std::string& path; /**< the file */
    std::ifstream& in;       /**< the file, opened on this rank */
    const GmshScan& scan;    /**< where the data lies */
};

/**
 * @brief This rank's share of the lines of @p blocks, @p N numbers of type T from each (the
 * first N of the line); the first bad line's error goes to @p error (left alone when it is
 * set already: nothing is read then).
 */
template<typename T, int N>
std::vector<std::array<T, N>> readShare(
    const Reading& r, const std::vector<GmshBlock>& blocks, const char* what, std::string& error
)
{
    std::vector<std::array<T, N>> values;
    if (error.empty())
    {
        error = forShare(
            r.in,
            r.path,
            blocks,
            { r.rank, r.size },
            what,
            [&values](std::string_view line)
            {
                values.push_back({});
                return parse(line, values.back().data(), N);
            }
        );
    }
    return values;
}

/**
 * @brief Collective: reads this rank's share of the node tags and of the node coordinates,
 * pairs them up (node k's tag goes to the rank that read k's coordinates) and sends each node
 * to its directory rank; returns the nodes this rank is the directory of, by tag (one per tag).
 */
std::vector<Node> readNodes(const Reading& r)
{
    std::string error;
    const auto tags { readShare<std::int64_t, 1>(r, r.scan.nodeTags, "$Nodes", error) };
    const auto xy { readShare<double, 2>(r, r.scan.nodeCoordinates, "$Nodes", error) };
    agree(r.comm, error);
    const std::int64_t firstTag { exclusiveSum(r.comm, static_cast<std::int64_t>(tags.size())) };
    const std::vector<std::int64_t> coordinateFirsts {
        allFirsts(r.comm, exclusiveSum(r.comm, static_cast<std::int64_t>(xy.size())), r.scan.nNodes)
    };
    Outbox pairs;
    for (std::size_t i { 0 }; i < tags.size(); ++i)
    {
        const std::int64_t k { firstTag + static_cast<std::int64_t>(i) };
        auto& out = pairs[rankOfIndex(coordinateFirsts, k)];
        out.insert(out.end(), { k, tags[i][0] });
    }
    const std::int64_t firstXy { coordinateFirsts[static_cast<std::size_t>(r.rank)] };
    std::vector<std::int64_t> tagOf(xy.size(), 0);
    for (const auto& message : exchange(r.comm, pairTag, pairs, "GmshMesh: node tags"))
    {
        for (std::size_t m { 0 }; m + 1 < message.data.size(); m += 2)
        {
            tagOf[static_cast<std::size_t>(message.data[m] - firstXy)] = message.data[m + 1];
        }
    }
    Outbox toDirectory;
    for (std::size_t i { 0 }; i < xy.size(); ++i)
    {
        auto& out = toDirectory[directoryOf(r.scan, r.size, tagOf[i])];
        appendNode(out, { tagOf[i], firstXy + static_cast<std::int64_t>(i), xy[i][0], xy[i][1] });
    }
    std::vector<Node> nodes { exchangeNodes(r.comm, directoryTag, toDirectory, "GmshMesh: nodes") };
    // like the serial reader, a tag given twice means its later node
    std::sort(
        nodes.begin(),
        nodes.end(),
        [](const Node& a, const Node& b) { return a.tag != b.tag ? a.tag < b.tag : a.k > b.k; }
    );
    nodes.erase(
        std::unique(
            nodes.begin(), nodes.end(), [](const Node& a, const Node& b) { return a.tag == b.tag; }
        ),
        nodes.end()
    );
    return nodes;
}

/** @brief Collective: this rank's share of the triangles, as node tags, in file order. */
std::vector<GmshMesh::Cell> readTriangles(const Reading& r)
{
    std::string error;
    const auto lines { readShare<std::int64_t, 4>(r, r.scan.triangles, "$Elements", error) };
    std::vector<GmshMesh::Cell> cells(lines.size());
    for (std::size_t c { 0 }; c < lines.size(); ++c)
    {
        cells[c].tags = { lines[c][1], lines[c][2], lines[c][3] };
        cells[c].neighbours = { -1, -1, -1 };
    }
    agree(r.comm, error);
    return cells;
}

/**
 * @brief Collective: the coordinates of the nodes @p cells use, asked from the directory
 * ranks; an error names a triangle whose node tag no node has.
 */
void fetchPoints(
    const Reading& r,
    const std::vector<Node>& directory,
    std::vector<GmshMesh::Cell>& cells,
    GlobalIndex firstCell
)
{
    std::vector<std::int64_t> used;
    used.reserve(3 * cells.size());
    for (const auto& c : cells)
    {
        used.insert(used.end(), c.tags.begin(), c.tags.end());
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    Outbox asks;
    for (const std::int64_t tag : used)
    {
        asks[directoryOf(r.scan, r.size, tag)].push_back(tag);
    }
    Outbox answers;
    for (const auto& message : exchange(r.comm, askTag, asks, "GmshMesh: node questions"))
    {
        auto& out = answers[message.rank];
        for (const std::int64_t tag : message.data)
        {
            const auto it = std::lower_bound(
                directory.begin(),
                directory.end(),
                tag,
                [](const Node& n, std::int64_t t) { return n.tag < t; }
            );
            const bool found { it != directory.end() && it->tag == tag };
            appendNode(out, { tag, found ? 1 : 0, found ? it->x : 0.0, found ? it->y : 0.0 });
        }
    }
    // k: 1 when the directory has the tag
    std::vector<Node> known { exchangeNodes(r.comm, answerTag, answers, "GmshMesh: node answers") };
    std::sort(
        known.begin(), known.end(), [](const Node& a, const Node& b) { return a.tag < b.tag; }
    );
    std::string error;
    for (std::size_t c { 0 }; c < cells.size() && error.empty(); ++c)
    {
        for (std::size_t v { 0 }; v < 3; ++v)
        {
            const std::int64_t tag { cells[c].tags[v] };
            const auto it = std::lower_bound(
                known.begin(),
                known.end(),
                tag,
                [](const Node& n, std::int64_t t) { return n.tag < t; }
            );
            if (it == known.end() || it->tag != tag || it->k == 0)
            {
                error = "GmshMesh: " + r.path + ": $Elements: triangle ";
                error.append(std::to_string(firstCell + static_cast<GlobalIndex>(c)));
                error.append(" (in file order) uses node ").append(std::to_string(tag));
                error.append(", which $Nodes does not have");
                break;
            }
            cells[c].points[v] = { it->x, it->y, 0.0 };
        }
    }
    agree(r.comm, error);
}
} // namespace

namespace
{
/** @brief An edge as its directory rank sees it. */
struct Edge
{
    std::int64_t low;  /**< smaller node tag */
    std::int64_t high; /**< larger node tag */
    GlobalIndex cell;  /**< the triangle */
    std::int64_t side; /**< its edge number (nodes side, side+1) */
};

/**
 * @brief Collective: the neighbour across each edge of @p cells. Each edge goes to the
 * directory rank of its smaller node tag, which pairs the two triangles that share it and
 * tells their holders (@p firsts: first cell of each rank).
 */
void matchEdges(
    const Reading& r, const std::vector<std::int64_t>& firsts, std::vector<GmshMesh::Cell>& cells
)
{
    const GlobalIndex firstCell { firsts[static_cast<std::size_t>(r.rank)] };
    Outbox edges;
    for (std::size_t c { 0 }; c < cells.size(); ++c)
    {
        for (std::size_t k { 0 }; k < 3; ++k)
        {
            const std::int64_t p { cells[c].tags[k] };
            const std::int64_t q { cells[c].tags[(k + 1) % 3] };
            auto& out = edges[directoryOf(r.scan, r.size, std::min(p, q))];
            out.insert(
                out.end(),
                { std::min(p, q),
                  std::max(p, q),
                  firstCell + static_cast<GlobalIndex>(c),
                  static_cast<std::int64_t>(k) }
            );
        }
    }
    std::vector<Edge> here;
    for (const auto& message : exchange(r.comm, edgeTag, edges, "GmshMesh: edges"))
    {
        for (std::size_t m { 0 }; m + 3 < message.data.size(); m += 4)
        {
            here.push_back(
                { message.data[m], message.data[m + 1], message.data[m + 2], message.data[m + 3] }
            );
        }
    }
    std::sort(
        here.begin(),
        here.end(),
        [](const Edge& a, const Edge& b)
        { return std::tie(a.low, a.high, a.cell) < std::tie(b.low, b.high, b.cell); }
    );
    Outbox sides;
    std::string error;
    for (std::size_t e { 0 }; e + 1 < here.size(); ++e)
    {
        const Edge& a = here[e];
        const Edge& b = here[e + 1];
        if (a.low != b.low || a.high != b.high)
        {
            continue;
        }
        if (e + 2 < here.size() && here[e + 2].low == a.low && here[e + 2].high == a.high &&
            error.empty())
        {
            error = "GmshMesh: " + r.path + ": $Elements: the edge of nodes ";
            error.append(std::to_string(a.low)).append(" and ").append(std::to_string(a.high));
            error.append(" is shared by more than two triangles (").append(std::to_string(a.cell));
            error.append(", ").append(std::to_string(b.cell)).append(", ...)");
        }
        auto& toA = sides[rankOfIndex(firsts, a.cell)];
        toA.insert(toA.end(), { a.cell, a.side, b.cell });
        auto& toB = sides[rankOfIndex(firsts, b.cell)];
        toB.insert(toB.end(), { b.cell, b.side, a.cell });
        ++e;
    }
    for (const auto& message : exchange(r.comm, sideTag, sides, "GmshMesh: neighbours"))
    {
        for (std::size_t m { 0 }; m + 2 < message.data.size(); m += 3)
        {
            auto& cell = cells[static_cast<std::size_t>(message.data[m] - firstCell)];
            cell.neighbours[static_cast<std::size_t>(message.data[m + 1])] = message.data[m + 2];
        }
    }
    agree(r.comm, error);
}
} // namespace

GmshMesh::GmshMesh(const mpi::MPIEnvironment& env, const std::string& path)
    : rank_(env.rank()), path_(path)
{
    FIELDSYNC_MPI(MPI_Comm_dup(env.comm(), &comm_));
    try
    {
        const GmshScan scan { broadcastScan(comm_, rank_, path) };
        nCells_ = scan.nTriangles;
        std::ifstream in(path, std::ios::binary);
        agree(comm_, in.good() ? "" : "GmshMesh: cannot open '" + path + "'");
        const Reading reading { comm_, rank_, env.sizeRank(), path_, in, scan };
        cells_ = readTriangles(reading);
        const std::int64_t first { exclusiveSum(comm_, static_cast<std::int64_t>(cells_.size())) };
        firsts_ = allFirsts(comm_, first, nCells_);
        auto total = static_cast<std::int64_t>(cells_.size());
        mpi::allReduce(total, mpi::ReduceOp::Sum, comm_);
        FIELDSYNC_CHECK(
            total == nCells_,
            "GmshMesh: " + path + ": the ranks read " + std::to_string(total) +
                " triangles, the scan found " + std::to_string(nCells_)
        );
        const std::vector<Node> directory { readNodes(reading) };
        fetchPoints(reading, directory, cells_, first);
        matchEdges(reading, firsts_, cells_);
    }
    catch (...)
    {
        MPI_Comm_free(&comm_);
        throw;
    }
}

GmshMesh::~GmshMesh()
{
    if (comm_ != MPI_COMM_NULL)
    {
        MPI_Comm_free(&comm_);
    }
}

std::string GmshMesh::describe() const
{
    return path_ + ", read in parallel";
}

GlobalIndex GmshMesh::firstCell() const noexcept
{
    return firsts_[static_cast<std::size_t>(rank_)];
}

int GmshMesh::holder(GlobalIndex id) const
{
    return rankOfIndex(firsts_, id);
}

std::vector<PatchCell>
GmshMesh::fetch(std::span<const GlobalIndex> ids, std::vector<GlobalIndex>* neighbours) const
{
    const std::size_t round { neighbours != nullptr ? 0U : 1U };
    std::string error;
    Outbox requests;
    for (const GlobalIndex id : ids)
    {
        if (id < 0 || id >= nCells_)
        {
            error = "GmshMesh::piece: " + path_ + ": cell " + std::to_string(id) +
                    " is not in the mesh (" + std::to_string(nCells_) + " cells)";
            break;
        }
        requests[holder(id)].push_back(id);
    }
    agree(comm_, error);
    Outbox replies;
    for (const auto& message : exchange(comm_, requestTags[round], requests, "GmshMesh: cells"))
    {
        auto& out = replies[message.rank];
        for (const std::int64_t id : message.data)
        {
            const Cell& c = cells_[static_cast<std::size_t>(id - firstCell())];
            out.push_back(id);
            out.insert(out.end(), c.tags.begin(), c.tags.end());
            for (const Point& p : c.points)
            {
                out.insert(
                    out.end(),
                    { std::bit_cast<std::int64_t>(p[0]), std::bit_cast<std::int64_t>(p[1]) }
                );
            }
            out.insert(out.end(), c.neighbours.begin(), c.neighbours.end());
        }
    }
    std::vector<PatchCell> patch;
    patch.reserve(ids.size());
    for (const auto& message : exchange(comm_, replyTags[round], replies, "GmshMesh: cell data"))
    {
        for (std::size_t m { 0 }; m + 12 < message.data.size(); m += 13)
        {
            const std::int64_t* d { message.data.data() + m };
            PatchCell cell { d[0], CellShape::Triangle, {}, {} };
            for (std::size_t v { 0 }; v < 3; ++v)
            {
                cell.nodes[v] = d[1 + v];
                cell.points[v] = { std::bit_cast<double>(d[4 + 2 * v]),
                                   std::bit_cast<double>(d[5 + 2 * v]),
                                   0.0 };
                if (neighbours != nullptr && d[10 + v] >= 0)
                {
                    neighbours->push_back(d[10 + v]);
                }
            }
            patch.push_back(cell);
        }
    }
    return patch;
}

MeshPiece GmshMesh::piece(std::span<const GlobalIndex> ids) const
{
    std::vector<GlobalIndex> around;
    std::vector<PatchCell> patch { fetch(ids, &around) };
    std::sort(around.begin(), around.end());
    around.erase(std::unique(around.begin(), around.end()), around.end());
    std::vector<GlobalIndex> extra;
    std::set_difference(
        around.begin(), around.end(), ids.begin(), ids.end(), std::back_inserter(extra)
    );
    const std::vector<PatchCell> more { fetch(extra, nullptr) };
    patch.insert(patch.end(), more.begin(), more.end());
    return MeshPiece(patch, ids);
}

} // namespace fieldsync::heat
