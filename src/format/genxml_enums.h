// Every enum of the AGX command-buffer XML, as data: the one table of their
// names and values in the project. Source of the facts: bminor/mesa-mesa
// src/asahi/genxml/cmdbuf.xml at commit
// 691aa581c37b8a518776cf83358cbc4ac6f57e57 (our own transcription).
//
// It lives in the format unit because format is the lowest unit that needs
// one of them (Channels, Texture Type); format.h builds its Channels and
// TextureType from here and cmdstream/enums.h builds every enum (and their
// name tables) from here. Header-only macros, no code.
//
// AGX_GENXML_ENUMS(E) lists E(Id, "cmdbuf.xml name", owner) for each enum in
// file order; owner is the unit that defines the C++ enum class (format or
// cmdstream). AGX_GENXML_ENUM_<Id>(V) lists V(identifier, "name", value).
// Identifiers are k + the name's words in PascalCase ("Not Equal" ->
// kNotEqual, "1D Array" -> k1DArray, "Clamp (GL)" -> kClampGl), except
// Channels and Texture Type, which keep the format unit's spellings.
#pragma once

#define AGX_GENXML_ENUMS(E)                          \
  E(Channel, "Channel", cmdstream)                   \
  E(ZsFunc, "ZS Func", cmdstream)                    \
  E(CompareFunc, "Compare func", cmdstream)          \
  E(StencilOp, "Stencil Op", cmdstream)              \
  E(VisibilityMode, "Visibility Mode", cmdstream)    \
  E(PolygonMode, "Polygon Mode", cmdstream)          \
  E(Primitive, "Primitive", cmdstream)               \
  E(ObjectType, "Object Type", cmdstream)            \
  E(Layout, "Layout", cmdstream)                     \
  E(Channels, "Channels", format)                    \
  E(TextureType, "Texture Type", format)             \
  E(ShadeModel, "Shade model", cmdstream)            \
  E(CoefficientSource, "Coefficient source", cmdstream) \
  E(TextureDimension, "Texture dimension", cmdstream) \
  E(SampleCount, "Sample Count", cmdstream)          \
  E(ImageMode, "Image Mode", cmdstream)              \
  E(Wrap, "Wrap", cmdstream)                         \
  E(MipFilter, "Mip filter", cmdstream)              \
  E(BorderColour, "Border colour", cmdstream)        \
  E(Filter, "Filter", cmdstream)                     \
  E(SamplerStates, "Sampler states", cmdstream)      \
  E(ConservativeDepth, "Conservative depth", cmdstream) \
  E(PassType, "Pass type", cmdstream)                \
  E(PppVertex, "PPP Vertex", cmdstream)              \
  E(UscControl, "USC Control", cmdstream)            \
  E(SharedLayout, "Shared layout", cmdstream)        \
  E(VdmBlockType, "VDM Block Type", cmdstream)       \
  E(IndexSize, "Index size", cmdstream)              \
  E(VdmVertex, "VDM Vertex", cmdstream)              \
  E(PartitionMode, "Partition mode", cmdstream)      \
  E(StepFunction, "Step function", cmdstream)        \
  E(PatchType, "Patch type", cmdstream)              \
  E(FactorType, "Factor type", cmdstream)            \
  E(CdmBlockType, "CDM Block Type", cmdstream)       \
  E(CdmMode, "CDM Mode", cmdstream)                  \
  E(ZlsFormat, "ZLS Format", cmdstream)              \
  E(ZlsTiling, "ZLS Tiling", cmdstream)

#define AGX_GENXML_ENUM_Channel(V) \
  V(kR, "R", 0) V(kG, "G", 1) V(kB, "B", 2) V(kA, "A", 3) V(k1, "1", 4) V(k0, "0", 5)

#define AGX_GENXML_ENUM_ZsFunc(V)                                                        \
  V(kNever, "Never", 0) V(kLess, "Less", 1) V(kEqual, "Equal", 2) V(kLequal, "Lequal", 3) \
  V(kGreater, "Greater", 4) V(kNotEqual, "Not Equal", 5) V(kGequal, "Gequal", 6)         \
  V(kAlways, "Always", 7)

