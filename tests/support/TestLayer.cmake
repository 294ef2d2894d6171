# bindery_test_layer(<target> <layer name> <description> <source>
#                    [EXTRA_JSON <json members>] [LIBRARY_VAR <cache variable>])
# A test-only Vulkan layer (tests/*_layer): a shared library built from <source> with the
# loader plumbing of tests/support/test_layer.h, and its explicit manifest next to it in
# the build tree (the folder tests put in VK_ADD_LAYER_PATH). LIBRARY_VAR names a cache
# variable that receives the library's path (tests that dlopen the layer).
function(bindery_test_layer target layer_name description source)
  cmake_parse_arguments(ARG "" "EXTRA_JSON;LIBRARY_VAR" "" ${ARGN})
  add_library(${target} SHARED ${source})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${target} PRIVATE Vulkan::Headers bindery_warnings)
  if(ARG_LIBRARY_VAR)
    set(${ARG_LIBRARY_VAR} "$<TARGET_FILE:${target}>" CACHE INTERNAL "")
  endif()
  set(extra "")
  if(ARG_EXTRA_JSON)
    set(extra ",\n    ${ARG_EXTRA_JSON}")
  endif()
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${target}.json CONTENT "{
  \"file_format_version\": \"1.1.2\",
  \"layer\": {
    \"name\": \"${layer_name}\",
    \"type\": \"GLOBAL\",
    \"library_path\": \"$<TARGET_FILE:${target}>\",
    \"api_version\": \"1.3.239\",
    \"implementation_version\": \"1\",
    \"description\": \"${description}\"${extra}
  }
}
")
endfunction()
