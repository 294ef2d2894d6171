# bindery_embed_shader(<target> <glsl file> <c identifier>)
# Compiles GLSL to SPIR-V with glslangValidator at build time and emits a header
# holding `const uint32_t <identifier>[]`, added to <target>'s include path.
find_program(GLSLANG_VALIDATOR NAMES glslangValidator glslang REQUIRED)

function(bindery_embed_shader target glsl ident)
  get_filename_component(abs ${glsl} ABSOLUTE)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/embedded_shaders)
  set(out ${out_dir}/${ident}.h)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${GLSLANG_VALIDATOR} -V --target-env vulkan1.0 --quiet --vn ${ident} --depfile ${out}.d -o ${out} ${abs}
    DEPENDS ${abs}
    DEPFILE ${out}.d
    COMMENT "glslang: ${glsl} -> ${ident}.h"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
  target_include_directories(${target} PRIVATE ${out_dir})
endfunction()