#define AGX_GENXML_ENUM_CompareFunc(V)                                                   \
  V(kLequal, "Lequal", 0) V(kGequal, "Gequal", 1) V(kLess, "Less", 2) V(kGreater, "Greater", 3) \
  V(kEqual, "Equal", 4) V(kNotEqual, "Not Equal", 5) V(kAlways, "Always", 6)             \
  V(kNever, "Never", 7)

#define AGX_GENXML_ENUM_StencilOp(V)                                                     \
  V(kKeep, "Keep", 0) V(kZero, "Zero", 1) V(kReplace, "Replace", 2) V(kIncrSat, "Incr Sat", 3) \
  V(kDecrSat, "Decr Sat", 4) V(kInvert, "Invert", 5) V(kIncrWrap, "Incr Wrap", 6)        \
  V(kDecrWrap, "Decr Wrap", 7)

#define AGX_GENXML_ENUM_VisibilityMode(V) \
  V(kNone, "None", 0) V(kCounting, "Counting", 2) V(kBoolean, "Boolean", 3)

#define AGX_GENXML_ENUM_PolygonMode(V) V(kFill, "Fill", 0) V(kLine, "Line", 1) V(kPoint, "Point", 2)

#define AGX_GENXML_ENUM_Primitive(V)                                                      \
  V(kPoints, "Points", 0) V(kLines, "Lines", 1) V(kLineStrip, "Line strip", 3)            \
  V(kLineLoop, "Line loop", 5) V(kTriangles, "Triangles", 6)                              \
  V(kTriangleStrip, "Triangle strip", 9) V(kTriangleFan, "Triangle fan", 11)              \
  V(kQuads, "Quads", 14) V(kQuadStrip, "Quad strip", 15)

#define AGX_GENXML_ENUM_ObjectType(V)                                                     \
  V(kTriangle, "Triangle", 0) V(kLine, "Line", 1) V(kPointSpriteUv10, "Point sprite UV=10", 2) \
  V(kPointSpriteUv01, "Point sprite UV=01", 4)

#define AGX_GENXML_ENUM_Layout(V) \
  V(kLinear, "Linear", 0) V(kTwiddled, "Twiddled", 1) V(kGpu, "GPU", 2) V(kInterchange, "Interchange", 3)

// 0x36 is software-defined (Mesa lowers texture-buffer reads of RGB32).
#define AGX_GENXML_ENUM_Channels(V)                                                       \
  V(R8, "R8", 0x00) V(R16, "R16", 0x09) V(R8G8, "R8G8", 0x0A) V(R5G6B5, "R5G6B5", 0x0B)    \
  V(R4G4B4A4, "R4G4B4A4", 0x0C) V(A1R5G5B5, "A1R5G5B5", 0x0D) V(R5G5B5A1, "R5G5B5A1", 0x0E) \
  V(R32, "R32", 0x21) V(R16G16, "R16G16", 0x23) V(R11G11B10, "R11G11B10", 0x25)            \
  V(R10G10B10A2, "R10G10B10A2", 0x26) V(R9G9B9E5, "R9G9B9E5", 0x27)                        \
  V(R8G8B8A8, "R8G8B8A8", 0x28) V(R32G32, "R32G32", 0x31)                                  \
  V(R16G16B16A16, "R16G16B16A16", 0x32) V(R32G32B32_EMULATED, "R32G32B32 (Emulated)", 0x36) \
  V(R32G32B32A32, "R32G32B32A32", 0x38) V(GBGR_422, "GBGR 422", 0x40)                      \
  V(BGRG_422, "BGRG 422", 0x41) V(PVRTC_2BPP, "PVRTC 2bpp", 0x50)                          \
  V(PVRTC_4BPP, "PVRTC 4bpp", 0x51) V(ETC2_RGB8, "ETC2 RGB8", 0x58)                        \
  V(ETC2_RGBA8, "ETC2 RGBA8", 0x59) V(ETC2_RGB8A1, "ETC2 RGB8A1", 0x5A)                    \
  V(EAC_R11, "EAC R11", 0x5B) V(EAC_RG11, "EAC RG11", 0x5C) V(ASTC_4X4, "ASTC 4x4", 0x60)  \
  V(ASTC_5X4, "ASTC 5x4", 0x61) V(ASTC_5X5, "ASTC 5x5", 0x62) V(ASTC_6X5, "ASTC 6x5", 0x63) \
  V(ASTC_6X6, "ASTC 6x6", 0x64) V(ASTC_8X5, "ASTC 8x5", 0x65) V(ASTC_8X6, "ASTC 8x6", 0x66) \
  V(ASTC_8X8, "ASTC 8x8", 0x67) V(ASTC_10X5, "ASTC 10x5", 0x68)                            \
  V(ASTC_10X6, "ASTC 10x6", 0x69) V(ASTC_10X8, "ASTC 10x8", 0x6A)                          \
  V(ASTC_10X10, "ASTC 10x10", 0x6B) V(ASTC_12X10, "ASTC 12x10", 0x6C)                      \
  V(ASTC_12X12, "ASTC 12x12", 0x6D) V(BC1, "BC1", 0x74) V(BC2, "BC2", 0x75)                \
  V(BC3, "BC3", 0x76) V(BC4, "BC4", 0x77) V(BC5, "BC5", 0x78) V(BC6H, "BC6H", 0x79)        \
  V(BC6H_UFLOAT, "BC6H Ufloat", 0x7A) V(BC7, "BC7", 0x7B)

