// The cmdstream unit's public header: every struct and enum of the AGX
// command-buffer XML (bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml at
// commit 691aa581c37b8a518776cf83358cbc4ac6f57e57) as one table each, with
// a typed API for executing packets and a generic one for tools.
//
//   namespace cs = agx::cmdstream;
//   AGX_TRY(cs::CdmLaunchWord0 w0, cs::unpack<cs::CdmLaunchWord0>(bytes));
//   if (w0.block_type != cs::CdmBlockType::kLaunch) ...;
//   if (w0.mode == cs::CdmMode::kDirect) ...;   // uniform_register_count is
//   unsigned uniforms = w0.uniform_register_count;  // the count, not groups
//   cs::UscShader s;                            // members start at defaults
//   s.code = 0x1000;                            // exact Tag filled in
//   AGX_TRY(std::vector<uint8_t> b, cs::pack(s));  // 6 bytes, or an error
//   const cs::StructDesc* d = cs::find_struct("Texture");  // generic path:
//   AGX_TRY(cs::Unpacked u, cs::unpack(*d, bytes));  // values + unknown bits
#pragma once

#include "cmdstream/enums.h"
#include "cmdstream/field_table.h"
#include "cmdstream/report.h"
#include "cmdstream/tables.h"
#include "cmdstream/typed.h"
