// The assembler: text in applegpu's disassembly format -> bytes. Each row
// whose mnemonic (or alias) fits is tried in table order; operands may be
// missing where they print as nothing; a candidate is accepted only if its
// encoding disassembles back to the same text.
#include <fmt/format.h>

#include "isa/asm_internal.h"
#include "isa/asm_parse.h"
#include "isa/disasm.h"
#include "util/printable.h"

namespace agx::isa {

using namespace detail;

namespace {

struct Token {
  std::string text;
  size_t column;  // 1-based
};

struct Line {
  Token mnemonic;
  std::vector<Token> operands;
};

std::string_view trim(std::string_view s, size_t* skipped = nullptr) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) b = s.size();
  size_t e = s.find_last_not_of(" \t\r\n");
  if (skipped) *skipped = b;
  return s.substr(b, e == std::string_view::npos ? 0 : e + 1 - b);
}

// Columns count from `column_base` + 1 (the text's place in its line).
Line split(std::string_view text, size_t column_base) {
  Line l;
  size_t lead = 0;
  std::string_view s = trim(text, &lead);
  lead += column_base;
  size_t sp = s.find_first_of(" \t");
  l.mnemonic = {std::string(s.substr(0, sp)), lead + 1};
  if (sp == std::string_view::npos) return l;
  size_t pos = sp;
  while (pos < s.size()) {
    size_t comma = s.find(',', pos + 1);
    std::string_view piece = s.substr(pos + (pos == sp ? 0 : 1),
                                      (comma == std::string_view::npos ? s.size() : comma) - pos - (pos == sp ? 0 : 1));
    size_t k = 0;
    std::string_view t = trim(piece, &k);
    size_t col = lead + pos + (pos == sp ? 0 : 1) + k + 1;
    l.operands.push_back({std::string(t), col});
    if (comma == std::string_view::npos) break;
    pos = comma;
  }
  return l;
}

// One way to read the mnemonic: a row, preset fields, and the operand texts
// that row's operand list sees (aliases add or drop some).
struct Candidate {
  Opcode op;
  std::vector<std::pair<int8_t, uint32_t>> preset;
  std::vector<Token> operands;
};

std::vector<Candidate> candidates(const Line& l) {
  std::vector<Candidate> out;
  std::string m = l.mnemonic.text;
  bool sat = m.ends_with(".sat");
  std::string base = sat ? m.substr(0, m.size() - 4) : m;
  auto ops = l.operands;
  auto with = [&](std::vector<Token> front, std::vector<Token> back) {
    std::vector<Token> v = std::move(front);
    v.insert(v.end(), ops.begin(), ops.end());
    v.insert(v.end(), back.begin(), back.end());
    return v;
  };
  Token at{"", l.mnemonic.column};
  for (size_t i = 0; i < kOpcodeCount; ++i) {
    auto op = static_cast<Opcode>(i);
    const RowContext& row = row_context(op);
    std::string_view name = op_info(op).mnemonic;
    std::vector<std::pair<int8_t, uint32_t>> pre;
    if (row.saturatable) pre.push_back({row.S, sat ? 1u : 0u});
    else if (sat) continue;
    if (op == Opcode::map) {
      if (base == "map" || base == "unmap") out.push_back({op, pre, with({{base, at.column}}, {})});
      if (base == "TODO.map") out.push_back({op, pre, ops});
    } else if (base == name) {
      if (op == Opcode::iadd || op == Opcode::imadd) pre.push_back({row.N, 0});
      out.push_back({op, pre, ops});
    } else if ((op == Opcode::iadd && base == "isub") || (op == Opcode::imadd && base == "imsub")) {
      pre.push_back({row.N, 1});
      out.push_back({op, pre, ops});
    } else if (op == Opcode::bitop) {
      static constexpr std::pair<const char*, const char*> kAlias[] = {
          {"and", "0001"}, {"or", "0111"}, {"xor", "0110"}, {"nand", "1110"},
          {"nor", "1000"}, {"xnor", "1001"}, {"not", "1010"}, {"mov", "0101"}};
      for (auto [a, tt] : kAlias)
        if (base == a) {
          bool unary = base == "not" || base == "mov";
          out.push_back({op, pre, with({{tt, at.column}}, unary ? std::vector<Token>{{"0", at.column}} : std::vector<Token>{})});
        }
      if (base == "bitop_mov_a") out.push_back({op, pre, ops});
    } else if (op == Opcode::if_fcmp && (base == "push_exec" || base == "update_exec") && !ops.empty()) {
      std::vector<Token> v{ops[0], {"eq", at.column}, {"0.0", at.column}, {"0.0", at.column}};
      v.push_back(base == "push_exec" && ops.size() > 1 ? ops[1] : Token{"0", at.column});
      if (ops.size() == (base == "push_exec" ? 2u : 1u)) out.push_back({op, pre, v});
    }
  }
  return out;
}

bool same_operand(std::string_view want, std::string_view got, uint64_t pc) {
  if (want == got) return true;
  auto a = parse_int(want), b = parse_int(got);
  if (a && b) return *a == *b;
  auto x = branch_offset(want, pc), y = branch_offset(got, pc);
  if (x && y) return *x == *y;
  if (want.starts_with("sr") && got.starts_with(want) && got.substr(want.size()).starts_with(" ("))
    return true;
  return false;
}

struct Search {
  const Line& line;
  std::string_view whole;  // the instruction as written
  const Candidate& cand;
  uint64_t pc;
  std::optional<Encoded> result;
  size_t best_depth = 0;
  std::string best_error;

