// Text and JSON presentation of decoded streams (the model is decode.h).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "cmdstream/decode.h"
#include "cmdstream/trace_file.h"

namespace agx::cmdstream {

// Indented text: one header line per node, its structs field by field, its
// lines, then its children. A crash-marked node is preceded by a line
// "==> ESTIMATED CRASH LOCATION <==".
std::string print_decode(const DecodeNode& root);

// {"kind", "title", "va", "size_B", "structs": [{"name", "va", "fields",
// "unknown_bits"?}], "lines", "children", "crash"?} (docs/cmdstream.md).
nlohmann::ordered_json decode_to_json(const DecodeNode& root);

// The header of a crash dump: fault, queue, command (text and JSON).
std::string print_fault(const Trace& dump);
nlohmann::ordered_json fault_to_json(const Trace& dump);

}  // namespace agx::cmdstream
