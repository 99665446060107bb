# Which MPI a prebuilt MPI library (PT-Scotch, Zoltan) was linked against, so that a find module
# can tell whether it works with the MPI of this build. Debian builds those libraries against
# Open MPI (libmpi.so.40; MPI_Comm is a pointer there and an int in MPICH).

# the SONAMEs a shared library needs (NEEDED) or has (SONAME), read with objdump
function(fieldsync_dynamic_entries library kind out)
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

# <prefix>_MPI_SONAME: the libmpi SONAME @library needs ("" if it names none);
# <prefix>_MPI_COMPATIBLE (only when MPI was found first): TRUE when that SONAME is one of the
# MPI libraries found (or none is named), FALSE otherwise
function(fieldsync_library_mpi library prefix)
    fieldsync_dynamic_entries("${library}" NEEDED needed)
    set(soname "")
    foreach(name IN LISTS needed)
        if(name MATCHES "^libmpi")
            set(soname "${name}")
        endif()
    endforeach()
    set(${prefix}_MPI_SONAME "${soname}" PARENT_SCOPE)
    if(MPI_FOUND OR MPI_CXX_FOUND)
        set(mpi_sonames "")
        foreach(mpi_library IN LISTS MPI_C_LIBRARIES MPI_CXX_LIBRARIES)
            fieldsync_dynamic_entries("${mpi_library}" SONAME mpi_soname)
            list(APPEND mpi_sonames ${mpi_soname})
        endforeach()
        if(soname STREQUAL "" OR soname IN_LIST mpi_sonames)
            set(${prefix}_MPI_COMPATIBLE TRUE PARENT_SCOPE)
        else()
            set(${prefix}_MPI_COMPATIBLE FALSE PARENT_SCOPE)
        endif()
    endif()
endfunction()
