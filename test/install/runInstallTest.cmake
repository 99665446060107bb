# Driven by test/install/CMakeLists.txt; see there.
function(run)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
    endif()
    set(LAST_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${PREFIX}" "${CONSUMER_BUILD}")
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}")
run(${CMAKE_COMMAND} -S "${CONSUMER_SOURCE}" -B "${CONSUMER_BUILD}" -G "${GENERATOR}"
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_PREFIX_PATH=${PREFIX}
    -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER})
run(${CMAKE_COMMAND} --build "${CONSUMER_BUILD}")
run(${MPIEXEC} -n 2 ${MPIEXEC_FLAGS} "${CONSUMER_BUILD}/consumer")
message(STATUS "consumer output:\n${LAST_OUTPUT}")
if(NOT LAST_OUTPUT MATCHES "consumer: sum of ranks 1 over 2 ranks = 2")
    message(FATAL_ERROR "consumer printed the wrong result:\n${LAST_OUTPUT}")
endif()
