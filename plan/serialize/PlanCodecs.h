//===- PlanCodecs.h - The three plan encodings ------------------*- C++ -*-===//
//
// Internal to plan/serialize: PlanFile.cpp detects the format and
// dispatches here. Decoders return the plan as found; readPlanFile() then runs
// checkStructure() on it.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_PLANCODECS_H
#define COLLPLAN_SERIALIZE_PLANCODECS_H

#include "plan/ir/Plan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace collplan {

/// The first bytes of every binary plan.
constexpr char BinaryPlanMagic[] = {'\x89', 'C', 'P',  'L',
                                    'A',    'N', '\r', '\n'};

std::string encodeYamlPlan(const Plan &P);
std::string encodeJsonPlan(const Plan &P);
std::string encodeBinaryPlan(const Plan &P);
/// Encoded (encodeBinaryPlan's bytes) with Stamp in place of its stamp: the
/// bytes encodeBinaryPlan gives for the plan carrying Stamp, since the stamp
/// lies outside the hash.
std::string restampBinaryPlan(llvm::StringRef Encoded,
                              const std::optional<VerificationStamp> &Stamp);

llvm::Expected<Plan> decodeYamlPlan(llvm::StringRef Text, llvm::StringRef Name);
llvm::Expected<Plan> decodeJsonPlan(llvm::StringRef Text, llvm::StringRef Name);
llvm::Expected<Plan> decodeBinaryPlan(llvm::StringRef Bytes,
                                      llvm::StringRef Name);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_PLANCODECS_H
