// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Complex.hpp>
#include <mpi.h>

namespace fieldsync::mpi
{

/**
 * @brief A value and an index, the element type of ReduceOp::MinLoc / MaxLoc.
 * Laid out as MPI's pair types (MPI_DOUBLE_INT, ...) expect.
 */
template<typename T>
struct ValueIndex
{
    T value;   /**< the value compared */
    int index; /**< carried with it (for example a rank or a cell id) */
};

namespace detail
{

/** @brief What kind of values a type holds; decides which ReduceOps are defined on it. */
enum class TypeClass
{
    Integer,  /**< signed/unsigned integers and char: every op but MinLoc/MaxLoc */
    Floating, /**< float, double, long double: Sum, Prod, Min, Max */
    Complex,  /**< complex numbers: Sum, Prod */
    Logical,  /**< bool: LAnd, LOr, LXor */
    Pair      /**< ValueIndex<T>: MinLoc, MaxLoc */
};

/**
 * @brief Maps a scalar type to its predefined MPI datatype. Specialised for every arithmetic
 * type, bool, char, std::complex / Kokkos::complex of float and double, and ValueIndex<T>.
 * The primary template has no members, so `ScalarTraits<T>::datatype()` only exists for
 * supported types.
 */
template<typename T>
struct ScalarTraits
{
};

#define FIELDSYNC_DETAIL_SCALAR(Type, MpiType, Class)                                              \
    template<>                                                                                     \
    struct ScalarTraits<Type>                                                                      \
    {                                                                                              \
        static MPI_Datatype datatype() noexcept { return MpiType; }                                \
        static constexpr TypeClass typeClass = TypeClass::Class;                                   \
    };

FIELDSYNC_DETAIL_SCALAR(
    char, (std::is_signed_v<char> ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR), Integer
)
FIELDSYNC_DETAIL_SCALAR(signed char, MPI_SIGNED_CHAR, Integer)
FIELDSYNC_DETAIL_SCALAR(unsigned char, MPI_UNSIGNED_CHAR, Integer)
FIELDSYNC_DETAIL_SCALAR(short, MPI_SHORT, Integer)
FIELDSYNC_DETAIL_SCALAR(unsigned short, MPI_UNSIGNED_SHORT, Integer)
FIELDSYNC_DETAIL_SCALAR(int, MPI_INT, Integer)
FIELDSYNC_DETAIL_SCALAR(unsigned int, MPI_UNSIGNED, Integer)
FIELDSYNC_DETAIL_SCALAR(long, MPI_LONG, Integer)
FIELDSYNC_DETAIL_SCALAR(unsigned long, MPI_UNSIGNED_LONG, Integer)
FIELDSYNC_DETAIL_SCALAR(long long, MPI_LONG_LONG, Integer)
FIELDSYNC_DETAIL_SCALAR(unsigned long long, MPI_UNSIGNED_LONG_LONG, Integer)
FIELDSYNC_DETAIL_SCALAR(float, MPI_FLOAT, Floating)
FIELDSYNC_DETAIL_SCALAR(double, MPI_DOUBLE, Floating)
FIELDSYNC_DETAIL_SCALAR(long double, MPI_LONG_DOUBLE, Floating)
FIELDSYNC_DETAIL_SCALAR(bool, MPI_CXX_BOOL, Logical)
FIELDSYNC_DETAIL_SCALAR(std::complex<float>, MPI_CXX_FLOAT_COMPLEX, Complex)
FIELDSYNC_DETAIL_SCALAR(std::complex<double>, MPI_CXX_DOUBLE_COMPLEX, Complex)
FIELDSYNC_DETAIL_SCALAR(std::complex<long double>, MPI_CXX_LONG_DOUBLE_COMPLEX, Complex)
// wchar_t reduces as the integer of its size (MPI_WCHAR takes no reduction); getType<wchar_t>()
// gives MPI_WCHAR, as NeoN
FIELDSYNC_DETAIL_SCALAR(
    wchar_t,
    (std::is_signed_v<wchar_t> ? (sizeof(wchar_t) == 4 ? MPI_INT32_T : MPI_INT16_T)
                               : (sizeof(wchar_t) == 4 ? MPI_UINT32_T : MPI_UINT16_T)),
    Integer
)
FIELDSYNC_DETAIL_SCALAR(Kokkos::complex<float>, MPI_CXX_FLOAT_COMPLEX, Complex)
FIELDSYNC_DETAIL_SCALAR(Kokkos::complex<double>, MPI_CXX_DOUBLE_COMPLEX, Complex)
FIELDSYNC_DETAIL_SCALAR(ValueIndex<float>, MPI_FLOAT_INT, Pair)
FIELDSYNC_DETAIL_SCALAR(ValueIndex<double>, MPI_DOUBLE_INT, Pair)
FIELDSYNC_DETAIL_SCALAR(ValueIndex<long double>, MPI_LONG_DOUBLE_INT, Pair)
FIELDSYNC_DETAIL_SCALAR(ValueIndex<int>, MPI_2INT, Pair)
FIELDSYNC_DETAIL_SCALAR(ValueIndex<long>, MPI_LONG_INT, Pair)
FIELDSYNC_DETAIL_SCALAR(ValueIndex<short>, MPI_SHORT_INT, Pair)

#undef FIELDSYNC_DETAIL_SCALAR

} // namespace detail

/** @brief True for types with a predefined MPI datatype (see detail::ScalarTraits). */
template<typename T>
concept MpiScalar = requires
{
    detail::ScalarTraits<std::remove_cv_t<T>>::datatype();
};

/**
 * @brief Fixed-size aggregates of one scalar type (std::array<T, N>, or a struct registered
 * with FIELDSYNC_REGISTER_AGGREGATE). They travel and reduce as N consecutive scalars, so every
 * op of the element type works element by element.
 */
template<typename T>
struct AggregateTraits
{
    static constexpr bool registered = false; /**< not an aggregate */
};

/** @brief std::array<T, N> is an aggregate of N T's. */
template<typename T, std::size_t N>
struct AggregateTraits<std::array<T, N>>
{
    static constexpr bool registered = true;          /**< is an aggregate */
    using element_type = T;                           /**< element scalar type */
    static constexpr int count = static_cast<int>(N); /**< elements per value */
};

/**
 * @brief Registers a struct of @p N consecutive @p Element values (say a Vec3 of doubles) as an
 * MPI aggregate. Use once at namespace scope, outside any namespace. The size and layout are
 * checked at compile time.
 */
#define FIELDSYNC_REGISTER_AGGREGATE(Type, Element, N)                                             \
    template<>                                                                                     \
    struct fieldsync::mpi::AggregateTraits<Type>                                                   \
    {                                                                                              \
        static_assert(                                                                             \
            sizeof(Type) == sizeof(Element) * (N) && std::is_trivially_copyable_v<Type>,           \
            "FIELDSYNC_REGISTER_AGGREGATE: " #Type " must be " #N " consecutive " #Element         \
            " values, trivially copyable, without padding"                                         \
        );                                                                                         \
        static constexpr bool registered = true;                                                   \
        using element_type = Element;                                                              \
        static constexpr int count = (N);                                                          \
    };

/** @brief A registered aggregate whose element is an MPI scalar. */
template<typename T>
concept MpiAggregate = AggregateTraits<std::remove_cv_t<T>>::registered &&
    MpiScalar<typename AggregateTraits<std::remove_cv_t<T>>::element_type>;

/** @brief Every type fieldsync can hand to MPI. */
template<typename T>
concept MpiCompatible = MpiScalar<T> || MpiAggregate<T>;

namespace detail
{
template<typename T>
constexpr void requireMpiCompatible()
{
    static_assert(
        MpiCompatible<T>,
        "fieldsync: this type has no MPI datatype. Use an arithmetic type, bool, char, "
        "std::complex/Kokkos::complex of float or double, fieldsync::mpi::ValueIndex<T>, "
        "std::array<T, N>, or register a struct of N equal scalars with "
        "FIELDSYNC_REGISTER_AGGREGATE(Type, Element, N)"
    );
}

/**
 * @brief How a T goes to MPI: as `multiplicity` consecutive values of the predefined
 * `datatype`. Scalars have multiplicity 1. A compile-time error names the fix for an
 * unsupported T.
 */
template<typename T>
struct MpiTypeInfo
{
    /** @brief The predefined element datatype. */
    static MPI_Datatype datatype() noexcept
    {
        detail::requireMpiCompatible<T>();
        if constexpr (MpiScalar<T>)
        {
            return ScalarTraits<std::remove_cv_t<T>>::datatype();
        }
        else if constexpr (MpiAggregate<T>)
        {
            return ScalarTraits<
                typename AggregateTraits<std::remove_cv_t<T>>::element_type>::datatype();
        }
        else
        {
            return MPI_DATATYPE_NULL; // not reached: requireMpiCompatible stopped the build
        }
    }

