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

include("${CMAKE_CURRENT_LIST_DIR}/FieldsyncLibraryMpi.cmake")
if(PTScotch_FOUND)
    fieldsync_library_mpi("${PTSCOTCH_LIBRARY}" PTScotch)
endif()

if(PTScotch_FOUND AND NOT TARGET PTScotch::PTScotch)
    add_library(PTScotch::PTScotch INTERFACE IMPORTED)
    set_target_properties(PTScotch::PTScotch PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${PTSCOTCH_INCLUDE_DIR}"
        INTERFACE_LINK_LIBRARIES "${PTSCOTCH_LIBRARY};${SCOTCH_LIBRARY};${PTSCOTCHERR_LIBRARY}")
endif()
mark_as_advanced(PTSCOTCH_INCLUDE_DIR PTSCOTCH_LIBRARY SCOTCH_LIBRARY PTSCOTCHERR_LIBRARY)
