#!/usr/bin/env python3
"""Writes the library's operand tables from the SPIR-V grammars (run by CMake at build time).

Reads the core grammar (spirv.core.grammar.json) and the extended-instruction-set grammars
(extinst.*.grammar.json) that SPIRV-Headers installs, and writes one C++ include with:
  - every operand kind: its class (id, literal, string, context-dependent number, pair,
    value enum, bit enum) and, for enums, the operands each enumerant's value brings;
  - every core instruction: whether it has a result type and a result, its operands
    (kind and quantifier, result type and result left out) and the fewest words it has;
  - every extended instruction of each set, under the name OpExtInstImport gives the set.
layer/spirv/operand_kinds.cpp turns these into the walks the rewrite uses to tell ids from
literals; nothing about operand kinds is written by hand.

Usage: gen_grammar_tables.py out.inc spirv.core.grammar.json [extinst.*.grammar.json...]
"""
import json
import os
import sys

# The name an OpExtInstImport gives each set, by grammar file (the files do not say it).
# A name ending in '.' matches any version suffix ("NonSemantic.ClspvReflection.5").
EXT_SET_NAMES = {
    "extinst.glsl.std.450.grammar.json": "GLSL.std.450",
    "extinst.opencl.std.100.grammar.json": "OpenCL.std",
    "extinst.debuginfo.grammar.json": "DebugInfo",
    "extinst.opencl.debuginfo.100.grammar.json": "OpenCL.DebugInfo.100",
    "extinst.nonsemantic.shader.debuginfo.100.grammar.json": "NonSemantic.Shader.DebugInfo.100",
    "extinst.nonsemantic.debugprintf.grammar.json": "NonSemantic.DebugPrintf",
    "extinst.nonsemantic.clspvreflection.grammar.json": "NonSemantic.ClspvReflection.",
    "extinst.spv-amd-gcn-shader.grammar.json": "SPV_AMD_gcn_shader",
    "extinst.spv-amd-shader-ballot.grammar.json": "SPV_AMD_shader_ballot",
    "extinst.spv-amd-shader-explicit-vertex-parameter.grammar.json": "SPV_AMD_shader_explicit_vertex_parameter",
    "extinst.spv-amd-shader-trinary-minmax.grammar.json": "SPV_AMD_shader_trinary_minmax",
}

# Operand classes (OperandClass in operand_kinds.h, same order).
CLASSES = ["kId", "kLiteral", "kString", "kContextNumber", "kPairLiteralId", "kPairIdLiteral",
           "kPairIdId", "kValueEnum", "kBitEnum"]
QUANTIFIERS = {None: "kOne", "?": "kOptional", "*": "kAny"}


def enum_value(v):
    return int(v, 0) if isinstance(v, str) else int(v)


class Tables:
    def __init__(self):
        self.kinds = []          # [name, class, first enum entry, enum entry count]
        self.kind_index = {}     # (scope, name) -> index
        self.enum_entries = []   # [value, first param, param count, last param repeats]
        self.params = []         # kind indices
        self.operands = []       # [kind index, quantifier]

    def add_kinds(self, scope, operand_kinds):
        # Two passes: enum parameters name kinds that may come later in the file.
        for k in operand_kinds:
            self.kind_index[(scope, k["kind"])] = len(self.kinds)
            self.kinds.append([scope + k["kind"], None, 0, 0])
        for k in operand_kinds:
            entry = self.kinds[self.kind_index[(scope, k["kind"])]]
            cat = k["category"]
            if cat == "Id":
                entry[1] = "kId"
            elif cat == "Literal":
                entry[1] = {"LiteralString": "kString", "LiteralContextDependentNumber": "kContextNumber"}.get(
                    k["kind"], "kLiteral")
            elif cat == "Composite":
                bases = ["kId" if b.startswith("Id") else "kLiteral" for b in k["bases"]]
                entry[1] = {("kLiteral", "kId"): "kPairLiteralId", ("kId", "kLiteral"): "kPairIdLiteral",
                            ("kId", "kId"): "kPairIdId"}[tuple(bases)]
            elif cat in ("ValueEnum", "BitEnum"):
                entry[1] = "kValueEnum" if cat == "ValueEnum" else "kBitEnum"
                with_params = {}
                for e in k.get("enumerants", []):
                    ps = e.get("parameters", [])
                    value = enum_value(e["value"])
                    if ps and value not in with_params:
                        with_params[value] = ps
                entry[2] = len(self.enum_entries)
                entry[3] = len(with_params)
                for value in sorted(with_params):
                    ps = with_params[value]
                    first = len(self.params)
                    for p in ps:
                        self.params.append(self.lookup(scope, p["kind"]))
                    repeats = 1 if ps[-1].get("quantifier") == "*" else 0
                    self.enum_entries.append([value, first, len(ps), repeats])
            else:
                raise SystemExit("unknown operand kind category %s" % cat)

    def lookup(self, scope, name):
        if (scope, name) in self.kind_index:
            return self.kind_index[(scope, name)]
        return self.kind_index[("", name)]

    def add_operands(self, scope, operands):
        first = len(self.operands)
        for o in operands:
            self.operands.append([self.lookup(scope, o["kind"]), QUANTIFIERS[o.get("quantifier")]])
        return first, len(operands)


