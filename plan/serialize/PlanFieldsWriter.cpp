//===- PlanFieldsWriter.cpp - Writing the field tree of a text plan -------===//
//
// The way out of PlanFields.h: field names, order and types as YAML and JSON
// plans carry them (PlanFields.cpp reads them back and checks them).
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/PlanFields.h"
#include "plan/serialize/PlanFile.h"

namespace collplan {

using llvm::StringRef;
using Style = FieldWriter::Style;

FieldWriter::~FieldWriter() = default;

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static StringRef opKindName(OpKind K) {
  switch (K) {
  case OpKind::Send:
    return "send";
  case OpKind::Recv:
    return "recv";
  case OpKind::Local:
    return "local";
  }
  return "send";
}

static StringRef combineName(Combine C) {
  return C == Combine::Reduce ? "reduce" : "replace";
}

static void writeBlocks(const BlockSet &S, FieldWriter &W) {
  W.beginList(Style::Flow);
  for (const BlockRange &R : S.ranges()) {
    W.beginList(Style::Flow);
    W.value(R.Begin);
    W.value(R.End);
    W.endList();
  }
  W.endList();
}

static void writeOp(const Op &O, const PlanHeader &H, FieldWriter &W) {
  auto BufferName = [&](uint16_t B) -> StringRef {
    return B < H.Buffers.size() ? StringRef(H.Buffers[B]) : StringRef("?");
  };
  W.beginMap(Style::Flow);
  W.key("kind");
  W.value(opKindName(O.Kind));
  if (O.Kind != OpKind::Local) {
    W.key("peer");
    W.value(uint64_t(O.Peer));
  } else {
    W.key("source");
    W.value(BufferName(O.Source));
  }
  W.key("buffer");
  W.value(BufferName(O.Buffer));
  if (O.Kind != OpKind::Send) {
    W.key("combine");
    W.value(combineName(O.Mode));
  }
  W.key("blocks");
  writeBlocks(O.Blocks, W);
  W.endMap();
}

static void writeTopology(const Topology &T, FieldWriter &W) {
  W.beginMap(Style::Flow);
  W.key("kind");
  W.value(StringRef(T.kind() == TopologyKind::Torus ? "torus" : "flat"));
  W.key("nodes");
  W.value(uint64_t(T.numNodes()));
  W.key("ppn");
  W.value(uint64_t(T.ranksPerNode()));
  W.key("mapping");
  W.value(mappingName(T.mapping()));
  if (!T.explicitNodeOf().empty()) {
    W.key("node_of_rank");
    W.beginList(Style::Flow);
    for (uint32_t Node : T.explicitNodeOf())
      W.value(uint64_t(Node));
    W.endList();
  }
  if (T.kind() == TopologyKind::Torus) {
    W.key("dims");
    W.beginList(Style::Flow);
    for (uint32_t D : T.dims())
      W.value(uint64_t(D));
    W.endList();
  }
  W.endMap();
}

void writePlanFields(const Plan &P, FieldWriter &W) {
  const PlanHeader &H = P.Header;
  W.beginMap(Style::Block);
  W.key("format");
  W.value(StringRef(PlanFormatTag));
  W.key("version");
  W.value(uint64_t(PlanFormatVersion));
  W.key("collective");
  W.value(collectiveName(H.Kind));
  W.key("ranks");
  W.value(uint64_t(H.Ranks));
  W.key("topology");
  writeTopology(H.Topo, W);
  W.key("algorithm");
  W.value(StringRef(H.Algorithm));
  W.key("params");
  W.beginMap(Style::Flow);
  for (const auto &[Name, Value] : H.Params) { // std::map: sorted by name.
    W.key(Name);
    W.value(StringRef(Value));
  }
  W.endMap();
  W.key("blocks");
  W.value(H.Blocks);
  if (!H.Weights.empty()) {
    W.key("weights");
    W.beginList(Style::Flow);
    for (uint64_t X : H.Weights)
      W.value(X);
    W.endList();
  }
  if (H.Root) {
    W.key("root");
    W.value(uint64_t(*H.Root));
  }
  W.key("buffers");
  W.beginList(Style::Flow);
  for (const std::string &B : H.Buffers)
    W.value(StringRef(B));
  W.endList();
  W.key("requires_commutative");
  W.value(H.RequiresCommutative);
  if (H.Stamp) {
    W.key("verified");
    W.beginMap(Style::Flow);
    W.key("plan_hash");
    W.value(StringRef(planHashHex(H.Stamp->PlanHash)));
    W.key("identical_results");
    W.value(H.Stamp->IdenticalResults);
    W.key("reproducible");
    W.value(H.Stamp->Reproducible);
    W.key("verifier");
    W.value(StringRef(H.Stamp->Verifier));
    W.endMap();
  }

  W.key("programs");
  W.beginList(Style::Block);
  for (size_t R = 0; R < P.Programs.size(); ++R) {
    W.beginMap(Style::Block);
    W.key("rank");
    W.value(uint64_t(R));
    W.key("rounds");
    W.beginList(Style::Block);
    for (const Round &Rd : P.Programs[R].Rounds) {
      W.beginMap(Style::Block);
      W.key("index");
      W.value(uint64_t(Rd.Index));
      W.key("ops");
      W.beginList(Style::Block);
      for (const Op &O : Rd.Ops)
        writeOp(O, H, W);
      W.endList();
      W.endMap();
    }
    W.endList();
    W.endMap();
  }
  W.endList();
  W.endMap();
}

} // namespace collplan
