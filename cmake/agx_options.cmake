# Warnings and sanitizer flags shared by every target of the project.
# -Wall -Wextra on g++ and clang, except -Wunused-parameter: interface
# implementations (kmd::Executor, usc::FixedFunction, usc::GraphicsHook,
# GpuMemory, stream visitors) take parameters that some overrides do not
# need, and naming every such parameter only in a comment buys nothing.
add_library(agx_options INTERFACE)
target_compile_options(agx_options INTERFACE -Wall -Wextra -Wno-unused-parameter)
# The test command builds with AGX_WERROR=ON, so a warning fails CI.
option(AGX_WERROR "Treat warnings as errors" OFF)
if(AGX_WERROR)
  target_compile_options(agx_options INTERFACE -Werror)
endif()
target_include_directories(agx_options INTERFACE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

if(AGX_SANITIZE)
  # vptr is left out: Debian builds glslang without RTTI, so the compiler's
  # front end is compiled with -fno-rtti, and objects made there (shared_ptr
  # control blocks) have no type information for the check to read.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize=vptr -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(AGX_FUZZ AND AGX_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # Coverage instrumentation for every library the fuzzers link; the fuzz
  # targets themselves add -fsanitize=fuzzer (the libFuzzer driver), and the
  # sanitizer runtime provides the coverage callbacks to the other binaries.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# Linker: LLVM's lld (Debian's `lld`, installed by scripts/setup.sh) when
# the compiler accepts -fuse-ld=lld, for g++ and clang alike. The project
# links about 40 large static executables (test binaries, fuzzers, the
# tool); lld links the compiler's test binary in a third of the CPU time
# GNU ld takes (0.6 s against 1.8 s at -O2 -g1, measured on this tree).
# AGX_LLD=OFF keeps the toolchain's default linker.
option(AGX_LLD "Link with lld when the compiler accepts -fuse-ld=lld" ON)
if(AGX_LLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" AGX_HAVE_LLD)
  if(AGX_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()

# Precompiled headers: the standard and third-party headers nearly every
# file of a unit includes, parsed once per target instead of once per file
# (a test file's compile time halves with GoogleTest's headers in it). A
# source compiled with other language options (e.g. -fno-rtti) sets
# SKIP_PRECOMPILE_HEADERS. AGX_PCH=OFF turns them off.
option(AGX_PCH "Precompile common headers for each library and test binary" ON)
set(AGX_PCH_HEADERS <algorithm> <array> <cstdint> <cstring> <functional> <map>
    <memory> <optional> <span> <string> <string_view> <unordered_map> <variant>
    <vector> <fmt/format.h>)
# agx_precompile(TARGET [TESTS] [HEADERS h...]): precompiled headers for
# TARGET's C++ files (TESTS adds GoogleTest's and GoogleMock's; HEADERS adds
# the given ones, e.g. the command-line tool's CLI11).
function(agx_precompile target)
  if(NOT AGX_PCH)
    return()
  endif()
  cmake_parse_arguments(P "TESTS" "" "HEADERS" ${ARGN})
  set(headers ${AGX_PCH_HEADERS} ${P_HEADERS})
  if(P_TESTS)
    list(APPEND headers <gtest/gtest.h> <gmock/gmock.h>)
  endif()
  list(TRANSFORM headers PREPEND "$<$<COMPILE_LANGUAGE:CXX>:")
  list(TRANSFORM headers APPEND ">")
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()


# Test files are compiled at their own optimization level (after the build
# type's flags, so it wins): the code under test is in the unit libraries
# at the build's level, and a test file's own code (assertions, fixtures)
# costs a quarter to a half less compile time at -O1 / -O0 than at -O2
# (measured on src/usc/tests/memory_test.cpp: 3.9 s at -O2, 2.9 s at -O1;
# on the compiler tests' third unity file with g++: 26.9 s at -O1, 21.1 s
# at -O0). -O0 by default, as in the sanitizer build.
set(AGX_TESTS_OPT "-O0" CACHE STRING "Optimization flag of the test binaries' own files")
# Unity builds: a unit library's files, its test files and the tool's are
# compiled AGX_UNITY_BATCH at a time as one translation unit, so the
# headers they share are parsed, and the templates they share instantiated
# and optimized, once per batch instead of once per file (measured: five
# units' tests 167 s of compile time down to 64 s; the compiler library and
# the units it needs 380 s of CPU down to about 200 s at -O2 with g++).
# Files with their own compile options or definitions are compiled alone
# (CMake leaves them out of the batches).
# A library file's file-local helpers stay in an anonymous namespace: in a
# unity build the anonymous namespaces of a batch are one, so file-local
# names must not repeat within a unit (a clash is a compile error naming
# both), and a namespace-scope using-declaration or alias must not change
# what a name means to the unit's other files. A test file keeps its local
# helpers in `namespace AGX_UNITY_ID {` instead: there AGX_UNITY_ID is a
# name unique to the file (so two files' `kBase` or `lines()` do not
# clash), otherwise it is empty (an anonymous namespace). 0 turns unity
# builds off (one translation unit per file, e.g. to check that each file
# includes what it uses, or for quicker rebuilds of one file).
set(AGX_UNITY_BATCH "8" CACHE STRING "Files per unity translation unit (0: no unity build)")
# agx_unity(TARGET): TARGET's files compiled AGX_UNITY_BATCH at a time.
function(agx_unity target)
  if(AGX_UNITY_BATCH GREATER 0)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${AGX_UNITY_BATCH}
                          UNITY_BUILD_UNIQUE_ID AGX_UNITY_ID)
  else()
    target_compile_definitions(${target} PRIVATE AGX_UNITY_ID=)
  endif()
endfunction()

# agx_unit(NAME SOURCES... DEPS ...): the static library agx_<NAME>.
function(agx_unit name)
  cmake_parse_arguments(U "" "" "SOURCES;DEPS" ${ARGN})
  add_library(agx_${name} STATIC ${U_SOURCES})
  target_link_libraries(agx_${name} PUBLIC agx_options ${U_DEPS})
  agx_precompile(agx_${name})
  agx_unity(agx_${name})
endfunction()

# agx_unit_tests(NAME SOURCES... DEPS ...): GoogleTest binary agx_<NAME>_tests,
# registered with CTest. Tests run with the unit folder as working directory
# so that test data is found as tests/data/... (cmake/unit_test_cwd.cpp does
# the same when the binary is run by hand).
# Removes from the list `var` the test files that contain a line matching
# `regex` (tests that need units left out of the build).
function(agx_drop_tests var regex)
  set(kept ${${var}})
  foreach(t ${${var}})
    file(STRINGS ${t} hits REGEX "${regex}")
    if(hits)
      list(REMOVE_ITEM kept ${t})
    endif()
  endforeach()
  set(${var} ${kept} PARENT_SCOPE)
endfunction()

function(agx_unit_tests name)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(agx_${name}_tests ${T_SOURCES} ${PROJECT_SOURCE_DIR}/cmake/unit_test_cwd.cpp)
  target_compile_definitions(agx_${name}_tests PRIVATE AGX_UNIT_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(agx_${name}_tests PRIVATE agx_${name} ${T_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_options(agx_${name}_tests PRIVATE ${AGX_TESTS_OPT})
  agx_precompile(agx_${name}_tests TESTS)
  agx_unity(agx_${name}_tests)
  gtest_discover_tests(agx_${name}_tests WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
                       DISCOVERY_TIMEOUT 60 PROPERTIES LABELS ${name})
endfunction()

# agx_unit_bench(NAME SOURCES... DEPS ...): Google Benchmark binary agx_<NAME>_bench.
function(agx_unit_bench name)
  if(NOT AGX_BENCH)
    return()
  endif()
  cmake_parse_arguments(B "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(agx_${name}_bench ${B_SOURCES})
  target_link_libraries(agx_${name}_bench PRIVATE agx_${name} ${B_DEPS} benchmark::benchmark benchmark::benchmark_main)
endfunction()
