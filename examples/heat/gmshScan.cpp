// SPDX-License-Identifier: MIT
#include "gmshScan.hpp"

#include "fieldsync/core/error.hpp"

#include <fstream>
#include <limits>
#include <sstream>

namespace fieldsync::heat
{

namespace
{
/** @brief Reads a file line by line, counting lines and bytes; skips lines without parsing. */
class LineScanner
{
public:
    explicit LineScanner(const std::string& path) : path_(path), in_(path, std::ios::binary)
    {
        FIELDSYNC_CHECK(in_.good(), "GmshScan: cannot open '" + path + "'");
    }

    /** @brief The next line into @p line; false at the end of the file. */
    bool next(std::string& line)
    {
        if (!std::getline(in_, line))
        {
            return false;
        }
        ++lineNo_;
        offset_ += static_cast<std::int64_t>(line.size()) + 1;
        return true;
    }

    /** @brief The next line; an Error at the end of the file. */
    std::string& need()
    {
        FIELDSYNC_CHECK(next(line_), where() + ": unexpected end of file");
        return line_;
    }

    /** @brief Skips @p n lines (as a block of @p what); an Error if the file ends first. */
    GmshBlock skip(std::int64_t n, const char* what, std::int64_t headerLine)
    {
        GmshBlock block { offset_, offset_, n, headerLine };
        for (std::int64_t k { 0 }; k < n; ++k)
        {
            in_.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
            FIELDSYNC_CHECK(
                in_.gcount() > 0,
                where() + ": the file ends inside the " + what + " of the block at line " +
                    std::to_string(headerLine)
            );
            ++lineNo_;
            offset_ += static_cast<std::int64_t>(in_.gcount());
        }
        block.end = offset_;
        return block;
    }

    /** @brief "GmshScan: file:line". */
    [[nodiscard]] std::string where() const
    {
        std::string s { "GmshScan: " };
        s.append(path_).append(":").append(std::to_string(lineNo_));
        return s;
    }

    /** @brief Line number of the last line read. */
    [[nodiscard]] std::int64_t lineNo() const noexcept { return lineNo_; }

private:
    std::string path_;          /**< the file */
    std::ifstream in_;          /**< the stream */
    std::string line_;          /**< need()'s line */
    std::int64_t lineNo_ { 0 }; /**< lines read */
    std::int64_t offset_ { 0 }; /**< bytes read */
};

/** @brief Reads @p n integers from @p text; an Error naming @p what at @p at if it cannot. */
std::vector<std::int64_t>
integers(const std::string& text, int n, const std::string& at, const char* what)
{
    std::istringstream s(text);
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    for (auto& x : v)
    {
        s >> x;
    }
    FIELDSYNC_CHECK(!s.fail(), at + ": bad " + what + " '" + text + "'");
    return v;
}

/** @brief The line after a section's blocks must be its end marker. */
void expectEnd(LineScanner& in, const char* marker)
{
    const std::string& line { in.need() };
    FIELDSYNC_CHECK(
        line.rfind(marker, 0) == 0,
        in.where() + ": expected " + marker +
            " (a block holds more lines than its header says?), " + "got '" + line + "'"
    );
}

/** @brief The $Nodes section, after its marker. */
void scanNodes(LineScanner& in, GmshScan& scan)
{
    const auto header = integers(in.need(), 4, in.where(), "$Nodes header");
    scan.minNodeTag = header[2];
    scan.maxNodeTag = header[3];
    for (std::int64_t b { 0 }; b < header[0]; ++b)
    {
        const auto block = integers(in.need(), 4, in.where(), "node block header");
        FIELDSYNC_CHECK(block[3] >= 0, in.where() + ": negative node count");
        const std::int64_t line { in.lineNo() };
        scan.nodeTags.push_back(in.skip(block[3], "node tags", line));
        scan.nodeCoordinates.push_back(in.skip(block[3], "node coordinates", line));
        scan.nNodes += block[3];
    }
    FIELDSYNC_CHECK(
        scan.nNodes == header[1],
        in.where() + ": the $Nodes header says " + std::to_string(header[1]) +
            " nodes, the blocks hold " + std::to_string(scan.nNodes)
    );
    expectEnd(in, "$EndNodes");
}

/** @brief The $Elements section, after its marker: the triangle blocks, others skipped. */
void scanElements(LineScanner& in, GmshScan& scan)
{
    const auto header = integers(in.need(), 2, in.where(), "$Elements header");
    for (std::int64_t b { 0 }; b < header[0]; ++b)
    {
        const auto block = integers(in.need(), 4, in.where(), "element block header");
        FIELDSYNC_CHECK(block[3] >= 0, in.where() + ": negative element count");
        const GmshBlock lines { in.skip(block[3], "elements", in.lineNo()) };
        if (block[2] == 2) // only 3-node triangles are cells
        {
            scan.triangles.push_back(lines);
            scan.nTriangles += block[3];
        }
    }
    expectEnd(in, "$EndElements");
}
} // namespace

GmshScan GmshScan::read(const std::string& path)
{
    LineScanner in(path);
    GmshScan scan;
    bool formatSeen { false };
    bool nodesSeen { false };
    std::string line;
    while (in.next(line))
    {
        if (line.rfind("$MeshFormat", 0) == 0)
        {
            const std::string format { in.need() };
            std::istringstream s(format);
            double version { 0 };
            int binary { 1 };
            s >> version >> binary;
            FIELDSYNC_CHECK(
                !s.fail() && version >= 4.1 && version < 5.0 && binary == 0,
                in.where() + ": needs Gmsh 4.1 ASCII (version 4.1, file-type 0), got '" + format +
                    "'"
            );
            formatSeen = true;
        }
        else if (line.rfind("$Nodes", 0) == 0)
        {
            FIELDSYNC_CHECK(formatSeen, in.where() + ": $Nodes before $MeshFormat");
            scanNodes(in, scan);
            nodesSeen = true;
        }
        else if (line.rfind("$Elements", 0) == 0)
        {
            FIELDSYNC_CHECK(nodesSeen, in.where() + ": $Elements before $Nodes");
            scanElements(in, scan);
        }
    }
    FIELDSYNC_CHECK(formatSeen, "GmshScan: " + path + ": no $MeshFormat section");
    FIELDSYNC_CHECK(scan.nTriangles > 0, "GmshScan: " + path + ": no triangles");
    return scan;
}

std::vector<std::int64_t> GmshScan::pack() const
{
    std::vector<std::int64_t> out { nNodes, minNodeTag, maxNodeTag, nTriangles };
    for (const auto* blocks : { &nodeTags, &nodeCoordinates, &triangles })
    {
        out.push_back(static_cast<std::int64_t>(blocks->size()));
        for (const GmshBlock& b : *blocks)
        {
            out.insert(out.end(), { b.begin, b.end, b.count, b.line });
        }
    }
    return out;
}

GmshScan GmshScan::unpack(std::span<const std::int64_t> packed)
{
    GmshScan scan;
    scan.nNodes = packed[0];
    scan.minNodeTag = packed[1];
    scan.maxNodeTag = packed[2];
    scan.nTriangles = packed[3];
    std::size_t at { 4 };
    for (auto* blocks : { &scan.nodeTags, &scan.nodeCoordinates, &scan.triangles })
    {
        const auto n = static_cast<std::size_t>(packed[at++]);
        for (std::size_t b { 0 }; b < n; ++b, at += 4)
        {
            blocks->push_back({ packed[at], packed[at + 1], packed[at + 2], packed[at + 3] });
        }
    }
    return scan;
}

} // namespace fieldsync::heat
