# Unity builds: a library's sources compiled as a few translation units instead of one each.
#
# fieldsync's own headers are not precompiled (cmake/FieldsyncPch.cmake says why), so every
# source file of the library reads them again, with the precompiled header's load on top; a
# layer compiled as one translation unit reads them once (doc/notes/performance.md, "Build time
# of the test command").
#
#   FIELDSYNC_UNITY             ON by default; OFF compiles each source file alone (quicker to
#                               rebuild after a change to one file of a large layer)
#   fieldsync_unity(<target>)   <target>'s .cpp files as one translation unit per folder group:
#                               src/<layer>/... (subfolders included) is one per layer, any other
#                               source one for the whole target
#
# What it asks of the sources: the names a .cpp file keeps to itself (anonymous namespaces,
# `static` functions, file-scope constants and `using` declarations) are unique within its layer,
# and no .cpp file defines a macro it does not #undef. A collision is a compile error in the
# unity build, never a silent change: two functions of the same name and signature are a
# redefinition; one helper that serves two files belongs in a header of the layer's src/ folder.

option(FIELDSYNC_UNITY "Compile each layer of the library, and each example library, as one translation unit" ON)

function(fieldsync_unity target)
    if(NOT FIELDSYNC_UNITY)
        return()
    endif()
    get_target_property(sources ${target} SOURCES)
    get_target_property(directory ${target} SOURCE_DIR)
    foreach(source IN LISTS sources)
        if(NOT source MATCHES "\\.cpp$")
            continue()
        endif()
        cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${directory} OUTPUT_VARIABLE path)
        file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${path})
        if(relative MATCHES "^src/([^/]+)/")
            set(group ${CMAKE_MATCH_1})
        else()
            set(group ${target})
        endif()
        set_property(SOURCE ${path} TARGET_DIRECTORY ${target} PROPERTY UNITY_GROUP ${group})
    endforeach()
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
    # GCC warns of a class with a member of an anonymous-namespace type unless the class is in
    # the main file; in a unity build no source file is, and each class is still in one file
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
endfunction()
