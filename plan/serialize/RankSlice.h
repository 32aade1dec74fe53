//===- RankSlice.h - One rank's program and the plan's header ---*- C++ -*-===//
//
// What a process that runs one rank needs of a plan: the header, its own
// program and the whole plan's hash (to compare with its peers). For a .cplan
// file it is read from the header, the offset table and that rank's bytes
// alone, so a process's memory does not grow with P times the program size
// (BinaryPlan.cpp). YAML and JSON files have no offset table: they are decoded
// whole and all but the one program dropped.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_RANKSLICE_H
#define COLLPLAN_SERIALIZE_RANKSLICE_H

#include "plan/ir/Plan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace collplan {

struct RankSlice {
  PlanHeader Header;
  uint32_t Rank = 0;
  /// Rank's program.
  Program Prog;
  /// planHash of the whole plan. A .cplan file's stored hash is taken as it
  /// is: only a whole read (readPlanFile) checks it against the other ranks'
  /// bytes.
  uint64_t Hash = 0;
};

/// Decodes the header and Rank's program from Bytes (any format, as
/// decodePlan) and checks them as checkStructure would (checkRankStructure).
/// Name is used in error messages.
llvm::Expected<RankSlice> decodeRankSlice(llvm::StringRef Bytes,
                                          llvm::StringRef Name, uint32_t Rank);

/// decodeRankSlice on a file, after readPlanFile's checks of the file itself.
/// A .cplan file is mapped, not read: pages of other ranks' programs are
/// never touched.
llvm::Expected<RankSlice> readRankSlice(llvm::StringRef Path, uint32_t Rank);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_RANKSLICE_H
