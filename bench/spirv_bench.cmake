# bindery_spirv_bench (docs/measured.md, "SPIR-V rewrite speed"): per module of the differential corpus and of
# generated large shaders, the rewrite (parse + rewrite + write), spirv-val of its output,
# and lavapipe's native compute pipeline creation for the same module. Included from
# bench/CMakeLists.txt when the library and the corpus are in the build.
find_package(SPIRV-Tools REQUIRED)
find_package(Python3 REQUIRED COMPONENTS Interpreter)

set(spirv_large_dir ${CMAKE_CURRENT_BINARY_DIR}/spirv_large)
set(spirv_large_outputs)
foreach(steps 32 128 512 2048)
  set(glsl ${spirv_large_dir}/unrolled_${steps}.comp)
  set(spv ${spirv_large_dir}/unrolled_${steps}.comp.spv)
  add_custom_command(OUTPUT ${spv}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${spirv_large_dir}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/spirv_generate_large.py ${steps} ${glsl}
    COMMAND ${GLSLANG_VALIDATOR} --target-env vulkan1.2 --quiet -o ${spv} ${glsl}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/spirv_generate_large.py
    COMMENT "bench: unrolled_${steps}.comp"
    VERBATIM)
  list(APPEND spirv_large_outputs ${spv})
endforeach()
add_custom_target(bindery_spirv_bench_shaders DEPENDS ${spirv_large_outputs})

add_executable(bindery_spirv_bench spirv_bench_main.cpp spirv_bench_modules.cpp spirv_bench_pipeline.cpp)
target_compile_definitions(bindery_spirv_bench PRIVATE
  "BINDERY_SPIRV_CORPUS_DIR=\"${BINDERY_SPIRV_CORPUS_DIR}\""
  "BINDERY_SPIRV_LARGE_DIR=\"${spirv_large_dir}\"")
target_link_libraries(bindery_spirv_bench PRIVATE bindery_spirv SPIRV-Tools-static benchmark::benchmark
  Vulkan::Vulkan bindery_warnings)
add_dependencies(bindery_spirv_bench bindery_spirv_corpus bindery_spirv_bench_shaders)

# The load-independent count (callgrind) of the rewrite alone: see spirv_rewrite_count.cpp.
add_executable(bindery_spirv_rewrite_count spirv_rewrite_count.cpp)
target_link_libraries(bindery_spirv_rewrite_count PRIVATE bindery_spirv bindery_warnings)