#define AGX_GENXML_ENUM_TextureType(V)                                                    \
  V(Unorm, "Unorm", 0) V(Snorm, "Snorm", 1) V(Uint, "Uint", 2) V(Sint, "Sint", 3)          \
  V(Float, "Float", 4) V(XR, "XR", 5)

#define AGX_GENXML_ENUM_ShadeModel(V)                                                     \
  V(kFlatVertex0, "Flat vertex 0", 0) V(kFlatVertex2, "Flat vertex 2", 2)                  \
  V(kLinear, "Linear", 3) V(kFlatVertex1, "Flat vertex 1", 6) V(kPerspective, "Perspective", 7)

// "Barycentric coord" is for vec2 bindings only.
#define AGX_GENXML_ENUM_CoefficientSource(V)                                              \
  V(kVarying, "Varying", 0) V(kFragcoordZ, "Fragcoord Z", 1) V(kPointCoord, "Point coord", 2) \
  V(kPrimitiveId, "Primitive ID", 3) V(kBarycentricCoord, "Barycentric coord", 5)

#define AGX_GENXML_ENUM_TextureDimension(V)                                               \
  V(k1D, "1D", 0) V(k1DArray, "1D Array", 1) V(k2D, "2D", 2) V(k2DArray, "2D Array", 3)    \
  V(k2DMultisampled, "2D Multisampled", 4) V(k3D, "3D", 5) V(kCube, "Cube", 6)             \
  V(kCubeArray, "Cube Array", 7) V(k2DArrayMultisampled, "2D Array Multisampled", 8)

#define AGX_GENXML_ENUM_SampleCount(V) V(k2, "2", 0) V(k4, "4", 1)

#define AGX_GENXML_ENUM_ImageMode(V)                                                      \
  V(kNormal, "Normal", 0)                                                                 \
  V(kNotSparseButProbablyWithCounters, "Not sparse but probably with counters", 1)        \
  V(kSparseButProbablyNoCounters, "Sparse but probably no counters", 2) V(kSparse, "Sparse", 3)

#define AGX_GENXML_ENUM_Wrap(V)                                                           \
  V(kClampToEdge, "Clamp to edge", 0) V(kRepeat, "Repeat", 1)                              \
  V(kMirroredRepeat, "Mirrored repeat", 2) V(kClampToBorder, "Clamp to border", 3)         \
  V(kClampGl, "Clamp (GL)", 4) V(kMirroredClampToEdge, "Mirrored clamp to edge", 5)

#define AGX_GENXML_ENUM_MipFilter(V) V(kNone, "None", 0) V(kNearest, "Nearest", 1) V(kLinear, "Linear", 2)

#define AGX_GENXML_ENUM_BorderColour(V)                                                   \
  V(kTransparentBlack, "Transparent black", 0) V(kOpaqueBlack, "Opaque black", 1)          \
  V(kOpaqueWhite, "Opaque white", 2) V(kCustom, "Custom", 3)

#define AGX_GENXML_ENUM_Filter(V) V(kNearest, "Nearest", 0) V(kLinear, "Linear", 1) V(kBicubic, "Bicubic", 2)

#define AGX_GENXML_ENUM_SamplerStates(V)                                                  \
  V(k0, "0", 0) V(k4Compact, "4 compact", 1) V(k8Compact, "8 compact", 2)                  \
  V(k12Compact, "12 compact", 3) V(k16Compact, "16 compact", 4) V(k8Extended, "8 extended", 6) \
  V(k16Extended, "16 extended", 7)

