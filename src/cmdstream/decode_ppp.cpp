// PPP state records: a PPP Header whose present bits select the blocks that
// follow, in a fixed order; region clips and viewports repeat per viewport;
// the fragment shader block points to the fragment pipeline and its CF
// bindings; the blocks must fill the record exactly (order and sizes:
// bminor/mesa-mesa src/asahi/lib/decode.c, agxdecode_record; the order is
// cmdstream/ppp_order.h's table).
#include <algorithm>

#include "cmdstream/decode_internal.h"
#include "cmdstream/ppp_order.h"

namespace agx::cmdstream::detail {

namespace {

struct Record {
  Walker& w;
  DecodeNode& node;
  std::span<const uint8_t> bytes;
  GpuVa base;
  uint64_t at = 0;  // offset of the next block
  bool ok = true;

  // Unpacks the next block of type T from the record's bytes.
  template <class T>
  std::optional<T> take(const char* title = nullptr) {
    if (!ok) return std::nullopt;
    if (at + T::kSize_B > bytes.size()) {
      node.children.push_back(error_node(
          base + at, fmt::format("PPP record at 0x{:x}: {} at offset {} runs past the record's {} bytes", base,
                                 title ? title : desc_of<T>().name, at, bytes.size())));
      ok = false;
      return std::nullopt;
    }
    DecodedStruct s{&desc_of<T>(), base + at, std::vector<uint8_t>(bytes.begin() + at, bytes.begin() + at + T::kSize_B),
                    title ? title : ""};
    auto v = unpack<T>(s.bytes);
    node.structs.push_back(std::move(s));
    at += T::kSize_B;
    if (!v) {
      ok = false;
      return std::nullopt;
    }
    return *v;
  }
};

void cf_bindings(Walker& w, DecodeNode& parent, GpuVa va, uint64_t count) {
  DecodeNode n = packet_node(va, "CF bindings");
  if (count > w.config().limits.max_array) {
    parent.children.push_back(error_node(va, fmt::format("CF binding count {} exceeds the limit", count)));
    return;
  }
  if (read_typed<CfBindingHeader>(w, va, GpuUnit::ppp, n)) {
    GpuVa at = va + CfBindingHeader::kSize_B;
    for (uint64_t i = 0; i < count && read_typed<CfBinding>(w, at, GpuUnit::ppp, n); i++) at += CfBinding::kSize_B;
    n.size_B = at - va;
  }
  parent.children.push_back(std::move(n));
}

}  // namespace

DecodeNode ppp_record(Walker& w, GpuVa va, uint64_t size_B) {
  DecodeNode node = packet_node(va, fmt::format("PPP state record ({} bytes)", size_B));
  node.size_B = size_B;
  std::vector<uint8_t> bytes(size_B);
  if (!w.read(va, bytes, GpuUnit::ppp, "PPP state record", node)) return node;
  Record r{w, node, bytes, va};
  auto h = r.take<PppHeader>();
  if (!h) {
    node.children.push_back(error_node(va, fmt::format("PPP record at 0x{:x}: no room for its header", va)));
    return node;
  }
  // The words in the order of the one table (ppp_order.h); the fragment
  // shader's words point to its USC word list and CF bindings.
  std::optional<FragmentShaderWord0> f0;
  std::optional<FragmentShaderWord1> f1;
  std::optional<FragmentShaderWord2> f2;
  for_each_ppp_word(*h, [&]<class T>(PppTag<T>, PppWord word, const char* title, uint64_t) {
    auto v = r.take<T>(title);
    if constexpr (std::is_same_v<T, FragmentShaderWord0>) f0 = v;
    if constexpr (std::is_same_v<T, FragmentShaderWord1>) f1 = v;
    if constexpr (std::is_same_v<T, FragmentShaderWord2>) f2 = v;
    if (word == PppWord::fragment_shader_3) {
      if (f0 && f1)
        node.children.push_back(
            usc_words(w, w.usc(f1->pipeline), "Fragment pipeline (USC words)", f0->sampler_state_register_count));
      if (f0 && f2 && f2->cf_bindings) cf_bindings(w, node, w.usc(f2->cf_bindings), f0->cf_binding_count);
    }
    return r.ok;
  });
  if (r.ok && r.at != size_B)
    node.children.push_back(error_node(
        va + r.at, fmt::format("PPP record at 0x{:x}: the header's blocks take {} bytes, the record has {}", va, r.at,
                               size_B)));
  return node;
}

}  // namespace agx::cmdstream::detail
