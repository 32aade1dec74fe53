//===- TextPlanSize.h - How large a plan is as YAML or JSON ----*- C++ -*-===//
//
// A plan's size as text, counted without writing it, so that compile can
// refuse before writing (and before spending the time: yaml-cpp's emitter
// writes about 2 MB/s) a text plan that readPlanFile would refuse to read
// back.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_TEXTPLANSIZE_H
#define COLLPLAN_SERIALIZE_TEXTPLANSIZE_H

#include "plan/ir/Plan.h"
#include "plan/serialize/PlanFile.h"

#include <cstdint>

namespace collplan {

/// At most the bytes encodePlan(P, F) takes, F being Yaml or Json, and
/// short of it by only the quotes and escapes of strings: the writers'
/// layout (indentation, separators, brackets) is counted exactly.
uint64_t textPlanBytesAtLeast(const Plan &P, PlanFormat F);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_TEXTPLANSIZE_H
