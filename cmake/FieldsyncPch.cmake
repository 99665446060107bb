# Precompiled third-party headers for the library, the tests, the examples and the benchmarks.
#
# Kokkos, MPI, spdlog and Catch2 cost a translation unit several seconds of compile time before
# a line of fieldsync is read, and the test command compiles about 200 translation units for
# each of its builds (doc/notes/performance.md, "Build time of the test command"). Compiling
# those headers once per target kind is the largest single saving there is.
#
#   FIELDSYNC_PCH                        ON by default with GCC or Clang; OFF under nvcc
#   fieldsync_library_pch(<target>)      a library precompiles the third-party headers itself
#   fieldsync_make_pch(<name> ...)       one precompiled header for a kind of program
#   fieldsync_use_pch(<target> <name>)   a program reuses it (tests: fieldsync_test_pch;
#                                        benchmarks: fieldsync_program_pch)
#
# Only third-party and standard headers are precompiled, never fieldsync's own: CMake marks a
# precompiled header as a system header, which would silence the warnings of fieldsync's
# headers (their templates included) in every program, and would let a fieldsync header that
# forgets an include compile.

set(_fs_pch_default ON)
if(CMAKE_CXX_COMPILER MATCHES "nvcc" OR Kokkos_CXX_COMPILER_ID STREQUAL "NVIDIA"
   OR KOKKOS_CXX_COMPILER_ID STREQUAL "NVIDIA" OR NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    set(_fs_pch_default OFF)
endif()
option(FIELDSYNC_PCH "Precompile Kokkos, MPI, spdlog and Catch2 headers once per target kind"
    ${_fs_pch_default})

set(FIELDSYNC_PCH_HEADERS
    <mpi.h> <Kokkos_Core.hpp> <spdlog/spdlog.h>
    <algorithm> <array> <cstdint> <functional> <map> <memory> <optional> <source_location>
    <span> <string> <string_view> <unordered_map> <utility> <vector>)

# fieldsync_library_pch(<target>): <target> precompiles the third-party headers for itself.
function(fieldsync_library_pch target)
    if(FIELDSYNC_PCH)
        target_precompile_headers(${target} PRIVATE ${FIELDSYNC_PCH_HEADERS})
    endif()
endfunction()

# fieldsync_make_pch(<name> [LIBRARIES ...] [HEADERS ...]): one precompiled header for a kind of
# program, built once by an object library <name> with the programs' own flags (fieldsync, its
# warnings and sanitizers, and LIBRARIES, such as the test main with Catch2), holding the
# third-party headers and HEADERS.
function(fieldsync_make_pch name)
    cmake_parse_arguments(ARG "" "" "LIBRARIES;HEADERS" ${ARGN})
    if(NOT FIELDSYNC_PCH OR TARGET ${name})
        return()
    endif()
    set(source ${CMAKE_BINARY_DIR}/${name}.cpp)
    file(WRITE ${source} "// owns a precompiled header (cmake/FieldsyncPch.cmake)\n")
    add_library(${name} OBJECT ${source})
    target_link_libraries(${name} PRIVATE fieldsync::fieldsync fieldsync_warnings ${ARG_LIBRARIES})
    target_precompile_headers(${name} PRIVATE ${FIELDSYNC_PCH_HEADERS} ${ARG_HEADERS})
endfunction()

# fieldsync_use_pch(<target> <name>): <target> reuses the precompiled header <name>; its flags
# must be those <name> was built with (otherwise the compiler warns and reads the headers).
function(fieldsync_use_pch target name)
    if(FIELDSYNC_PCH)
        target_precompile_headers(${target} REUSE_FROM ${name})
    endif()
endfunction()
