# SPDX-License-Identifier: MIT OR Apache-2.0
# The one build mechanism of the tool's self-registering folders:
# the simulator's strategies (sim/src/strategies/), the matrix's engines
# (matrix/src/engines/) and the Relacy models (relacy/src/models/), each file
# adding its entries to a core::Registry before main (WSSTRESS_REGISTER,
# core/include/wsstress/core/registry.hpp). Nothing refers to such a file, so
# a static archive would drop it, and an OBJECT library reaches only the
# targets that link it directly.
#
#   wsstress_registered_files(<target> <folder> [SOURCES <file>...])
#
# builds every .cpp of <folder> (globbed: a new file is a new entry, with no
# list to add it to), and the SOURCES beside them, into the static library
# <target>_files: the one to give its link libraries and compile options.
# <target> is the INTERFACE library to link: it links <target>_files whole
# (WHOLE_ARCHIVE) into every program that links <target>, directly or
# through another library. Not a unity build, so that each file keeps its
# own helper names.
function(wsstress_registered_files target folder)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "wsstress_registered_files: unexpected arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  file(GLOB files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.cpp)
  if(NOT files)
    message(FATAL_ERROR "wsstress_registered_files: no .cpp file in ${CMAKE_CURRENT_SOURCE_DIR}/${folder}")
  endif()
  add_library(${target}_files STATIC ${files} ${arg_SOURCES})
  set_target_properties(${target}_files PROPERTIES UNITY_BUILD OFF)
  add_library(${target} INTERFACE)
  target_link_libraries(${target} INTERFACE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${target}_files>")
endfunction()
