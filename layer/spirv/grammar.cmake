# The operand tables of layer/spirv/ (grammar_tables.inc), generated at build time from the
# SPIR-V grammars SPIRV-Headers installs (Debian: spirv-headers, /usr/include/spirv/unified1)
# by gen_grammar_tables.py. Included by layer/spirv/CMakeLists.txt and by fuzz/.
#   bindery_spirv_grammar_tables(<target>): <target> compiles operand_kinds.cpp.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
find_path(BINDERY_SPIRV_GRAMMAR_DIR spirv.core.grammar.json
  PATHS /usr/include/spirv/unified1 /usr/share/spirv-headers /usr/local/include/spirv/unified1
  PATH_SUFFIXES spirv/unified1 REQUIRED)
set(BINDERY_SPIRV_GRAMMAR_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/gen_grammar_tables.py)

function(bindery_spirv_grammar_tables target)
  file(GLOB ext_grammars ${BINDERY_SPIRV_GRAMMAR_DIR}/extinst.*.grammar.json)
  list(SORT ext_grammars)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/grammar_generated)
  set(out ${dir}/spirv/grammar_tables.inc)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}/spirv
    COMMAND ${Python3_EXECUTABLE} ${BINDERY_SPIRV_GRAMMAR_SCRIPT} ${out}
            ${BINDERY_SPIRV_GRAMMAR_DIR}/spirv.core.grammar.json ${ext_grammars}
    DEPENDS ${BINDERY_SPIRV_GRAMMAR_SCRIPT} ${BINDERY_SPIRV_GRAMMAR_DIR}/spirv.core.grammar.json ${ext_grammars}
    COMMENT "SPIR-V operand tables from the grammars"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
  target_include_directories(${target} PRIVATE ${dir})
endfunction()
