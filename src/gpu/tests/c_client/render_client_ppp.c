/* A draw's PPP update: the PPP Header, then the words it selects in record
 * order (bminor/mesa-mesa src/asahi/lib/agx_ppp.h, as cmdstream/ppp_order.h
 * lists them): Fragment control, front face and stencil, back face and
 * stencil, Depth bias/Scissor, Viewport control + one Viewport, Output
 * Select, Varying Counts 32, Cull, Fragment Shader Words 0-3, Occlusion
 * query. */
#include <string.h>

#include "agx_pack_c.h"
#include "render_client.h"

struct record {
  uint8_t b[256];
  size_t n;
  int* failed;
};

static uint8_t* room(struct record* r, size_t n) {
  if (r->n + n > sizeof r->b) {
    *r->failed = 1;
    return NULL;
  }
  uint8_t* at = r->b + r->n;
  r->n += n;
  return at;
}
#define PUSH(r, name, NAME, v)                                      \
  do {                                                              \
    uint8_t* at_ = room(r, AGX_##NAME##_LENGTH);                    \
    if (at_ && agx_##name##_pack(at_, v)) *(r)->failed = 1;         \
  } while (0)

/* Front or back: the depth function (Always when the draw sets none), the
 * stencil reference, line width 1 px ((value + 1) / 16, Mesa's
 * agx_pack_line_width), then its stencil word. */
static void push_face(struct record* r, const struct draw* d) {
  struct agx_fragment_face face;
  agx_fragment_face_init(&face);
  face.depth_function = d->depth_func ? d->depth_func : AGX_ZS_FUNC_ALWAYS;
  face.disable_depth_write = !d->depth_write;
  face.stencil_reference = d->stencil_ref;
  face.line_width = 15;
  PUSH(r, fragment_face, FRAGMENT_FACE, &face);
  struct agx_fragment_stencil st;
  agx_fragment_stencil_init(&st);
  st.compare = d->stencil_func ? d->stencil_func : AGX_ZS_FUNC_ALWAYS;
  st.read_mask = st.write_mask = 0xff;
  st.stencil_fail = st.depth_fail = AGX_STENCIL_OP_KEEP;
  st.depth_pass = d->stencil_func ? d->stencil_pass_op : AGX_STENCIL_OP_KEEP;
  PUSH(r, fragment_stencil, FRAGMENT_STENCIL, &st);
}

/* The fragment shader: rc_colour with the draw's colour, no CF binding. */
static void push_fragment_shader(struct frame* f, struct record* r, const struct draw* d) {
  struct agx_fragment_shader_word_0 w0;
  agx_fragment_shader_word_0_init(&w0);
  w0.uniform_register_count = 8;
  w0.preshader_register_count = 16;
  PUSH(r, fragment_shader_word_0, FRAGMENT_SHADER_WORD_0, &w0);
  struct agx_fragment_shader_word_1 w1;
  agx_fragment_shader_word_1_init(&w1);
  w1.pipeline = frame_tile_words(f, f->colour_code, d->colour, 0);
  PUSH(r, fragment_shader_word_1, FRAGMENT_SHADER_WORD_1, &w1);
  struct agx_cf_binding_header none;
  agx_cf_binding_header_init(&none);
  uint8_t hb[AGX_CF_BINDING_HEADER_LENGTH];
  if (agx_cf_binding_header_pack(hb, &none)) f->failed = 1;
  struct agx_fragment_shader_word_2 w2;
  agx_fragment_shader_word_2_init(&w2);
  w2.cf_bindings = arena_put(f->c, hb, sizeof hb, &f->failed) - ARENA_VA;
  PUSH(r, fragment_shader_word_2, FRAGMENT_SHADER_WORD_2, &w2);
  struct agx_fragment_shader_word_3 w3;
  agx_fragment_shader_word_3_init(&w3);
  PUSH(r, fragment_shader_word_3, FRAGMENT_SHADER_WORD_3, &w3);
}

uint64_t frame_ppp_update(struct frame* f, const struct draw* d, uint32_t* words) {
  struct record r = {.failed = &f->failed};
  struct agx_ppp_header h;
  agx_ppp_header_init(&h);
  h.fragment_control = h.fragment_front_face = h.fragment_front_stencil = 1;
  h.fragment_back_face = h.fragment_back_stencil = h.depth_bias_scissor = 1;
  h.viewport = h.output_select = h.varying_counts_32 = h.cull = h.fragment_shader = 1;
  h.viewport_count = 1;
  h.occlusion_query = d->query;
  PUSH(&r, ppp_header, PPP_HEADER, &h);
  struct agx_fragment_control fc;
  agx_fragment_control_init(&fc);
  fc.stencil_test_enable = d->stencil_func != 0;
  fc.scissor_enable = d->scissor;
  fc.visibility_mode = d->query ? AGX_VISIBILITY_MODE_COUNTING : AGX_VISIBILITY_MODE_NONE;
  PUSH(&r, fragment_control, FRAGMENT_CONTROL, &fc);
  push_face(&r, d); /* front */
  push_face(&r, d); /* back */
  struct agx_depth_bias_scissor ds;
  agx_depth_bias_scissor_init(&ds); /* scissor 0, depth bias 0 */
  PUSH(&r, depth_bias_scissor, DEPTH_BIAS_SCISSOR, &ds);
  struct agx_viewport_control vc;
  agx_viewport_control_init(&vc);
  PUSH(&r, viewport_control, VIEWPORT_CONTROL, &vc);
  struct agx_viewport vp; /* NDC -1..1 onto 0..RT_W, 0..RT_H; depth as is */
  agx_viewport_init(&vp);
  vp.translate_x = vp.scale_x = RT_W / 2;
  vp.translate_y = vp.scale_y = RT_H / 2;
  vp.translate_z = 0.0f;
  vp.scale_z = 1.0f;
  PUSH(&r, viewport, VIEWPORT, &vp);
  struct agx_output_select sel;
  agx_output_select_init(&sel);
  sel.viewport_target = sel.render_target = 1; /* rc_vs's layer/viewport word */
  PUSH(&r, output_select, OUTPUT_SELECT, &sel);
  struct agx_varying_counts vcnt;
  agx_varying_counts_init(&vcnt);
  PUSH(&r, varying_counts, VARYING_COUNTS, &vcnt);
  struct agx_cull cull;
  agx_cull_init(&cull);
  cull.front_face_ccw = 1;
  PUSH(&r, cull, CULL, &cull);
  push_fragment_shader(f, &r, d);
  if (d->query) {
    struct agx_fragment_occlusion_query q;
    agx_fragment_occlusion_query_init(&q); /* slot 0 */
    PUSH(&r, fragment_occlusion_query, FRAGMENT_OCCLUSION_QUERY, &q);
  }
  *words = (uint32_t)(r.n / 4);
  return arena_put(f->c, r.b, r.n, &f->failed);
}