    /** @brief Number of element datatypes per T. */
    static constexpr int multiplicity()
    {
        detail::requireMpiCompatible<T>();
        if constexpr (MpiScalar<T>)
        {
            return 1;
        }
        else if constexpr (MpiAggregate<T>)
        {
            return AggregateTraits<std::remove_cv_t<T>>::count;
        }
        else
        {
            return 0; // not reached: requireMpiCompatible stopped the build
        }
    }

    /** @brief The TypeClass of T's elements (decides which ops are valid). */
    static constexpr TypeClass typeClass()
    {
        detail::requireMpiCompatible<T>();
        if constexpr (MpiScalar<T>)
        {
            return ScalarTraits<std::remove_cv_t<T>>::typeClass;
        }
        else if constexpr (MpiAggregate<T>)
        {
            return ScalarTraits<
                typename AggregateTraits<std::remove_cv_t<T>>::element_type>::typeClass;
        }
        else
        {
            return TypeClass {}; // not reached: requireMpiCompatible stopped the build
        }
    }
};

} // namespace detail

/**
 * @brief The seed's and NeoN's getType<T>(): the MPI datatype of one T, for point-to-point
 * messages. For scalars the predefined type, with NeoN's answers for characters: char gives
 * MPI_CHAR and wchar_t MPI_WCHAR (MPI's character types, which take no reduction; fieldsync's
 * collectives reduce char as MPI_SIGNED_CHAR or MPI_UNSIGNED_CHAR and wchar_t as the integer of
 * its size, through detail::MpiTypeInfo). For aggregates a contiguous derived type, created and
 * committed once per process and freed when MPI is finalised. constexpr as NeoN declares it; a
 * constant only where the MPI library's handles are constants (MPICH, not Open MPI).
 */
template<typename T>
constexpr MPI_Datatype getType();

namespace detail
{
/** @brief A committed MPI_Type_contiguous(count, element), cached per (element, count). */
MPI_Datatype contiguousType(MPI_Datatype element, int count);
} // namespace detail

template<typename T>
constexpr MPI_Datatype getType()
{
    detail::requireMpiCompatible<T>();
    if constexpr (std::is_same_v<std::remove_cv_t<T>, char>)
    {
        return MPI_CHAR;
    }
    else if constexpr (std::is_same_v<std::remove_cv_t<T>, wchar_t>)
    {
        return MPI_WCHAR;
    }
    else if constexpr (MpiScalar<T>)
    {
        return detail::MpiTypeInfo<T>::datatype();
    }
    else
    {
        return detail::contiguousType(
            detail::MpiTypeInfo<T>::datatype(), detail::MpiTypeInfo<T>::multiplicity()
        );
    }
}

} // namespace fieldsync::mpi
