# fieldsync_find_petsc(): PETSc for the peer columns of the benchmarks, optional. Found with
# pkg-config (module PETSc, as Debian's petsc-dev installs it); nothing is downloaded. Used only
# when PETSc was built with the same MPI flavour as this build (its pkg-config file lists its
# MPI libraries): a PETSc of Open MPI in an MPICH build would mix two MPI libraries in one
# process. Sets FIELDSYNC_HAVE_PETSC (and the imported target PkgConfig::FIELDSYNC_PETSC).
function(fieldsync_find_petsc)
    set(FIELDSYNC_HAVE_PETSC OFF PARENT_SCOPE)
    find_package(PkgConfig QUIET)
    if(NOT PKG_CONFIG_FOUND)
        message(STATUS "fieldsync: PETSc not searched (no pkg-config); benchmarks without PETSc")
        return()
    endif()
    pkg_check_modules(FIELDSYNC_PETSC QUIET IMPORTED_TARGET PETSc)
    if(NOT FIELDSYNC_PETSC_FOUND)
        message(STATUS "fieldsync: PETSc not found; benchmarks without PETSc")
        return()
    endif()
    set(_fs_petsc_libs "${FIELDSYNC_PETSC_STATIC_LIBRARIES}")
    if(_fs_petsc_libs MATCHES "open-pal|open-rte")
        set(_fs_petsc_mpi "openmpi")
    elseif(_fs_petsc_libs MATCHES "mpich")
        set(_fs_petsc_mpi "mpich")
    else()
        set(_fs_petsc_mpi "unknown")
    endif()
    if(NOT _fs_petsc_mpi STREQUAL FIELDSYNC_MPI_FLAVOUR)
        message(STATUS "fieldsync: PETSc ${FIELDSYNC_PETSC_VERSION} uses ${_fs_petsc_mpi} MPI, "
            "this build ${FIELDSYNC_MPI_FLAVOUR}; benchmarks without PETSc")
        return()
    endif()
    # Debian's pkg-config file adds its own build's hardening flags (-D_FORTIFY_SOURCE=2,
    # -Wdate-time); with them the benchmarks' precompiled header, made without, is not used.
    get_target_property(_fs_options PkgConfig::FIELDSYNC_PETSC INTERFACE_COMPILE_OPTIONS)
    if(_fs_options)
        list(FILTER _fs_options EXCLUDE REGEX "_FORTIFY_SOURCE|^-Wdate-time$")
        set_target_properties(PkgConfig::FIELDSYNC_PETSC PROPERTIES INTERFACE_COMPILE_OPTIONS "${_fs_options}")
    endif()
    message(STATUS "fieldsync: PETSc ${FIELDSYNC_PETSC_VERSION} found; benchmarks compare with PetscSF")
    set(FIELDSYNC_HAVE_PETSC ON PARENT_SCOPE)
endfunction()