def main():
    out_path, core_path, ext_paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(core_path, encoding="utf-8") as f:
        core = json.load(f)
    t = Tables()
    t.add_kinds("", core["operand_kinds"])

    instructions = {}  # opcode -> [has type, has result, first operand, count, fewest words, name]
    for inst in core["instructions"]:
        ops = inst.get("operands", [])
        has_type = any(o["kind"] == "IdResultType" for o in ops)
        has_result = any(o["kind"] == "IdResult" for o in ops)
        rest = [o for o in ops if o["kind"] not in ("IdResultType", "IdResult")]
        words = 1 + sum(1 for o in ops if "quantifier" not in o)
        op = inst["opcode"]
        if op in instructions:  # an alias (a vendor's name for the same opcode)
            instructions[op][4] = min(words, instructions[op][4])
            continue
        first, count = t.add_operands("", rest)
        instructions[op] = [has_type, has_result, first, count, words, inst["opname"]]

    ext_sets = []  # [import name, [[number, first operand, count]...]]
    for path in sorted(ext_paths):
        base = os.path.basename(path)
        if base not in EXT_SET_NAMES:
            continue  # a set this generator does not know the import name of: treated as unknown
        with open(path, encoding="utf-8") as f:
            g = json.load(f)
        scope = EXT_SET_NAMES[base] + ":"
        t.add_kinds(scope, g.get("operand_kinds", []))
        entries = {}
        for inst in g["instructions"]:
            if inst["opcode"] in entries:
                continue
            first, count = t.add_operands(scope, inst.get("operands", []))
            entries[inst["opcode"]] = [inst["opcode"], first, count, inst["opname"]]
        ext_sets.append([EXT_SET_NAMES[base], [entries[k] for k in sorted(entries)]])

    with open(out_path, "w", encoding="utf-8") as out:
        w = out.write
        w("// Generated at build time by layer/spirv/gen_grammar_tables.py from %s and %d\n"
          % (os.path.basename(core_path), len(ext_sets)))
        w("// extended-instruction-set grammars (SPIR-V %d.%d revision %d); do not edit.\n"
          % (core["major_version"], core["minor_version"], core["revision"]))
        w("// Included by operand_kinds.cpp inside namespace bindery::spirv::grammar.\n\n")
        w("constexpr uint32_t kGrammarVersion = 0x%08x;\n\n" % ((core["major_version"] << 16) | (core["minor_version"] << 8)))
        w("constexpr KindEntry kKinds[] = {\n")
        for name, cls, first, count in t.kinds:
            w('  {"%s", OperandClass::%s, %d, %d},\n' % (name, cls, first, count))
        w("};\n\nconstexpr EnumEntry kEnumEntries[] = {\n")
        for value, first, count, repeats in t.enum_entries:
            w("  {0x%x, %d, %d, %d},\n" % (value, first, count, repeats))
        if not t.enum_entries:
            w("  {0, 0, 0, 0},\n")
        w("};\n\nconstexpr uint16_t kParamKinds[] = {\n")
        for i in range(0, len(t.params), 16):
            w("  " + ", ".join(str(p) for p in t.params[i:i + 16]) + ",\n")
        w("};\n\nconstexpr OperandEntry kOperands[] = {\n")
        for kind, q in t.operands:
            w("  {%d, Quantifier::%s},\n" % (kind, q))
        w("};\n\n// {opcode, has type, has result, first operand, operand count, fewest words, name}, by opcode.\n")
        w("constexpr InstructionEntry kInstructions[] = {\n")
        for op in sorted(instructions):
            has_type, has_result, first, count, words, name = instructions[op]
            w('  {%d, %d, %d, %d, %d, %d, "%s"},\n' % (op, int(has_type), int(has_result), first, count, words, name))
        w("};\n\n// Extended instructions: {number, first operand, operand count, name}, by set then number.\n")
        w("constexpr ExtInstructionEntry kExtInstructions[] = {\n")
        starts = []
        n = 0
        for name, entries in ext_sets:
            starts.append(n)
            for number, first, count, name in entries:
                w('  {%d, %d, %d, "%s"},\n' % (number, first, count, name))
                n += 1
        if n == 0:
            w('  {0, 0, 0, ""},\n')
        w("};\n\nconstexpr ExtSetEntry kExtSets[] = {\n")
        for (name, entries), start in zip(ext_sets, starts):
            w('  {"%s", %d, %d},\n' % (name, start, len(entries)))
        if not ext_sets:
            w('  {"", 0, 0},\n')
        w("};\n")


if __name__ == "__main__":
    main()
