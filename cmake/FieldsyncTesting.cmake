# fieldsync_add_mpi_test(<name> SOURCES ... [RANKS 1 2 3 4] [TIMEOUT s] [LIBRARIES ...]
#                        [ENVIRONMENT VAR=value ...] [ARGS <Catch2 test spec>] [OWN_PROGRAM])
#
# Registers the Catch2 test <name> with CTest once per rank count, as <name>.np<N>, each run
# under mpiexec with a time-out. More ranks than cores is allowed (Open MPI gets --oversubscribe;
# MPICH's hydra allows it already). Each test reserves N processors, so `ctest -j` never runs
# more ranks at once than it was given.
#
# Where the directory sets FIELDSYNC_TEST_PROGRAM (one program per layer: test/mpi/ sets
# test_mpi), SOURCES join that program, and each run selects the test cases of its own files
# with Catch2's file-name tags (`--filenames-as-tags "[#file]~[.],..."`; a run that selects none
# fails): one link per layer instead of one per test, the same CTest entries. ARGS (one Catch2
# test spec term, such as "~[check]") narrows the selection per file. OWN_PROGRAM builds <name>
# as a program of its own: for tests that replace the global operator new, wrap MPI through its
# profiling interface, or need flags of their own.

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

# fieldsync_test_program(<program>): the test program of a layer, made on first use.
function(fieldsync_test_program program)
    if(TARGET ${program})
        return()
    endif()
    add_executable(${program})
    target_link_libraries(${program} PRIVATE fieldsync_test_main fieldsync_warnings)
    fieldsync_use_pch(${program} fieldsync_test_pch)
endfunction()

function(fieldsync_add_mpi_test name)
    cmake_parse_arguments(ARG "OWN_PROGRAM" "TIMEOUT" "SOURCES;RANKS;LIBRARIES;ENVIRONMENT;ARGS"
        ${ARGN})
    if(NOT ARG_RANKS)
        set(ARG_RANKS 1 2 3 4)
    endif()
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 180)
    endif()
    if(FIELDSYNC_TEST_PROGRAM AND NOT ARG_OWN_PROGRAM)
        fieldsync_test_program(${FIELDSYNC_TEST_PROGRAM})
        target_sources(${FIELDSYNC_TEST_PROGRAM} PRIVATE ${ARG_SOURCES})
        target_link_libraries(${FIELDSYNC_TEST_PROGRAM} PRIVATE ${ARG_LIBRARIES})
        set(files)
        foreach(source IN LISTS ARG_SOURCES)
            get_filename_component(file ${source} NAME_WE)
            list(APPEND files ${file})
        endforeach()
        set_property(GLOBAL PROPERTY FIELDSYNC_TEST_PROGRAM_${name} ${FIELDSYNC_TEST_PROGRAM})
        set_property(GLOBAL PROPERTY FIELDSYNC_TEST_FILES_${name} ${files})
    else()
        add_executable(${name} ${ARG_SOURCES})
        target_link_libraries(${name} PRIVATE fieldsync_test_main fieldsync_warnings
            ${ARG_LIBRARIES})
        fieldsync_use_pch(${name} fieldsync_test_pch)
    endif()
    fieldsync_test_invocation(run ${name} SPEC ${ARG_ARGS})
    fieldsync_test_ranks(ARG_RANKS ${ARG_RANKS})
    foreach(n IN LISTS ARG_RANKS)
        fieldsync_mpiexec_command(cmd ${n} ${run})
        add_test(NAME ${name}.np${n} COMMAND ${cmd})
        set_tests_properties(${name}.np${n} PROPERTIES
            TIMEOUT ${ARG_TIMEOUT}
            PROCESSORS ${n}
            ENVIRONMENT "${FIELDSYNC_TEST_ENVIRONMENT};${ARG_ENVIRONMENT}")
    endforeach()
endfunction()

# fieldsync_test_invocation(<out-var> <name> [SPEC <Catch2 test spec>]): the program and its
# arguments that run test <name> of fieldsync_add_mpi_test (for commands of one's own, such as
# valgrind's): its own program, or its layer's program with the filter of its files; SPEC
# narrows it (in a layer's program: one term, joined to each file's).
function(fieldsync_test_invocation out name)
    cmake_parse_arguments(ARG "" "" "SPEC" ${ARGN})
    get_property(program GLOBAL PROPERTY FIELDSYNC_TEST_PROGRAM_${name})
    if(NOT program)
        set(${out} $<TARGET_FILE:${name}> ${ARG_SPEC} PARENT_SCOPE)
        return()
    endif()
    list(LENGTH ARG_SPEC terms)
    if(terms GREATER 1)
        message(FATAL_ERROR "test ${name}: ARGS in a layer's program is one Catch2 test spec term")
    endif()
    get_property(files GLOBAL PROPERTY FIELDSYNC_TEST_FILES_${name})
    set(filter)
    foreach(file IN LISTS files)
        if(ARG_SPEC)
            list(APPEND filter "[#${file}]${ARG_SPEC}")
        else()
            list(APPEND filter "[#${file}]~[.]") # hidden test cases stay hidden
        endif()
    endforeach()
    list(JOIN filter "," filter)
    # --warn NoTests: a filter that selects nothing fails (Catch2 would pass it)
    set(${out} $<TARGET_FILE:${program}> --filenames-as-tags --warn NoTests ${filter}
        PARENT_SCOPE)
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
# Runs the test <name> again, as <name>.<variant>.np<N>, with extra environment variables (and
# a Catch2 test spec, such as a tag): a test parameter (a back end, forced staging) without a
# copy of the tests.
function(fieldsync_add_mpi_test_variant name variant)
    cmake_parse_arguments(ARG "" "TIMEOUT" "RANKS;ENVIRONMENT;ARGS" ${ARGN})
    if(NOT ARG_RANKS)
        set(ARG_RANKS 1 2 3 4)
    endif()
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 180)
    endif()
    fieldsync_test_invocation(run ${name} SPEC ${ARG_ARGS})
    fieldsync_test_ranks(ARG_RANKS ${ARG_RANKS})
    foreach(n IN LISTS ARG_RANKS)
        fieldsync_mpiexec_command(cmd ${n} ${run})
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
