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

# bindery_check_bindings_order(<sub-folder>...): the same rule inside layer/bindings/, whose
# sub-folders are listed lowest first (model <- descriptors <- pipelines <- record <-
# device, the capability: docs/architecture.md, "The stores of bindings/"). Fails the
# configure step when a file of one includes a "bindings/<sub>/..." header of a sub-folder
# listed after its own: an include back up.
function(bindery_check_bindings_order)
  set(order ${ARGN})
  list(LENGTH order count)
  math(EXPR last "${count} - 1")
  foreach(level RANGE ${last})
    list(GET order ${level} folder)
    file(GLOB_RECURSE files CONFIGURE_DEPENDS
      ${CMAKE_CURRENT_SOURCE_DIR}/bindings/${folder}/*.h ${CMAKE_CURRENT_SOURCE_DIR}/bindings/${folder}/*.cpp)
    foreach(file ${files})
      file(STRINGS ${file} lines REGEX "^#include \"bindings/[a-z_]+/")
      foreach(line ${lines})
        string(REGEX REPLACE "^#include \"bindings/([a-z_]+)/.*" "\\1" dir "${line}")
        list(FIND order ${dir} included_level)
        if(included_level EQUAL -1)
          message(FATAL_ERROR "dependency rule: ${file} includes \"bindings/${dir}/...\", which is not a "
                              "sub-folder of bindings/ in the order: ${order} (see layer/CMakeLists.txt)")
        endif()
        if(included_level GREATER level)
          message(FATAL_ERROR "dependency rule: ${file} includes \"bindings/${dir}/...\", above its own "
                              "bindings/${folder}/ (the order, lowest first: ${order}; see layer/CMakeLists.txt)")
        endif()
      endforeach()
    endforeach()
  endforeach()
endfunction()
