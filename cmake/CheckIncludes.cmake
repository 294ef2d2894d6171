# bindery_check_includes(<folder> <allowed folder>...)
# Fails the configure step when a source or header under layer/<folder>/ includes a
# project header ("dir/file.h") from a layer folder not in the allowed list: the
# dependency rule between the layer's folders, checked on every configure. Folders that
# are not layer folders (generated shader headers, system headers) are not checked.
set(BINDERY_LAYER_FOLDERS core chassis transfer bindings timeline spirv shell)

function(bindery_check_includes folder)
  set(allowed ${ARGN})
  file(GLOB_RECURSE files CONFIGURE_DEPENDS
    ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.h ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.cpp)
  foreach(file ${files})
    file(STRINGS ${file} lines REGEX "^#include \"[a-z_]+/")
    foreach(line ${lines})
      string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" dir "${line}")
      list(FIND BINDERY_LAYER_FOLDERS ${dir} is_layer_folder)
      list(FIND allowed ${dir} is_allowed)
      if(is_layer_folder GREATER -1 AND is_allowed EQUAL -1)
        message(FATAL_ERROR "dependency rule: ${file} includes \"${dir}/...\", but layer/${folder} may depend "
                            "only on: ${allowed} (see layer/CMakeLists.txt)")
      endif()
    endforeach()
  endforeach()
endfunction()
