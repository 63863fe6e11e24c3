// Depth and stencil tests of one sample, as the PPP words in force say
// (bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml "Fragment face", "Fragment
// stencil", "Fragment control", "ZS Func", "Stencil Op", "Depth bias").
#include <algorithm>
#include <cmath>

#include "gpu/isp/isp.h"

namespace agx::gpu {

namespace cs = cmdstream;

FaceTest face_test(const PppWords& ppp, bool front_facing) {
  const cs::FragmentFace& face = front_facing ? ppp.front : ppp.back;
  const bool two_sided = ppp.fragment_control.two_sided_stencil;
  const cs::FragmentStencil& st = front_facing || !two_sided ? ppp.front_stencil : ppp.back_stencil;
  FaceTest t;
  t.depth_func = face.depth_function;
  t.depth_write = !face.disable_depth_write;
  t.stencil = ppp.fragment_control.stencil_test_enable;
  t.stencil_func = st.compare;
  t.stencil_fail = st.stencil_fail;
  t.depth_fail = st.depth_fail;
  t.depth_pass = st.depth_pass;
  t.read_mask = uint8_t(st.read_mask);
  t.write_mask = uint8_t(st.write_mask);
  const cs::FragmentFace& ref_face = front_facing || !two_sided ? ppp.front : ppp.back;
  t.reference = uint8_t(ref_face.stencil_reference);
  return t;
}

bool compare(cs::ZsFunc f, double a, double b) {
  switch (f) {
    case cs::ZsFunc::kNever: return false;
    case cs::ZsFunc::kLess: return a < b;
    case cs::ZsFunc::kEqual: return a == b;
    case cs::ZsFunc::kLequal: return a <= b;
    case cs::ZsFunc::kGreater: return a > b;
    case cs::ZsFunc::kNotEqual: return a != b;
    case cs::ZsFunc::kGequal: return a >= b;
    case cs::ZsFunc::kAlways: return true;
  }
  return false;
}

uint8_t stencil_op(cs::StencilOp op, uint8_t v, uint8_t ref) {
  switch (op) {
    case cs::StencilOp::kKeep: return v;
    case cs::StencilOp::kZero: return 0;
    case cs::StencilOp::kReplace: return ref;
    case cs::StencilOp::kIncrSat: return v == 0xFF ? v : uint8_t(v + 1);
    case cs::StencilOp::kDecrSat: return v == 0 ? v : uint8_t(v - 1);
    case cs::StencilOp::kInvert: return uint8_t(~v);
    case cs::StencilOp::kIncrWrap: return uint8_t(v + 1);
    case cs::StencilOp::kDecrWrap: return uint8_t(v - 1);
  }
  return v;
}

double quantize_depth(double z, DepthFormat f) {
  if (f == DepthFormat::f32) return double(float(z));
  return std::nearbyint(std::clamp(z, 0.0, 1.0) * 65535.0) / 65535.0;
}

bool depth_stencil_test(const FaceTest& t, DepthFormat f, double fragment_z, float& stored_z, uint8_t& stored_s) {
  bool stencil_pass = true;
  if (t.stencil)
    stencil_pass = compare(t.stencil_func, double(t.reference & t.read_mask), double(stored_s & t.read_mask));
  auto write_stencil = [&](cs::StencilOp op) {
    if (!t.stencil) return;
    const uint8_t next = stencil_op(op, stored_s, t.reference);
    stored_s = uint8_t((stored_s & ~t.write_mask) | (next & t.write_mask));
  };
  if (!stencil_pass) {
    write_stencil(t.stencil_fail);
    return false;
  }
  // Both sides as the buffer holds them (a float holds k / 65535 only
  // approximately, so a 16-bit value is re-quantized).
  const double z = quantize_depth(fragment_z, f);
  if (!compare(t.depth_func, z, quantize_depth(double(stored_z), f))) {
    write_stencil(t.depth_fail);
    return false;
  }
  write_stencil(t.depth_pass);
  if (t.depth_write) stored_z = float(z);
  return true;
}

double depth_bias(const cs::DepthBias& b, const RasterPrimitive& r, bool bias_is_int) {
  double unit;
  if (bias_is_int) {
    unit = std::ldexp(1.0, -16);
  } else {
    // 2^(e - 23) for the largest |z| of the primitive (a float32 buffer's
    // resolution there).
    const double zmax = std::max({std::abs(r.plane[0].z), std::abs(r.plane[1].z), std::abs(r.plane[2].z)});
    int e = 0;
    std::frexp(zmax, &e);  // zmax = m * 2^e, m in [0.5, 1)
    unit = zmax > 0 ? std::ldexp(1.0, e - 1 - 23) : std::ldexp(1.0, -149);
  }
  double bias = double(b.depth_bias) * unit + double(b.slope_scale) * max_depth_slope(r);
  const double clamp = double(b.clamp);
  if (clamp > 0) bias = std::min(bias, clamp);
  if (clamp < 0) bias = std::max(bias, clamp);
  return bias;
}

}  // namespace agx::gpu
