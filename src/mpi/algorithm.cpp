// SPDX-License-Identifier: MIT
#include "fieldsync/mpi/algorithm.hpp"

namespace fieldsync::mpi
{

const char* toString(Algorithm algorithm) noexcept
{
    switch (algorithm)
    {
    case Algorithm::Native:
        return "Native";
    case Algorithm::BinomialTree:
        return "BinomialTree";
    case Algorithm::ScatterAllGather:
        return "ScatterAllGather";
    case Algorithm::Naive:
        return "Naive";
    case Algorithm::DivideAndConquer:
        return "DivideAndConquer";
    case Algorithm::Ring:
        return "Ring";
    case Algorithm::RecursiveDoubling:
        return "RecursiveDoubling";
    case Algorithm::Rabenseifner:
        return "Rabenseifner";
    case Algorithm::RecursiveHalving:
        return "RecursiveHalving";
    case Algorithm::Cartesian2Step:
        return "Cartesian2Step";
    case Algorithm::Tree3Step:
        return "Tree3Step";
    case Algorithm::NodeAware:
        return "NodeAware";
    }
    return "unknown";
}

} // namespace fieldsync::mpi
