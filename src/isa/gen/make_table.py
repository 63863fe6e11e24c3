#!/usr/bin/env python3
"""One-off generator: turns applegpu-descriptors.json (facts extracted from
dougallj/applegpu applegpu.py at commit 4c5bae61) into the committed X-macro
table src/isa/table.inc. After generation the .inc file is the project's
source of truth; this script only documents how it was made.

usage: make_table.py applegpu-descriptors.json > src/isa/table.inc
       make_table.py --special-registers applegpu-descriptors.json \
           > src/isa/special_registers.inc
"""
import json
import re
import sys



def ident(desc, seen):
    m = desc["mnemonic"]
    if m == "mov_imm":
        return "mov_imm%d" % (16 if desc["sizes"][0] == 4 else 32)
    if m == "call":
        return "call_reg" if desc["sizes"] == [2] else "call"
    s = m.lower().replace("todo.", "todo_").replace(".", "_").replace("/", "_")
    assert s not in seen, s
    seen.add(s)
    return s


def kind_name(k):
    k = re.sub("Desc$", "", k).replace("Reg32_4_4_", "Reg32Split")
    for a, b in (("ALU", "Alu"), ("UVS", "Uvs"), ("PBE", "Pbe"), ("CF", "Cf"),
                 ("ZS", "Zs"), ("ID", "Id"), ("SReg", "SReg"), ("UReg", "UReg")):
        k = k.replace(a, b)
    return "k" + k


def main():
    data = json.load(open(sys.argv[1]))
    ds = data["descriptors"]
    out = []
    w = out.append
    w("// Generated once by src/isa/gen/make_table.py from applegpu-descriptors.json,")
    w("// which lists the instruction descriptors of dougallj/applegpu applegpu.py")
    w("// (commit %s) as data: constant bits, bit fields, operand kinds and" % data["applegpu"]["applegpu_commit"][:8])
    w("// enum names. Rows are in applegpu's registration order, which is the")
    w("// first-match decode order. This file is the project's single source of")
    w("// truth for AGX bit patterns; nothing else in the project repeats one.")
    w("//")
    w("// AGX_ISA_OP(id, \"mnemonic\", short_B, long_B, length_bit,")
    w("//            const_mask_lo, const_bits_lo, const_mask_hi, const_bits_hi, exec)")
    w("//   exec: 1 if applegpu executes it, 0 otherwise.")
    w("// AGX_ISA_FIELD(id, \"name\", start0, size0, start1, size1, start2, size2)")
    w("//   a merged field: part k holds bits [shift, shift+size_k) of the value,")
    w("//   parts in increasing shift; absent parts have size 0.")
    w("// AGX_ISA_OPERAND(id, kind, \"name\", enum_table)  in text order")
    w("// AGX_ISA_ENUM(table, value, \"text\")  enum_table -1 = none")
    w("")
    enum_tables = []
    seen = set()
    w("#ifdef AGX_ISA_OP")
    ids = []
    for d in ds:
        i = ident(d, seen)
        ids.append(i)
        mask = int(d["constant_mask"], 16)
        bits = int(d["constant_bits"], 16)
        sizes = d["sizes"] if len(d["sizes"]) == 2 else d["sizes"] * 2
        lb = d["length_bit"] if d["length_bit"] is not None else 15
        w('AGX_ISA_OP(%s, "%s", %d, %d, %d, 0x%xull, 0x%xull, 0x%xu, 0x%xu, %d)' % (
            i, d["mnemonic"], sizes[0], sizes[1], lb,
            mask & (2**64 - 1), bits & (2**64 - 1), mask >> 64, bits >> 64,
            1 if d["exec"] == "yes" else 0))
    w("#endif")
    w("")
    w("#ifdef AGX_ISA_FIELD")
    for i, d in zip(ids, ds):
        for f in d["fields"]:
            parts = sorted(f["parts"], key=lambda p: p["shift"])
            shift = 0
            for p in parts:
                assert p["shift"] == shift
                shift += p["size"]
            flat = []
            for p in parts + [{"start": 0, "size": 0}] * (3 - len(parts)):
                flat += [p["start"], p["size"]]
            w('AGX_ISA_FIELD(%s, "%s", %s)' % (i, f["name"], ", ".join(map(str, flat))))
    w("#endif")
    w("")
    w("#ifdef AGX_ISA_OPERAND")
    for i, d in zip(ids, ds):
        for o in d["operands"]:
            t = -1
            if "values" in o:
                vals = sorted((int(k), v) for k, v in o["values"].items())
                if vals not in enum_tables:
                    enum_tables.append(vals)
                t = enum_tables.index(vals)
            w('AGX_ISA_OPERAND(%s, %s, "%s", %d)' % (i, kind_name(o["kind"]), o["name"], t))
    w("#endif")
    w("")
    w("#ifdef AGX_ISA_ENUM")
    for t, vals in enumerate(enum_tables):
        for k, v in vals:
            w('AGX_ISA_ENUM(%d, %d, "%s")' % (t, k, v))
    w("#endif")
    print("\n".join(out))


def special_registers(path):
    data = json.load(open(path))
    print("// Special register names as applegpu prints them (SR_NAMES in dougallj/applegpu")
    print("// applegpu.py, commit 4c5bae61; for 124 the later key, input_sample_mask,")
    print("// wins). Generated once from applegpu-descriptors.json.")
    print("// AGX_ISA_SR(number, \"name\")")
    for k, v in sorted(data["special_registers"].items(), key=lambda kv: int(kv[0])):
        print('AGX_ISA_SR(%s, "%s")' % (k, v))


if __name__ == "__main__":
    if sys.argv[1] == "--special-registers":
        special_registers(sys.argv[2])
    else:
        main()
