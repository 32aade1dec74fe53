//===- PlanFile.h - Plan files: YAML, JSON and binary -----------*- C++ -*-===//
//
// Three encodings of one structure: YAML (readable), JSON (the same fields)
// and a compact binary form (.cplan) for large P. All carry a format version.
// Readers trust nothing: sizes are checked against limits and against the
// bytes actually present before anything is allocated, and every problem is
// reported with its location (file, rank, round, op).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_PLANFILE_H
#define COLLPLAN_SERIALIZE_PLANFILE_H

#include "plan/ir/FileIo.h"
#include "plan/ir/Plan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

enum class PlanFormat : uint8_t { Yaml, Json, Binary };

/// The version written into every YAML and JSON plan file; readers reject
/// newer ones.
constexpr unsigned PlanFormatVersion = 1;
/// The version of the binary layout (BinaryPlan.cpp), which changes apart
/// from the text formats': version 2 added the stored plan hash and the
/// offset table of the ranks' programs, version 3 each program's hash in the
/// table and the verification stamp. Readers accept this version only.
constexpr unsigned BinaryPlanVersion = 3;

/// Plan files larger than this are refused before reading: a text plan of
/// P = 1024 ring rounds is a few hundred MB, a binary plan far less.
constexpr uint64_t MaxPlanFileBytes = uint64_t(4) << 30;

/// By extension: .yaml/.yml, .json, .cplan.
std::optional<PlanFormat> formatForPath(llvm::StringRef Path);
llvm::StringRef formatName(PlanFormat F);

/// Encodes P; deterministic: the same plan gives the same bytes.
std::string encodePlan(const Plan &P, PlanFormat F);
/// Decodes Bytes; the format is detected from the content (binary magic,
/// JSON's leading brace, otherwise YAML). Name is used in error messages.
llvm::Expected<Plan> decodePlan(llvm::StringRef Bytes, llvm::StringRef Name);

/// Reads and decodes a file, then checks its structure (checkStructure).
llvm::Expected<Plan> readPlanFile(llvm::StringRef Path);
/// A plan file's bytes, mapped when the file is large enough (pages are read
/// as they are touched), after the checks every reader makes: a regular
/// file, no larger than the limit.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
openPlanFile(llvm::StringRef Path);
/// The error readPlanFile gives for a plan checkStructure found Problems in
/// (not empty): the first problem, prefixed with Name.
llvm::Error structureError(llvm::StringRef Name,
                           const std::vector<Diagnostic> &Problems);
/// Writes the whole file or nothing (writeFileAtomically, plan/ir/FileIo.h,
/// which every other file collplan writes goes through too).
llvm::Error writePlanFile(const Plan &P, llvm::StringRef Path, PlanFormat F);

/// A 64-bit hash of the plan's canonical (binary) encoding, the one a .cplan
/// file stores: ranks compare it at start-up to be sure they run the same
/// plan.
uint64_t planHash(const Plan &P);
std::string planHashHex(uint64_t Hash);

/// P encoded once in its canonical (binary) form, with its hash: what the
/// plan hash, a stamp and a .cplan file are all made from, so that stamping
/// and writing a plan need not encode it again.
struct EncodedPlan {
  /// The binary encoding of P without a stamp.
  std::string Binary;
  uint64_t Hash = 0;
};
/// Encodes P (whose own stamp is ignored).
EncodedPlan encodeCanonical(const Plan &P);
/// The .cplan bytes of the plan E encodes, carrying Stamp: the stamp lies
/// outside the hash (BinaryPlan.cpp), so it is spliced in, not re-encoded.
std::string stampedBinary(const EncodedPlan &E,
                          const std::optional<VerificationStamp> &Stamp);

/// The stamp a verifier (named Verifier, e.g. "collplan 0.4.0") gives P once
/// it accepted it, with its verdicts on P's rounding: bound to P's current
/// content.
VerificationStamp stampFor(const Plan &P, bool IdenticalResults,
                           bool Reproducible, llvm::StringRef Verifier);

/// Whether a plan of header H and plan hash Hash (read from File) may run:
/// it carries a stamp for exactly this content. Otherwise a usage error
/// saying to run `collplan verify --stamp`, for runtimes that execute only
/// verified plans.
llvm::Error checkStamp(const PlanHeader &H, uint64_t Hash,
                       llvm::StringRef File);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_PLANFILE_H
