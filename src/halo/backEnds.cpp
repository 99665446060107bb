// SPDX-License-Identifier: MIT
// The registry of exchange back ends, and the choice of one at commit by CommitOptions::backEnd
// or FIELDSYNC_HALO_BACKEND. A back end is one file defining its BackEndEntry; adding one adds
// its line to the registry below (doc/architecture.md, "Adding a back end").
#include "backEnds.hpp"

#include "fieldsync/core/error.hpp"
#include "fieldsync/core/settings.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace fieldsync::halo
{

// The registry: each back end's entry, defined in its own file, and its place in the table.
// FIELDSYNC_HALO_BACKEND's names are listed and BackEnd::Auto times the back ends in the table's
// order (Auto keeps the first unless another is clearly faster).
extern const BackEndEntry pointToPointBackEnd;        // pointToPoint.cpp
extern const BackEndEntry neighbourCollectiveBackEnd; // neighbourCollective.cpp
extern const BackEndEntry persistentNeighbourBackEnd; // persistentNeighbour.cpp
namespace
{
constexpr std::array registry {
    &pointToPointBackEnd,
    &neighbourCollectiveBackEnd,
    &persistentNeighbourBackEnd,
};

/** @brief The first line of MPI_Get_library_version ("MPICH Version: 4.0.2"). */
std::string mpiLibrary()
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING] {};
    int length { 0 };
    MPI_Get_library_version(text, &length);
    std::string library(text, static_cast<std::size_t>(std::max(length, 0)));
    return library.substr(0, library.find_first_of("\n\r"));
}

/** @brief "p2p, neighbour, ..." (@p available only: those available), then ", auto". */
std::string namesOf(bool availableOnly)
{
    std::string names;
    for (const BackEndEntry* entry : registry)
    {
        if (!availableOnly || entry->available())
        {
            names.append(entry->name).append(", ");
        }
    }
    return names + "auto";
}
} // namespace

std::span<const BackEndEntry* const> backEnds() noexcept
{
    return registry;
}

const char* toString(BackEnd backEnd) noexcept
{
    for (const BackEndEntry* entry : registry)
    {
        if (entry->value == backEnd)
        {
            return entry->typeName;
        }
    }
    return backEnd == BackEnd::Auto ? "Auto" : "unknown";
}

const BackEndEntry* chooseBackEnd(const CommitOptions& options, const std::source_location& where)
{
    const std::string fromEnvironment = envString("FIELDSYNC_HALO_BACKEND", "p2p");
    if (!options.backEnd && fromEnvironment == "auto")
    {
        return nullptr;
    }
    const BackEndEntry* chosen { nullptr };
    for (const BackEndEntry* entry : registry)
    {
        const bool asked =
            options.backEnd ? *options.backEnd == entry->value : fromEnvironment == entry->name;
        chosen = asked ? entry : chosen;
    }
    if (options.backEnd == BackEnd::Auto)
    {
        return nullptr;
    }
    FIELDSYNC_CHECK_AT(
        chosen != nullptr,
        options.backEnd
            ? "CommitOptions::backEnd = " + std::to_string(static_cast<int>(*options.backEnd)) +
                  " is no registered back end"
            : "FIELDSYNC_HALO_BACKEND='" + fromEnvironment + "' is none of " + namesOf(false),
        where
    );
    if (!chosen->available())
    {
        std::string setting = options.backEnd
                                  ? std::string("CommitOptions::backEnd = ") + chosen->typeName
                                  : "FIELDSYNC_HALO_BACKEND=" + fromEnvironment;
        throw Error(
            setting.append(" asks for ")
                .append(chosen->needs)
                .append(", which the MPI library fieldsync was built with does not have (")
                .append(mpiLibrary())
                .append("); use ")
                .append(namesOf(true))
                .append(", or build fieldsync with an MPI library that has it"),
            where
        );
    }
    return chosen;
}

} // namespace fieldsync::halo
