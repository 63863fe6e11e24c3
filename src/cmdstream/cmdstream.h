// The cmdstream unit's public header: the packet field-table engine and the
// hardware struct tables built on it. Later packets (VDM, CDM, PPP, USC)
// join packets.h in the same shape.
#pragma once

#include "cmdstream/field_table.h"
#include "cmdstream/packets.h"
