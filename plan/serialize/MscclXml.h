//===- MscclXml.h - MSCCL XML in and out of the IR --------------*- C++ -*-===//
//
// MSCCL XML is the exchange format of MSCCLang, the SCCL/TACCL synthesizers
// and the MSCCL/RCCL runtimes: per GPU, threadblocks that run steps in order,
// cross-threadblock dependencies, and sends matched to receives first in,
// first out per (sender, receiver, channel). The reader simulates that
// dataflow and gives every message the earliest round its dependencies
// allow; the writer lowers a plan's rounds to one threadblock per (send
// peer, receive peer, channel). README.md, "MSCCL XML", documents the
// mapping.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_MSCCLXML_H
#define COLLPLAN_SERIALIZE_MSCCLXML_H

#include "plan/ir/Plan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace collplan {

/// Whether Path names an MSCCL XML file (by its extension, .xml).
bool isMscclXmlPath(llvm::StringRef Path);

/// Decodes an MSCCL XML algorithm into a plan (structure-checked, not
/// verified). Errors: malformed XML or attributes (ErrorKind::Usage, with
/// the line), a collective or step type collplan does not model
/// (CannotCompile), a file that can deadlock or moves chunks in ways no
/// collective result allows (Invalid, naming gpu, threadblock and step).
/// Name is used in messages.
llvm::Expected<Plan> decodeMscclXml(llvm::StringRef Bytes,
                                    llvm::StringRef Name);
llvm::Expected<Plan> readMscclXmlFile(llvm::StringRef Path);

/// The runtime limits of MSCCL's executors (fixtures README) an exported
/// file is checked against.
struct MscclLimits {
  unsigned StepsPerThreadblock = 64; ///< 256 in the older executor.
  unsigned ThreadblocksPerChannel = 32;
  unsigned MaxCount = 71; ///< cnt below 72.
  unsigned MaxOffset = 0xffff;
  /// What the reader accepts (ngpus), far above any real machine's.
  unsigned MaxGpus = 4096;
};

struct MscclExportOptions {
  /// "msccl": coll="reduce_scatter", no outofplace/minBytes/maxBytes (the
  /// older executors); "rccl": coll="reducescatter" and those attributes.
  std::string Dialect = "rccl";
  std::string Protocol = "Simple";
  unsigned Channels = 1;
  MscclLimits Limits;
};

/// Encodes P as MSCCL XML, or refuses (CannotCompile) naming the limit or
/// the feature the format lacks.
llvm::Expected<std::string> encodeMscclXml(const Plan &P,
                                           const MscclExportOptions &O);

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_MSCCLXML_H
