# fieldsync_add_mpi_test(<name> SOURCES ... [RANKS 1 2 3 4] [TIMEOUT s] [LIBRARIES ...]
#                        [ENVIRONMENT VAR=value ...])
#
# Builds one Catch2 test executable and registers it with CTest once per rank count, as
# <name>.np<N>, each run under mpiexec with a time-out. More ranks than cores is allowed
# (Open MPI gets --oversubscribe; MPICH's hydra allows it already). Each test reserves N
# processors, so `ctest -j` never runs more ranks at once than it was given.

execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _fs_mpiexec_version
    ERROR_VARIABLE _fs_mpiexec_version RESULT_VARIABLE _fs_rc)
set(FIELDSYNC_MPIEXEC_FLAGS "" CACHE STRING "Extra mpiexec flags for tests")
set(FIELDSYNC_TEST_ENVIRONMENT "FIELDSYNC_LOG_LEVEL=warn")
if(_fs_mpiexec_version MATCHES "Open MPI|OpenRTE")
    set(FIELDSYNC_MPI_FLAVOUR "openmpi")
    list(APPEND FIELDSYNC_TEST_MPIEXEC_FLAGS --oversubscribe)
    list(APPEND FIELDSYNC_TEST_ENVIRONMENT OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1)
else()
    set(FIELDSYNC_MPI_FLAVOUR "mpich")
endif()
# Fault injection for the whole suite (doc/reliability.md): FIELDSYNC_FAULTS for every test that
# sets none itself. FIELDSYNC_TEST_FAULTS_UNSTAGED is the same without random staging, for the
# tests that count allocations (random staging switches an exchange between in place and packed,
# and the first packed exchange of a key builds its index arrays; the first staged collective
# sets up the staging pool) and for those that need a send in place.
set(FIELDSYNC_TEST_FAULTS "" CACHE STRING
    "FIELDSYNC_FAULTS for every test that sets none itself (seed:N[,...]); empty: none")
set(FIELDSYNC_TEST_FAULTS_UNSTAGED "")
if(FIELDSYNC_TEST_FAULTS)
    list(APPEND FIELDSYNC_TEST_ENVIRONMENT FIELDSYNC_FAULTS=${FIELDSYNC_TEST_FAULTS})
    set(FIELDSYNC_TEST_FAULTS_UNSTAGED FIELDSYNC_FAULTS=${FIELDSYNC_TEST_FAULTS},staging:0)
    message(STATUS "fieldsync: tests run with FIELDSYNC_FAULTS=${FIELDSYNC_TEST_FAULTS}")
endif()
if(FIELDSYNC_SANITIZE)
    list(APPEND FIELDSYNC_TEST_ENVIRONMENT ASAN_OPTIONS=detect_leaks=0
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
endif()
message(STATUS "fieldsync: tests run with ${MPIEXEC_EXECUTABLE} (${FIELDSYNC_MPI_FLAVOUR})")

# The presets that rebuild the suite for another MPI or for the sanitizers run it up to this many
# ranks (CMakePresets.json): the rank counts past it find nothing those builds add, and cost
# most of the suite's time there. Empty: every rank count a test names.
set(FIELDSYNC_TEST_MAX_RANKS "" CACHE STRING "Register MPI tests only up to this many ranks (empty: all)")

# fieldsync_test_ranks(<out-var> <n>...): the rank counts of <n>... within FIELDSYNC_TEST_MAX_RANKS.
function(fieldsync_test_ranks out)
    set(kept "")
    foreach(n IN LISTS ARGN)
        if(NOT FIELDSYNC_TEST_MAX_RANKS OR n LESS_EQUAL FIELDSYNC_TEST_MAX_RANKS)
            list(APPEND kept ${n})
        endif()
    endforeach()
    set(${out} ${kept} PARENT_SCOPE)
endfunction()

# fieldsync_mpiexec_command(<out-var> <nranks> <executable> [args...])
function(fieldsync_mpiexec_command out n exe)
    set(${out} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${FIELDSYNC_TEST_MPIEXEC_FLAGS}
        ${FIELDSYNC_MPIEXEC_FLAGS} ${MPIEXEC_PREFLAGS} ${exe} ${MPIEXEC_POSTFLAGS} ${ARGN} PARENT_SCOPE)
endfunction()

function(fieldsync_add_mpi_test name)
    cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;RANKS;LIBRARIES;ENVIRONMENT;ARGS" ${ARGN})
    if(NOT ARG_RANKS)
        set(ARG_RANKS 1 2 3 4)
    endif()
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 180)
    endif()
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE fieldsync_test_main fieldsync_warnings ${ARG_LIBRARIES})
    fieldsync_use_pch(${name} fieldsync_test_pch)
    fieldsync_test_ranks(ARG_RANKS ${ARG_RANKS})
    foreach(n IN LISTS ARG_RANKS)
        fieldsync_mpiexec_command(cmd ${n} $<TARGET_FILE:${name}> ${ARG_ARGS})
        add_test(NAME ${name}.np${n} COMMAND ${cmd})
        set_tests_properties(${name}.np${n} PROPERTIES
            TIMEOUT ${ARG_TIMEOUT}
            PROCESSORS ${n}
            ENVIRONMENT "${FIELDSYNC_TEST_ENVIRONMENT};${ARG_ENVIRONMENT}")
    endforeach()
