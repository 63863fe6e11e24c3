// USC word lists: each word unpacked by its table; uniforms hexdumped,
// texture / PBE / sampler descriptors unpacked, shaders disassembled. The
// list ends with Preshader or No Preshader (bminor/mesa-mesa
// src/asahi/lib/decode.c, src/asahi/lib/agx_usc.h).
#include "cmdstream/decode_internal.h"

namespace agx::cmdstream::detail {

namespace {

bool extended(SamplerStates s) { return s == SamplerStates::k8Extended || s == SamplerStates::k16Extended; }

// Uniform words: the bytes they load into uniform registers.
template <class T>
void uniform(Walker& w, Block& b, const T& u) {
  DecodeNode data;
  data.kind = DecodeNode::Kind::data;
  data.title = fmt::format("uniforms u{}.. ({} halfs)", u.start_halfs, u.size_halfs);
  data.va = u.buffer;
  std::vector<uint8_t> bytes(size_t(2 * u.size_halfs));
  if (w.read(u.buffer, bytes, GpuUnit::usc, "uniform buffer", b.node)) {
    data.size_B = bytes.size();
    data.lines = Walker::hexdump(u.buffer, bytes);
    b.node.children.push_back(std::move(data));
  }
}

// count descriptors of `stride` bytes from buffer, each unpacked by `each`.
template <class Fn>
void descriptors(Walker& w, Block& b, const char* what, uint64_t buffer, uint64_t start, uint64_t count,
                 uint64_t stride, Fn each) {
  if (count > w.config().limits.max_array) {
    b.node.children.push_back(error_node(buffer, fmt::format("{} count {} exceeds the limit", what, count)));
    return;
  }
  for (uint64_t i = 0; i < count; i++) {
    DecodeNode d = packet_node(buffer + i * stride, fmt::format("{} {}", what, start + i));
    d.size_B = stride;
    each(d, buffer + i * stride);
    b.node.children.push_back(std::move(d));
  }
}

// Every USC word starts with its control tag: read through the smallest
// word's table.
const StreamHead kUscHead{kUscNoPreshader, GpuUnit::usc, "USC word (unreadable: the list runs off mapped memory)"};

Block usc_word(Walker& w, GpuVa va, std::span<const uint8_t> head_bytes, SamplerStates samplers, ImageKind images) {
  Block b;
  b.node = packet_node(va, "USC word");
  const UscNoPreshader head = *unpack<UscNoPreshader>(head_bytes);
  auto word = [&]<class T>(T*) -> std::optional<T> {
    b.node.title = std::string(desc_of<T>().name);
    b.node.size_B = T::kSize_B;
    b.size_B = T::kSize_B;
    auto v = read_typed<T>(w, va, GpuUnit::usc, b.node);
    if (!v) b.flow = Flow::stop;
    return v;
  };
  switch (head.tag) {
    case UscControl::kUniform:
      if (auto u = word((UscUniform*)nullptr)) uniform(w, b, *u);
      break;
    case UscControl::kUniformHigh:
      if (auto u = word((UscUniformHigh*)nullptr)) uniform(w, b, *u);
      break;
    case UscControl::kTexture:
      if (auto t = word((UscTexture*)nullptr)) {
        descriptors(w, b, images == ImageKind::pbe ? "PBE" : "Texture", t->buffer, t->start, t->count,
                    Texture::kSize_B, [&](DecodeNode& d, GpuVa at) {
                      if (images == ImageKind::pbe)
                        (void)read_typed<Pbe>(w, at, GpuUnit::texture, d);
                      else
                        (void)read_typed<Texture>(w, at, GpuUnit::texture, d);
                    });
      }
      break;
    case UscControl::kSampler:
      if (auto s = word((UscSampler*)nullptr)) {
        const bool ext = extended(samplers);
        descriptors(w, b, "Sampler", s->buffer, s->start, s->count,
                    Sampler::kSize_B + (ext ? Border::kSize_B : 0), [&](DecodeNode& d, GpuVa at) {
                      if (read_typed<Sampler>(w, at, GpuUnit::texture, d) && ext)
                        (void)read_typed<Border>(w, at + Sampler::kSize_B, GpuUnit::texture, d);
                    });
      }
      break;
    case UscControl::kShared:
      (void)word((UscShared*)nullptr);
      break;
    case UscControl::kRegisters:
      (void)word((UscRegisters*)nullptr);
      break;
    case UscControl::kFragmentProperties:
      (void)word((UscFragmentProperties*)nullptr);
      break;
    case UscControl::kShader:
      if (auto s = word((UscShader*)nullptr)) b.node.children.push_back(w.shader(w.usc(s->code), "Shader"));
      break;
    case UscControl::kPreshader:
      if (auto s = word((UscPreshader*)nullptr)) {
        b.node.children.push_back(w.shader(w.usc(s->code), "Preshader"));
        b.flow = Flow::terminate;
      }
      break;
    case UscControl::kNoPreshader:
      if (word((UscNoPreshader*)nullptr)) b.flow = Flow::terminate;
      break;
    default:
      b.node.children.push_back(error_node(
          va, fmt::format("unknown USC control word 0x{:02x} at 0x{:x}: its length is unknown, the list stops",
                          uint32_t(head.tag), va)));
      b.node.size_B = 1;
      b.flow = Flow::stop;
  }
  return b;
}

}  // namespace

DecodeNode usc_words(Walker& w, GpuVa va, std::string title, SamplerStates samplers, ImageKind images) {
  return w.walk(va, std::move(title), kUscHead, [&](Walker& walker, GpuVa at, std::span<const uint8_t> head) {
    return usc_word(walker, at, head, samplers, images);
  });
}

}  // namespace agx::cmdstream::detail
