//===- MscclXmlModel.h - An MSCCL XML file as parsed ------------*- C++ -*-===//
//
// What MscclXmlParse.cpp reads and MscclXmlImport.cpp turns into a plan:
// the file's elements with their attributes checked for form, and the line
// of each, so later errors can point into the file.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_MSCCLXMLMODEL_H
#define COLLPLAN_SERIALIZE_MSCCLXMLMODEL_H

#include "plan/ir/Collective.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collplan::msccl {

enum class StepType : uint8_t {
  Send,               ///< s
  Recv,               ///< r
  Reduce,             ///< re: dst = dst (+) src, locally
  Copy,               ///< cpy
  Nop,                ///< nop: carries a dependency only
  RecvCopySend,       ///< rcs: dst = incoming, then send dst
  RecvReduceSend,     ///< rrs: send src (+) incoming, store nothing
  RecvReduceCopy,     ///< rrc: dst = src (+) incoming
  RecvReduceCopySend, ///< rrcs: dst = src (+) incoming, then send dst
};

llvm::StringRef stepTypeName(StepType T);
std::optional<StepType> parseStepType(llvm::StringRef Name);
inline bool hasRecv(StepType T) {
  return T == StepType::Recv || T >= StepType::RecvCopySend;
}
inline bool hasSend(StepType T) {
  return T == StepType::Send || T == StepType::RecvCopySend ||
         T == StepType::RecvReduceSend || T == StepType::RecvReduceCopySend;
}

struct Step {
  StepType Type = StepType::Nop;
  char SrcBuf = 'i', DstBuf = 'o'; ///< 'i', 'o' or 's'.
  int64_t SrcOff = -1, DstOff = -1, Count = 0;
  int64_t DepTb = -1, DepStep = -1; ///< Threadblock id and step, or -1.
  int Line = 0;
};

struct Threadblock {
  int64_t Id = 0;
  int64_t SendPeer = -1, RecvPeer = -1, Channel = 0;
  std::vector<Step> Steps;
  int Line = 0;
};

struct Gpu {
  int64_t Id = 0;
  int64_t InputChunks = 0, OutputChunks = 0, ScratchChunks = 0;
  std::vector<Threadblock> Tbs; ///< In file order.
  int Line = 0;
};

struct Algorithm {
  std::string Name, Protocol, CollName;
  Collective Coll = Collective::Allreduce;
  int64_t Channels = 1, ChunksPerLoop = 1, Gpus = 1;
  bool InPlace = false;
  std::optional<int64_t> MinBytes, MaxBytes;
  std::vector<Gpu> GpuList; ///< Indexed by gpu id once parsed.
};

/// Parses the XML text: form and attributes only (Usage errors with the
/// line; CannotCompile for collectives and step types collplan does not
/// model). Name prefixes messages.
llvm::Expected<Algorithm> parseAlgorithm(llvm::StringRef Bytes,
                                         llvm::StringRef Name);

} // namespace collplan::msccl

#endif // COLLPLAN_SERIALIZE_MSCCLXMLMODEL_H