endfunction()

# fieldsync_add_exit_test(<test> <target> RANKS n [ENVIRONMENT VAR=value ...] PASS regex
#                         [FAIL regex]): runs <target> (a plain program, no Catch2) under mpiexec
# and judges its whole output followed by "exit code N" (the job's exit status) with regexes:
# for programs whose point is how the job ends (an abort, a warning at exit).
function(fieldsync_add_exit_test test target)
    cmake_parse_arguments(ARG "" "RANKS;PASS;FAIL" "ENVIRONMENT" ${ARGN})
    fieldsync_test_ranks(within ${ARG_RANKS})
    if(NOT within)
        return()
    endif()
    fieldsync_mpiexec_command(cmd ${ARG_RANKS} $<TARGET_FILE:${target}>)
    list(JOIN cmd " " line)
    add_test(NAME ${test} COMMAND sh -c "${line} 2>&1; echo \"exit code $?\"")
    set_tests_properties(${test} PROPERTIES TIMEOUT 60 PROCESSORS ${ARG_RANKS}
        ENVIRONMENT "${FIELDSYNC_TEST_ENVIRONMENT};${ARG_ENVIRONMENT}"
        PASS_REGULAR_EXPRESSION "${ARG_PASS}")
    if(ARG_FAIL)
        set_tests_properties(${test} PROPERTIES FAIL_REGULAR_EXPRESSION "${ARG_FAIL}")
    endif()
endfunction()

# fieldsync_add_mpi_test_variant(<name> <variant> [RANKS ...] [TIMEOUT s] [ENVIRONMENT VAR=value ...]
#                                [ARGS arg ...])
#
# Runs the test executable <name> again, as <name>.<variant>.np<N>, with extra environment
# variables (and test arguments, such as a Catch tag): a test parameter (a back end, forced
# staging) without a copy of the tests.
function(fieldsync_add_mpi_test_variant name variant)
    cmake_parse_arguments(ARG "" "TIMEOUT" "RANKS;ENVIRONMENT;ARGS" ${ARGN})
    if(NOT ARG_RANKS)
        set(ARG_RANKS 1 2 3 4)
    endif()
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 180)
    endif()
    fieldsync_test_ranks(ARG_RANKS ${ARG_RANKS})
    foreach(n IN LISTS ARG_RANKS)
        fieldsync_mpiexec_command(cmd ${n} $<TARGET_FILE:${name}> ${ARG_ARGS})
        add_test(NAME ${name}.${variant}.np${n} COMMAND ${cmd})
        set_tests_properties(${name}.${variant}.np${n} PROPERTIES
            TIMEOUT ${ARG_TIMEOUT}
            PROCESSORS ${n}
            ENVIRONMENT "${FIELDSYNC_TEST_ENVIRONMENT};${ARG_ENVIRONMENT}")
    endforeach()
endfunction()

# fieldsync_add_compile_fail_test(<name> SOURCE <file> MESSAGE <regex>): <file> must NOT
# compile, and the compiler must say why in one error: the test passes when the build output
# matches MESSAGE and fails when the file compiles or the error cascades into others.
function(fieldsync_add_compile_fail_test name)
    cmake_parse_arguments(ARG "" "SOURCE;MESSAGE" "" ${ARGN})
    add_library(${name}_compile_fail OBJECT EXCLUDE_FROM_ALL ${ARG_SOURCE})
    target_link_libraries(${name}_compile_fail PRIVATE fieldsync::fieldsync)
    add_test(NAME ${name}
        COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target ${name}_compile_fail)
    set_tests_properties(${name} PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE
        PASS_REGULAR_EXPRESSION "${ARG_MESSAGE}"
        FAIL_REGULAR_EXPRESSION
        "Linking|Built target ${name}_compile_fail|is not a member of|no type named|no matching function|no match for call")
endfunction()
