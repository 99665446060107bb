# fieldsync_find_tpetra(): Trilinos Tpetra for the peer columns of the benchmarks, optional.
# Debian's libtrilinos-tpetra-dev (with the Teuchos, KokkosKernels and Epetra -dev packages) has
# a TpetraConfig.cmake whose targets carry no include directories and which includes Kokkos's
# config a second time; it is not used. The headers and libraries are found directly instead,
# beside the Kokkos this build already uses (the same Trilinos). Used only when Trilinos was
# built with the same MPI flavour as this build (the libraries its communicator library links),
# for the reason FieldsyncPETSc.cmake gives. Nothing is downloaded. Sets FIELDSYNC_HAVE_TPETRA
# and the interface target fieldsync_tpetra.
function(fieldsync_find_tpetra)
    set(FIELDSYNC_HAVE_TPETRA OFF PARENT_SCOPE)
    if(TARGET fieldsync_tpetra)
        set(FIELDSYNC_HAVE_TPETRA ON PARENT_SCOPE)
        return()
    endif()
    find_path(FIELDSYNC_TPETRA_INCLUDE_DIR Tpetra_Import.hpp PATH_SUFFIXES trilinos)
    set(_fs_names tpetra tpetraclassic kokkoskernels teuchoskokkoscomm teuchoskokkoscompat
        teuchoscomm teuchosparameterlist teuchosparser teuchoscore)
    set(_fs_libraries "")
    foreach(_fs_name IN LISTS _fs_names)
        find_library(FIELDSYNC_TPETRA_LIB_${_fs_name} trilinos_${_fs_name})
        if(NOT FIELDSYNC_TPETRA_LIB_${_fs_name})
            message(STATUS "fieldsync: Tpetra not found (no trilinos_${_fs_name}); benchmarks without Tpetra")
            return()
        endif()
        list(APPEND _fs_libraries "${FIELDSYNC_TPETRA_LIB_${_fs_name}}")
    endforeach()
    if(NOT FIELDSYNC_TPETRA_INCLUDE_DIR)
        message(STATUS "fieldsync: Tpetra not found (no Tpetra_Import.hpp); benchmarks without Tpetra")
        return()
    endif()
    find_program(_fs_ldd ldd)
    set(_fs_tpetra_mpi "unknown")
    if(_fs_ldd)
        execute_process(COMMAND ${_fs_ldd} "${FIELDSYNC_TPETRA_LIB_teuchoscomm}"
            OUTPUT_VARIABLE _fs_deps ERROR_QUIET)
        if(_fs_deps MATCHES "libmpich")
            set(_fs_tpetra_mpi "mpich")
        elseif(_fs_deps MATCHES "libmpi\\.so")
            set(_fs_tpetra_mpi "openmpi")
        endif()
    endif()
    if(NOT _fs_tpetra_mpi STREQUAL FIELDSYNC_MPI_FLAVOUR)
        message(STATUS "fieldsync: Tpetra uses ${_fs_tpetra_mpi} MPI, this build "
            "${FIELDSYNC_MPI_FLAVOUR}; benchmarks without Tpetra")
        return()
    endif()
    add_library(fieldsync_tpetra INTERFACE)
    target_include_directories(fieldsync_tpetra SYSTEM INTERFACE "${FIELDSYNC_TPETRA_INCLUDE_DIR}")
    target_link_libraries(fieldsync_tpetra INTERFACE ${_fs_libraries} Kokkos::kokkos MPI::MPI_CXX)
    message(STATUS "fieldsync: Tpetra found; benchmarks compare with Tpetra's Import")
    set(FIELDSYNC_HAVE_TPETRA ON PARENT_SCOPE)
endfunction()
