# bindery_embed_shader(<target> <glsl file> <c identifier> [NAME=VALUE...])
# Compiles GLSL to SPIR-V with glslangValidator at build time and emits a header
# holding `const uint32_t <identifier>[]`, added to <target>'s include path. Extra
# arguments are preprocessor definitions (one source, several kernels).
find_program(GLSLANG_VALIDATOR NAMES glslangValidator glslang REQUIRED)

function(bindery_embed_shader target glsl ident)
  get_filename_component(abs ${glsl} ABSOLUTE)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/embedded_shaders)
  set(out ${out_dir}/${ident}.h)
  set(defines)
  foreach(d ${ARGN})
    list(APPEND defines -D${d})
  endforeach()
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${GLSLANG_VALIDATOR} -V --target-env vulkan1.0 --quiet --vn ${ident} --depfile ${out}.d ${defines} -o ${out} ${abs}
    DEPENDS ${abs}
    DEPFILE ${out}.d
    COMMENT "glslang: ${glsl} -> ${ident}.h"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
  target_include_directories(${target} PRIVATE ${out_dir})
endfunction()

# bindery_embed_spvasm(<target> <spvasm file> <c identifier> [<target env>])
# Assembles SPIR-V text with spirv-as (SPIR-V 1.0 unless the text needs more, or the version of
# the target environment given, e.g. vulkan1.2) at build time into the same kind of header, for
# modules GLSL cannot express.
find_program(SPIRV_AS NAMES spirv-as REQUIRED)

function(bindery_embed_spvasm target spvasm ident)
  set(env vulkan1.0)
  if(ARGC GREATER 3)
    set(env ${ARGV3})
  endif()
  get_filename_component(abs ${spvasm} ABSOLUTE)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/embedded_shaders)
  set(spv ${out_dir}/${ident}.spv)
  set(out ${out_dir}/${ident}.h)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${SPIRV_AS} --target-env ${env} -o ${spv} ${abs}
    COMMAND ${CMAKE_COMMAND} -DIN=${spv} -DOUT=${out} -DIDENT=${ident} -P ${PROJECT_SOURCE_DIR}/cmake/spv_to_header.cmake
    DEPENDS ${abs} ${PROJECT_SOURCE_DIR}/cmake/spv_to_header.cmake
    COMMENT "spirv-as: ${spvasm} -> ${ident}.h"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
  target_include_directories(${target} PRIVATE ${out_dir})
endfunction()
