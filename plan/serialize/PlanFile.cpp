//===- PlanFile.cpp - Format detection, files on disk and the plan hash ---===//

#include "plan/serialize/PlanFile.h"
#include "plan/ir/Error.h"
#include "plan/serialize/BinaryLayout.h"
#include "plan/serialize/MscclXml.h"
#include "plan/serialize/PlanCodecs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace collplan {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

/// A plan that cannot be read: the input is at fault.
static Error fail(const llvm::Twine &Message) {
  return makeError(ErrorKind::Usage, Message);
}

std::optional<PlanFormat> formatForPath(StringRef Path) {
  std::string Ext = llvm::sys::path::extension(Path).lower();
  if (Ext == ".yaml" || Ext == ".yml")
    return PlanFormat::Yaml;
  if (Ext == ".json")
    return PlanFormat::Json;
  if (Ext == ".cplan")
    return PlanFormat::Binary;
  return std::nullopt;
}

StringRef formatName(PlanFormat F) {
  switch (F) {
  case PlanFormat::Yaml:
    return "yaml";
  case PlanFormat::Json:
    return "json";
  case PlanFormat::Binary:
    return "binary";
  }
  return "yaml";
}

std::string encodePlan(const Plan &P, PlanFormat F) {
  switch (F) {
  case PlanFormat::Yaml:
    return encodeYamlPlan(P);
  case PlanFormat::Json:
    return encodeJsonPlan(P);
  case PlanFormat::Binary:
    return encodeBinaryPlan(P);
  }
  return encodeBinaryPlan(P);
}

Expected<Plan> decodePlan(StringRef Bytes, StringRef Name) {
  if (!Bytes.empty() && Bytes.front() == BinaryPlanMagic[0])
    return decodeBinaryPlan(Bytes, Name);
  // Text: UTF-8 (an optional byte-order mark), then JSON or YAML.
  if (Bytes.startswith("\xEF\xBB\xBF"))
    Bytes = Bytes.drop_front(3);
  size_t Offset = 0;
  if (!llvm::json::isUTF8(Bytes, &Offset))
    return fail(Name + ": byte " + llvm::Twine(Offset) +
                ": neither UTF-8 text nor a binary plan; a plan file is "
                "YAML, JSON or binary (.cplan)");
  StringRef Content = Bytes.ltrim(" \t\r\n");
  if (Content.empty())
    return fail(Name + ": the file is empty");
  if (Content.front() == '{')
    return decodeJsonPlan(Bytes, Name);
  return decodeYamlPlan(Bytes, Name);
}

Expected<std::unique_ptr<llvm::MemoryBuffer>> openPlanFile(StringRef Path) {
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status))
    return fail("cannot read plan file '" + Path + "': " + EC.message());
  // Devices and pipes could feed the reader without end.
  if (!llvm::sys::fs::is_regular_file(Status))
    return fail("cannot read plan file '" + Path + "': not a regular file");
  if (Status.getSize() > MaxPlanFileBytes)
    return fail("plan file '" + Path + "' is " + llvm::Twine(Status.getSize()) +
                " bytes; the limit is " + llvm::Twine(MaxPlanFileBytes));
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return fail("cannot read plan file '" + Path +
                "': " + Buffer.getError().message());
  return std::move(*Buffer);
}

Error structureError(StringRef Name, const std::vector<Diagnostic> &Problems) {
  return fail(Name + ": " + Problems.front().str() +
              (Problems.size() > 1 ? " (and further problems)" : ""));
}

Expected<Plan> readPlanFile(StringRef Path) {
  // MSCCL XML algorithms are imported (MscclXml.h), already checked.
  if (isMscclXmlPath(Path))
    return readMscclXmlFile(Path);
  COLLPLAN_TRY(Buffer, openPlanFile(Path));
  Expected<Plan> P = decodePlan(Buffer->getBuffer(), Path);
  if (!P)
    return P.takeError();
  std::vector<Diagnostic> Problems = checkStructure(*P, 2);
  if (!Problems.empty())
    return structureError(Path, Problems);
  return P;
}

Error writePlanFile(const Plan &P, StringRef Path, PlanFormat F) {
  return writeFileAtomically(Path, encodePlan(P, F), "plan file");
}

uint64_t planHash(const Plan &P) {
  return storedBinaryHash(encodeBinaryPlan(P));
}

EncodedPlan encodeCanonical(const Plan &P) {
  EncodedPlan E;
  E.Binary = encodeBinaryPlan(P);
  if (P.Header.Stamp)
    E.Binary = restampBinaryPlan(E.Binary, std::nullopt);
  E.Hash = storedBinaryHash(E.Binary);
  return E;
}

std::string stampedBinary(const EncodedPlan &E,
                          const std::optional<VerificationStamp> &Stamp) {
  return restampBinaryPlan(E.Binary, Stamp);
}

VerificationStamp stampFor(const Plan &P, bool IdenticalResults,
                           bool Reproducible, StringRef Verifier) {
  return {planHash(P), IdenticalResults, Reproducible, Verifier.str()};
}

Error checkStamp(const PlanHeader &H, uint64_t Hash, StringRef File) {
  std::string Why;
  if (!H.Stamp)
    Why = "the plan carries no verification stamp (it was compiled with "
          "--no-verify or written by another tool)";
  else if (H.Stamp->PlanHash != Hash)
    Why = "the plan changed after it was verified (its stamp is for plan " +
          planHashHex(H.Stamp->PlanHash) + ", the plan is " +
          planHashHex(Hash) + ")";
  else
    return Error::success();
  return makeError(ErrorKind::Usage,
                   File + ": " + Why + ": run 'collplan verify --stamp " +
                       File +
                       "', or allow unverified plans (collplan run "
                       "--trust-unverified; COLLPLAN_TRUST_UNVERIFIED=1 for "
                       "the interposer)");
}

std::string planHashHex(uint64_t Hash) {
  std::string Out;
  llvm::raw_string_ostream(Out) << llvm::format_hex_no_prefix(Hash, 16);
  return Out;
}

} // namespace collplan
