# Finds Zoltan (Debian: libtrilinos-zoltan-dev, headers in /usr/include/trilinos, library
# libtrilinos_zoltan) and defines the imported target Zoltan::Zoltan. Never downloads anything.
#   Zoltan_FOUND, ZOLTAN_INCLUDE_DIR, ZOLTAN_LIBRARY
#
# Zoltan is an MPI library: it works only with the MPI it was built against (Debian's is built
# against Open MPI, libmpi.so.40). When MPI has been found first (find_package(MPI)), this
# module also sets
#   Zoltan_MPI_COMPATIBLE  TRUE when the libmpi that libzoltan needs is one of the MPI libraries
#                          found (compared by SONAME); FALSE otherwise
#   Zoltan_MPI_SONAME      the libmpi SONAME libzoltan needs ("" if it names none)
find_path(ZOLTAN_INCLUDE_DIR zoltan.h PATH_SUFFIXES trilinos zoltan)
find_library(ZOLTAN_LIBRARY NAMES zoltan trilinos_zoltan)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Zoltan REQUIRED_VARS ZOLTAN_LIBRARY ZOLTAN_INCLUDE_DIR)

include("${CMAKE_CURRENT_LIST_DIR}/FieldsyncLibraryMpi.cmake")
if(Zoltan_FOUND)
    fieldsync_library_mpi("${ZOLTAN_LIBRARY}" Zoltan)
endif()

if(Zoltan_FOUND AND NOT TARGET Zoltan::Zoltan)
    add_library(Zoltan::Zoltan INTERFACE IMPORTED)
    set_target_properties(Zoltan::Zoltan PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${ZOLTAN_INCLUDE_DIR}"
        INTERFACE_LINK_LIBRARIES "${ZOLTAN_LIBRARY}")
endif()
mark_as_advanced(ZOLTAN_INCLUDE_DIR ZOLTAN_LIBRARY)
