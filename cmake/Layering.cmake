# collplan_add_library(NAME SOURCES... [DEPS lib...] [PRIVATE_DEPS lib...])
#
# One static library per folder, with the libraries it may use. Static
# archives do not enforce that list (the final program links everything), so
# each library is also linked, whole, into a shared object with
# --no-undefined against exactly those libraries: a call into a library it
# does not declare — the verifier calling an algorithm, the runtime calling
# the verifier — fails the build at that link.
set(COLLPLAN_LAYER_CHECK_SOURCE ${CMAKE_BINARY_DIR}/layer_check.cpp)
file(WRITE ${COLLPLAN_LAYER_CHECK_SOURCE}
     "// Empty: the layer checks link libraries, they add no code.\n")

function(collplan_add_library name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${L_DEPS} PRIVATE ${L_PRIVATE_DEPS})

  add_library(${name}_layer_check SHARED ${COLLPLAN_LAYER_CHECK_SOURCE})
  target_link_libraries(${name}_layer_check PRIVATE
                        "$<LINK_LIBRARY:WHOLE_ARCHIVE,${name}>")
  target_link_options(${name}_layer_check PRIVATE -Wl,--no-undefined)
endfunction()
