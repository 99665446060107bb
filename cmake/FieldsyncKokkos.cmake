# Finds Kokkos and repairs the Debian package's target.
#
# Debian's libtrilinos-kokkos-dev (Kokkos 3.4 inside Trilinos 13.2) installs its config under
# /usr/lib/<triplet>/cmake/Kokkos and computes its include directory as <that>/../../../include,
# that is /usr/lib/include, which does not exist; the headers are in Kokkos_INCLUDE_DIRS
# (/usr/include/trilinos). We replace a missing include directory of Kokkos::kokkos with the one
# the package reports, without touching the system. Any other Kokkos (for example 4.x with CUDA
# at Kokkos_ROOT) has a correct target and passes through unchanged.
#
# This file is installed with fieldsync and included by fieldsyncConfig.cmake, so an outside
# project gets the same repair.

include(CMakeFindDependencyMacro)

macro(fieldsync_find_kokkos)
    if(NOT TARGET Kokkos::kokkos)
        find_dependency(Kokkos)
    endif()
    get_target_property(_fs_kokkos_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
    set(_fs_kokkos_fixed "")
    set(_fs_kokkos_broken FALSE)
    if(_fs_kokkos_inc)
        foreach(_fs_dir IN LISTS _fs_kokkos_inc)
            if(_fs_dir MATCHES "^\\$<" OR EXISTS "${_fs_dir}")
                list(APPEND _fs_kokkos_fixed "${_fs_dir}")
            else()
                set(_fs_kokkos_broken TRUE)
            endif()
        endforeach()
    endif()
    if(_fs_kokkos_broken)
        foreach(_fs_dir IN LISTS Kokkos_INCLUDE_DIRS)
            get_filename_component(_fs_dir "${_fs_dir}" REALPATH)
            if(EXISTS "${_fs_dir}/Kokkos_Core.hpp")
                list(APPEND _fs_kokkos_fixed "${_fs_dir}")
            endif()
        endforeach()
        if(NOT _fs_kokkos_fixed)
            message(FATAL_ERROR "fieldsync: Kokkos::kokkos names a missing include directory "
                "(${_fs_kokkos_inc}) and Kokkos_INCLUDE_DIRS (${Kokkos_INCLUDE_DIRS}) has no Kokkos_Core.hpp")
        endif()
        set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_fs_kokkos_fixed}")
        # Trilinos links the libraries by bare target name; keep the headers out of warnings.
        set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_fs_kokkos_fixed}")
        if(NOT _fieldsync_kokkos_reported)
            message(STATUS "fieldsync: repaired Kokkos::kokkos include directory -> ${_fs_kokkos_fixed}")
            set(_fieldsync_kokkos_reported TRUE)
        endif()
    endif()
    unset(_fs_kokkos_inc)
    unset(_fs_kokkos_fixed)
    unset(_fs_kokkos_broken)
endmacro()
