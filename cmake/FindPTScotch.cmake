# Finds PT-Scotch (Debian: libptscotch-dev) and defines the imported target PTScotch::PTScotch
# (libptscotch, libscotch and the error handler libptscotcherr). Never downloads anything.
#   PTScotch_FOUND, PTSCOTCH_INCLUDE_DIR, PTSCOTCH_LIBRARY, SCOTCH_LIBRARY, PTSCOTCHERR_LIBRARY
#
# PT-Scotch is an MPI library: it works only with the MPI it was built against (Debian's is
# built against Open MPI, libmpi.so.40; MPI_Comm is a pointer there and an int in MPICH). When
# MPI has been found first (find_package(MPI)), this module also sets
#   PTScotch_MPI_COMPATIBLE  TRUE when the libmpi that libptscotch needs is one of the MPI
#                            libraries found (compared by SONAME); FALSE otherwise
#   PTScotch_MPI_SONAME      the libmpi SONAME libptscotch needs ("" if it names none)
find_path(PTSCOTCH_INCLUDE_DIR ptscotch.h PATH_SUFFIXES scotch)
find_library(PTSCOTCH_LIBRARY ptscotch)
find_library(SCOTCH_LIBRARY scotch)
find_library(PTSCOTCHERR_LIBRARY ptscotcherr)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PTScotch
    REQUIRED_VARS PTSCOTCH_LIBRARY SCOTCH_LIBRARY PTSCOTCHERR_LIBRARY PTSCOTCH_INCLUDE_DIR)

# the SONAMEs a shared library needs (NEEDED) or has (SONAME), read with objdump
function(_ptscotch_dynamic_entries library kind out)
    set(entries "")
    if(CMAKE_OBJDUMP AND EXISTS "${library}")
        get_filename_component(real "${library}" REALPATH)
        execute_process(COMMAND "${CMAKE_OBJDUMP}" -p "${real}" OUTPUT_VARIABLE dump
            ERROR_QUIET RESULT_VARIABLE rc)
        if(rc EQUAL 0)
            string(REGEX MATCHALL "${kind}[ \t]+[^ \t\n]+" lines "${dump}")
            foreach(line IN LISTS lines)
                string(REGEX REPLACE "${kind}[ \t]+" "" name "${line}")
                list(APPEND entries "${name}")
            endforeach()
        endif()
    endif()
    set(${out} "${entries}" PARENT_SCOPE)
endfunction()

if(PTScotch_FOUND)
    _ptscotch_dynamic_entries("${PTSCOTCH_LIBRARY}" NEEDED _ptscotch_needed)
    set(PTScotch_MPI_SONAME "")
    foreach(name IN LISTS _ptscotch_needed)
        if(name MATCHES "^libmpi")
            set(PTScotch_MPI_SONAME "${name}")
        endif()
    endforeach()
    if(MPI_FOUND OR MPI_CXX_FOUND)
        set(_mpi_sonames "")
        foreach(library IN LISTS MPI_C_LIBRARIES MPI_CXX_LIBRARIES)
            _ptscotch_dynamic_entries("${library}" SONAME _soname)
            list(APPEND _mpi_sonames ${_soname})
        endforeach()
        if(PTScotch_MPI_SONAME STREQUAL "" OR PTScotch_MPI_SONAME IN_LIST _mpi_sonames)
            set(PTScotch_MPI_COMPATIBLE TRUE)
        else()
            set(PTScotch_MPI_COMPATIBLE FALSE)
        endif()
    endif()
endif()

if(PTScotch_FOUND AND NOT TARGET PTScotch::PTScotch)
    add_library(PTScotch::PTScotch INTERFACE IMPORTED)
    set_target_properties(PTScotch::PTScotch PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${PTSCOTCH_INCLUDE_DIR}"
        INTERFACE_LINK_LIBRARIES "${PTSCOTCH_LIBRARY};${SCOTCH_LIBRARY};${PTSCOTCHERR_LIBRARY}")
endif()
mark_as_advanced(PTSCOTCH_INCLUDE_DIR PTSCOTCH_LIBRARY SCOTCH_LIBRARY PTSCOTCHERR_LIBRARY)
