// SPDX-License-Identifier: MIT
// CallOptions::matchId: each id of a communicator runs on a private duplicate of its own, made
// the first time the id is used there, after an agreement (timedAllGather.hpp) that every rank
// names the same id; later calls with the id need no communication besides their own.
#include "fieldsync/mpi/matchId.hpp"

#include "timedAllGather.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/mpi/detail/privateComm.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace fieldsync::mpi::detail
{

namespace
{
constexpr std::size_t idWords { 8 };    /**< the id's text (63 bytes kept) */
constexpr std::size_t siteWords { 16 }; /**< the call site (127 bytes kept) */
constexpr std::size_t recordWords { 1 + idWords + siteWords }; /**< hash, id, site */

using Record = std::array<std::int64_t, recordWords>;

/** @brief FNV-1a of @p text, so that ids longer than the text kept still compare exactly. */
std::int64_t hashOf(std::string_view text)
{
    std::uint64_t hash { 0xcbf29ce484222325ULL };
    for (const char c : text)
    {
        hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    }
    return static_cast<std::int64_t>(hash >> 1);
}

/** @brief The last @p words x 8 - 1 bytes of @p text into @p out, zero-terminated. */
void keepText(std::string_view text, std::int64_t* out, std::size_t words)
{
    const std::size_t room { words * sizeof(std::int64_t) - 1 };
    const std::size_t from { text.size() > room ? text.size() - room : 0 };
    std::memcpy(out, text.data() + from, text.size() - from);
}

/** @brief This rank's record: the id's hash and text, and "file:line" of @p where. */
Record recordOf(const MatchId& id, const std::source_location& where)
{
    Record record {};
    record[0] = hashOf(id.shown());
    keepText(id.shown(), &record[1], idWords);
    std::string site { where.file_name() };
    site.append(":").append(std::to_string(where.line()));
    keepText(site, &record[1 + idWords], siteWords);
    return record;
}

/** @brief The text of @p words words at @p at. */
std::string textAt(const std::int64_t* at, std::size_t words)
{
    const char* text { reinterpret_cast<const char*>(at) };
    return { text, strnlen(text, words * sizeof(std::int64_t)) };
}

/** @brief An Error on every rank unless every record of @p all names the id this rank names. */
void compareIds(
    const std::vector<std::int64_t>& all,
    const MatchId& id,
    const char* name,
    const std::source_location& where
)
{
    const std::int64_t mine { hashOf(id.shown()) };
    std::string text;
    std::size_t listed { 0 };
    for (std::size_t r = 0; r < all.size() / recordWords; ++r)
    {
        const std::int64_t* theirs { &all[r * recordWords] };
        if (theirs[0] != mine && listed++ < 8)
        {
            text.append(" rank ").append(std::to_string(r)).append(" used matchId ");
            text.append(textAt(theirs + 1, idWords)).append(" at ");
            text.append(textAt(theirs + 1 + idWords, siteWords)).append(";");
        }
    }
    if (listed > 0)
    {
        std::string message { name };
        message.append(": the first call with matchId ").append(id.shown());
        message.append(" on this communicator is collective over it, and other ranks reached it "
                       "with other ids (a rank uses an id the others do not, or the first uses of "
                       "ids come in different orders; doc/collectives.md):");
        message.append(text).append(" this rank used matchId ").append(id.shown());
        throw Error(message, where);
    }
}
} // namespace

MPI_Comm
matchedComm(MPI_Comm comm, const MatchId& id, const char* name, const std::source_location& where)
{
    if (id.empty())
    {
        return comm;
    }
    PrivateComm& parent { *privateCommOf(comm, where) };
    const auto found = parent.byMatchId.find(id.shown());
    if (found != parent.byMatchId.end())
    {
        return found->second->comm;
    }
    const TimedAllGather how { parent.comm,
                               reservedTag(ReservedTag::MatchIdArrival),
                               static_cast<std::int64_t>(parent.byMatchId.size()) + 1,
                               "fieldsync::mpi first use of a matchId",
                               name,
                               where };
    const Record mine { recordOf(id, where) };
    compareIds(timedAllGather(how, mine), id, name, where);
    auto made = newPrivateDuplicate(parent.comm, where);
    const MPI_Comm madeComm { made->comm };
    parent.byMatchId.emplace(id.shown(), std::move(made));
    return madeComm;
}

} // namespace fieldsync::mpi::detail
