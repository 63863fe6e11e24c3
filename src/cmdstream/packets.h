// Hardware struct tables. Source of every bit position, size, type,
// modifier and enum value here: bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml
// (structs "CF binding header", "CF binding", "Varying Counts", "Output
// Select", "VDM State Vertex Outputs"; enums "Shade model" and
// "Coefficient source"). Each struct's field enum gives the index of a
// field in its Values; a static_assert ties each enum to the table.
#pragma once

#include "cmdstream/field_table.h"

namespace agx::cmdstream {

// --- enums -----------------------------------------------------------------

inline constexpr EnumValue kShadeModelValues[] = {
    {"Flat vertex 0", 0}, {"Flat vertex 2", 2}, {"Linear", 3},
    {"Flat vertex 1", 6}, {"Perspective", 7},
};

// "Barycentric coord" is vec2 only (cmdbuf.xml comment).
inline constexpr EnumValue kCoefficientSourceValues[] = {
    {"Varying", 0}, {"Fragcoord Z", 1}, {"Point coord", 2},
    {"Primitive ID", 3}, {"Barycentric coord", 5},
};

// --- CF binding header (1 word) --------------------------------------------

enum CfBindingHeaderField : unsigned { kNumber32BitSlots, kNumberCoefficientRegisters };
inline constexpr FieldDesc kCfBindingHeaderFields[] = {
    {"Number of 32-bit slots", 0, 8, FieldType::uint},
    {"Number of coefficient registers", 8, 8, FieldType::uint},
};
inline constexpr StructDesc kCfBindingHeader{"CF binding header", 1, kCfBindingHeaderFields};

// --- CF binding (1 word) ---------------------------------------------------

enum CfBindingField : unsigned {
  kComponents, kShadeModel, kSource, kBaseSlot, kBaseCoefficientRegister
};
inline constexpr FieldDesc kCfBindingFields[] = {
    {"Components", 0, 2, FieldType::uint, Modifier::minus_one},
    {"Shade model", 2, 3, FieldType::enumeration, Modifier::none, 0, kShadeModelValues},
    {"Source", 5, 3, FieldType::enumeration, Modifier::none, 0, kCoefficientSourceValues},
    {"Base slot", 8, 8, FieldType::uint},
    {"Base coefficient register", 16, 8, FieldType::uint},
};
inline constexpr StructDesc kCfBinding{"CF binding", 1, kCfBindingFields};

// --- Varying Counts (1 word; one for 32-bit and one for 16-bit outputs) ----

enum VaryingCountsField : unsigned { kSmooth, kFlat, kLinear };
inline constexpr FieldDesc kVaryingCountsFields[] = {
    {"Smooth", 0, 8, FieldType::uint},
    {"Flat", 8, 8, FieldType::uint},
    {"Linear", 16, 8, FieldType::uint},
};
inline constexpr StructDesc kVaryingCounts{"Varying Counts", 1, kVaryingCountsFields};

// --- Output Select (1 word) ------------------------------------------------

// Fields 0..15 are "Clip distance plane i" (bit i).
enum OutputSelectField : unsigned {
  kClipDistancePlane0 = 0,
  kVaryings = 16, kPointSize, kViewportTarget, kRenderTarget, kFragCoordZ, kBarycentricCoordinates
};
inline constexpr unsigned kMaxClipDistances = 16;
inline constexpr FieldDesc kOutputSelectFields[] = {
    {"Clip distance plane 0", 0, 1, FieldType::boolean},
    {"Clip distance plane 1", 1, 1, FieldType::boolean},
    {"Clip distance plane 2", 2, 1, FieldType::boolean},
    {"Clip distance plane 3", 3, 1, FieldType::boolean},
    {"Clip distance plane 4", 4, 1, FieldType::boolean},
    {"Clip distance plane 5", 5, 1, FieldType::boolean},
    {"Clip distance plane 6", 6, 1, FieldType::boolean},
    {"Clip distance plane 7", 7, 1, FieldType::boolean},
    {"Clip distance plane 8", 8, 1, FieldType::boolean},
    {"Clip distance plane 9", 9, 1, FieldType::boolean},
    {"Clip distance plane 10", 10, 1, FieldType::boolean},
    {"Clip distance plane 11", 11, 1, FieldType::boolean},
    {"Clip distance plane 12", 12, 1, FieldType::boolean},
    {"Clip distance plane 13", 13, 1, FieldType::boolean},
    {"Clip distance plane 14", 14, 1, FieldType::boolean},
    {"Clip distance plane 15", 15, 1, FieldType::boolean},
    {"Varyings", 16, 1, FieldType::boolean},
    {"Point size", 18, 1, FieldType::boolean},
    {"Viewport target", 19, 1, FieldType::boolean},
    {"Render target", 20, 1, FieldType::boolean},
    {"Frag coord Z", 21, 1, FieldType::boolean},
    {"Barycentric coordinates", 22, 1, FieldType::boolean},
};
inline constexpr StructDesc kOutputSelect{"Output Select", 1, kOutputSelectFields};

// --- VDM State Vertex Outputs (1 word) -------------------------------------

enum VdmVertexOutputsField : unsigned { kOutputCount1, kOutputCount2 };
inline constexpr FieldDesc kVdmVertexOutputsFields[] = {
    {"Output count 1", 0, 8, FieldType::uint},
    {"Output count 2", 8, 8, FieldType::uint},
};
inline constexpr StructDesc kVdmVertexOutputs{"VDM State Vertex Outputs", 1,
                                              kVdmVertexOutputsFields};

// Every table of this file, for tests and tools that walk them all.
inline constexpr const StructDesc* kVaryingStructs[] = {
    &kCfBindingHeader, &kCfBinding, &kVaryingCounts, &kOutputSelect, &kVdmVertexOutputs,
};

static_assert(table_is_valid(kCfBindingHeader) && table_is_valid(kCfBinding) &&
              table_is_valid(kVaryingCounts) && table_is_valid(kOutputSelect) &&
              table_is_valid(kVdmVertexOutputs));
static_assert(field_index(kCfBinding, "Base coefficient register") == kBaseCoefficientRegister);
static_assert(field_index(kCfBinding, "Shade model") == kShadeModel);
static_assert(field_index(kCfBindingHeader, "Number of coefficient registers") ==
              kNumberCoefficientRegisters);
static_assert(field_index(kVaryingCounts, "Linear") == kLinear);
static_assert(field_index(kOutputSelect, "Clip distance plane 15") == 15);
static_assert(field_index(kOutputSelect, "Varyings") == kVaryings);
static_assert(field_index(kOutputSelect, "Barycentric coordinates") == kBarycentricCoordinates);
static_assert(field_index(kVdmVertexOutputs, "Output count 2") == kOutputCount2);

}  // namespace agx::cmdstream
