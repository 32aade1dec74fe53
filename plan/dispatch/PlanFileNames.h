//===- PlanFileNames.h - What a plan file's name says -----------*- C++ -*-===//
//
// A plan file's name in a plan directory says which calls it serves:
//
//   <collective>[-root<R>]-p<P>-<min>-<max>[-<op>].<ext>
//
//   collective  allreduce, reduce-scatter, allgather, allgatherv, broadcast,
//               reduce
//   R           broadcast and reduce: the root, when not 0 (without it the
//               plan's own root is taken)
//   P           the communicator size
//   min, max    the call's bytes (the whole vector: count x type size; for
//               allgather(v) and reduce-scatter the gathered / scattered
//               total) lie in [min, max); max may be "inf"
//   op          optional: an operator (CallTypes.h); without it the plan
//               serves every operator
//   ext         a plan file's extension (formatForPath, PlanFile.h)
//
// e.g. allreduce-p8-0-65536.cplan, broadcast-root3-p8-0-inf.cplan. A name
// cannot say allgatherv counts: the directory's index (PlanIndex.h) lists
// files of any name with the calls they serve. `collplan tune` writes these
// names and the interposer reads them: both through this file.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_DISPATCH_PLANFILENAMES_H
#define COLLPLAN_DISPATCH_PLANFILENAMES_H

#include "plan/dispatch/DispatchRule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace collplan {

/// Whether a file name has a plan file's extension.
bool hasPlanExtension(llvm::StringRef FileName);

/// The name of R's file (its collective, root, P, byte range and operator)
/// with extension Ext ("cplan", "yaml", ...).
std::string planFileName(const DispatchRule &R, llvm::StringRef Ext);

/// The rule a file name (without directory) states; a usage error says what
/// in the name does not follow the pattern.
llvm::Expected<DispatchRule> parsePlanFileName(llvm::StringRef FileName);

} // namespace collplan

#endif // COLLPLAN_DISPATCH_PLANFILENAMES_H