#define AGX_GENXML_ENUM_ConservativeDepth(V) \
  V(kAny, "Any", 0) V(kGreater, "Greater", 1) V(kLess, "Less", 2) V(kUnchanged, "Unchanged", 3)

#define AGX_GENXML_ENUM_PassType(V)                                                       \
  V(kOpaque, "Opaque", 0) V(kTranslucent, "Translucent", 1) V(kPunchThrough, "Punch through", 2) \
  V(kTranslucentPunchThrough, "Translucent punch through", 3)

#define AGX_GENXML_ENUM_PppVertex(V) V(k0, "0", 1) V(k1, "1", 2) V(k2, "2", 3)

#define AGX_GENXML_ENUM_UscControl(V)                                                     \
  V(kPreshader, "Preshader", 0x38) V(kFragmentProperties, "Fragment properties", 0x58)     \
  V(kNoPreshader, "No preshader", 0x88) V(kShader, "Shader", 0x0d) V(kUniform, "Uniform", 0x1d) \
  V(kUniformHigh, "Uniform high", 0x3d) V(kShared, "Shared", 0x4d)                         \
  V(kRegisters, "Registers", 0x8d) V(kSampler, "Sampler", 0x9d) V(kTexture, "Texture", 0xdd)

#define AGX_GENXML_ENUM_SharedLayout(V)                                                   \
  V(kVertexCompute, "Vertex/compute", 0x24) V(k32x32, "32x32", 0x2f) V(k32x16, "32x16", 0x3f) \
  V(k16x16, "16x16", 0x36)

#define AGX_GENXML_ENUM_VdmBlockType(V)                                                   \
  V(kPppStateUpdate, "PPP State Update", 0) V(kBarrier, "Barrier", 1)                      \
  V(kVdmStateUpdate, "VDM State Update", 2) V(kIndexList, "Index List", 3)                 \
  V(kStreamLink, "Stream Link", 4) V(kTessellate, "Tessellate", 5)                         \
  V(kStreamTerminate, "Stream terminate", 6)

#define AGX_GENXML_ENUM_IndexSize(V) V(kU8, "U8", 0) V(kU16, "U16", 1) V(kU32, "U32", 2)

#define AGX_GENXML_ENUM_VdmVertex(V) V(k0, "0", 0) V(k1, "1", 1) V(k2, "2", 2)

#define AGX_GENXML_ENUM_PartitionMode(V)                                                  \
  V(kPow2, "Pow 2", 0) V(kInteger, "Integer", 1) V(kFractionalOdd, "Fractional odd", 2)    \
  V(kFractionalEven, "Fractional even", 3)

#define AGX_GENXML_ENUM_StepFunction(V)                                                   \
  V(kConstant, "Constant", 0) V(kPerPatch, "Per patch", 1) V(kPerInstance, "Per instance", 2) \
  V(kPerPatchAndPerInstance, "Per patch and per instance", 3)

#define AGX_GENXML_ENUM_PatchType(V) V(kTriangles, "Triangles", 0) V(kQuads, "Quads", 1)

#define AGX_GENXML_ENUM_FactorType(V) V(kFp16, "FP16", 0) V(kFp32, "FP32", 1)

#define AGX_GENXML_ENUM_CdmBlockType(V)                                                   \
  V(kLaunch, "Launch", 0) V(kStreamLink, "Stream Link", 1)                                 \
  V(kStreamTerminate, "Stream Terminate", 2) V(kBarrier, "Barrier", 3)                     \
  V(kStreamReturn, "Stream Return", 4)

// Direct: global + local size follow. Indirect global: an indirect buffer of
// 3x32-bit global size + local size. Indirect local: a buffer of 6x32-bit.
#define AGX_GENXML_ENUM_CdmMode(V) \
  V(kDirect, "Direct", 0) V(kIndirectGlobal, "Indirect global", 1) V(kIndirectLocal, "Indirect local", 2)

#define AGX_GENXML_ENUM_ZlsFormat(V) V(k32F, "32F", 0) V(k16, "16", 2)

#define AGX_GENXML_ENUM_ZlsTiling(V) V(kGpu, "GPU", 0) V(kTwiddled, "Twiddled", 1)