  // The error of the attempt that got furthest wins; at the same operand, a
  // parse error (what was expected) beats a failed consistency check.
  void note(size_t operand, std::string error, bool parse = true) {
    size_t depth = operand * 2 + (parse ? 1 : 0);
    if (depth >= best_depth || best_error.empty()) {
      best_depth = depth;
      best_error = std::move(error);
    }
  }

  bool verify(const Draft& d) {
    Instr in;
    in.op = d.op;
    in.field_count = static_cast<uint8_t>(fields_of(d.op).size());
    in.fields = d.fields;
    auto enc = encode(in);
    if (!enc) return note(cand.operands.size(), enc.error().message(), false), false;
    auto dec = decode(enc->span(), pc);
    if (!dec) return note(cand.operands.size(), dec.error().message(), false), false;
    Listing got = listing(*dec, pc);
    std::vector<std::string> shown;
    for (auto& o : got.operands)
      if (!o.empty()) shown.push_back(o);
    bool same = got.mnemonic == line.mnemonic.text && shown.size() == line.operands.size();
    for (size_t i = 0; same && i < shown.size(); ++i)
      same = same_operand(line.operands[i].text, shown[i], pc);
    // The encoding found reads back as other text: say so about the user's
    // own text (the other instruction is nothing the user wrote).
    if (!same)
      return note(cand.operands.size(),
                  fmt::format("column {}: '{}' cannot be encoded: its operands do not fit together",
                              line.mnemonic.column, printable(whole, 80)),
                  false),
             false;
    result = *enc;
    return true;
  }

  bool walk(Draft d, size_t j, size_t k) {
    auto rows = operands_of(d.op);
    size_t first = static_cast<size_t>(rows.data() - kOperands);
    if (j == rows.size()) {
      if (k != cand.operands.size()) {
        note(k, fmt::format("column {}: unexpected operand '{}'", cand.operands[k].column,
                            printable(cand.operands[k].text)));
        return false;
      }
      return verify(d);
    }
    if (k < cand.operands.size()) {
      // An enum name may stand for several values (iter's 'sample'): try each.
      const Token& tok = cand.operands[k];
      if (rows[j].kind == OperandDesc::kEnum) {
        int8_t f = operand_fields(first + j).main;
        for (const auto& e : kEnums) {
          if (e.table != rows[j].enum_table || e.text != tok.text) continue;
          Draft next = d;
          if (next.set(f, e.value) && walk(next, j + 1, k + 1)) return true;
        }
      }
      Draft next = d;
      if (auto missing = parse::missing_register(tok.text)) {
        note(k, fmt::format("column {}: {}", tok.column, *missing));
      } else if (auto err = parse_operand(next, first + j, tok.text)) {
        note(k, fmt::format("column {}: {}", tok.column, *err));
      } else {
        if (walk(next, j + 1, k + 1)) return true;
        // An r16 texture index also prints from type 2 (which enables U).
        const OperandFields& f = operand_fields(first + j);
        if (rows[j].kind == OperandDesc::kTexture && next.get(f.t) == 1 && next.get(f.main) != 0 &&
            next.set(f.t, 2) && walk(next, j + 1, k + 1))
          return true;
        // r16 coordinates: the dimension may come later, so try both forms.
        if (rows[j].kind == OperandDesc::kCoords && tok.text.find_first_of("lh") != std::string::npos &&
            next.set(f.s, next.get(f.s) ^ 1) && walk(next, j + 1, k + 1))
          return true;
      }
    } else {
      note(k, fmt::format("column {}: missing operand {} of {}", line.mnemonic.column,
                          rows[j].name, op_info(d.op).mnemonic));
    }
    Draft empty = d;
    return set_empty_operand(empty, first + j) && walk(empty, j + 1, k);
  }
};

Result<Encoded> assemble_in_line(std::string_view text, uint64_t pc, size_t column_base) {
  Line line = split(text, column_base);
  if (line.mnemonic.text.empty())
    return Error::parse("column {}: expected an instruction", column_base + 1);
  auto cands = candidates(line);
  if (cands.empty())
    return Error::parse("column {}: unknown mnemonic '{}'", line.mnemonic.column, printable(line.mnemonic.text));
  std::string error;
  size_t depth = 0;
  for (const auto& c : cands) {
    Draft d{c.op};
    d.pc = pc;
    for (auto [i, v] : c.preset) d.set(i, v);
    Search s{line, trim(text), c, pc, std::nullopt, 0, {}};
    if (s.walk(d, 0, 0)) return *s.result;
    if (error.empty() || s.best_depth > depth) error = s.best_error, depth = s.best_depth;
  }
  return Error::parse("{}", error);
}

}  // namespace

Result<Encoded> assemble(std::string_view text, uint64_t pc) { return assemble_in_line(text, pc, 0); }

Result<std::vector<uint8_t>> assemble_program(std::string_view text, uint64_t base_pc) {
  std::vector<uint8_t> out;
  size_t n = 0, start = 0, line_no = 1, line_start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(";\n", start);
    std::string_view piece = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (!trim(piece).empty()) {
      ++n;
      auto enc = assemble_in_line(piece, base_pc + out.size(), start - line_start);
      if (!enc)
        return std::move(enc).error().context(fmt::format("instruction {} (line {})", n, line_no));
      out.insert(out.end(), enc->bytes.begin(), enc->bytes.begin() + enc->length_B);
    }
    if (end == std::string_view::npos) break;
    if (text[end] == '\n') ++line_no, line_start = end + 1;
    start = end + 1;
  }
  if (n == 0) return Error::parse("no instructions in the text");
  return out;
}

}  // namespace agx::isa
