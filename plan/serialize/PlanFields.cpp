//===- PlanFields.cpp - The field tree shared by YAML and JSON plans ------===//
//
// The way in: every check a text plan's structure gets (PlanFieldsWriter.cpp
// is the way out; HeaderChecks.h holds the header checks the binary reader
// shares). schemas/plan.schema.json states the same structure for outside
// tools; keep the two in step.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/PlanFields.h"
#include "plan/serialize/HeaderChecks.h"
#include "plan/serialize/PlanFieldTrees.h"
#include "plan/serialize/PlanFile.h"
#include "plan/serialize/PlanLocation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace collplan {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;
namespace json = llvm::json;
using Style = FieldWriter::Style;

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

Expected<Topology> readTopology(const TreeReader &In, const json::Value &V,
                                uint32_t Ranks) {
  COLLPLAN_TRY(
      O, In.map(V, "topology",
                {"kind", "nodes", "ppn", "mapping", "dims", "node_of_rank"}));
  COLLPLAN_TRY(Kind, In.string(*O, "kind"));
  COLLPLAN_TRY(Nodes, In.number(*O, "nodes", 1, MaxRanks));
  COLLPLAN_TRY(Ppn, In.number(*O, "ppn", 1, MaxRanks));
  COLLPLAN_TRY(MappingText, In.string(*O, "mapping"));
  std::optional<RankMapping> Mapping = parseMapping(MappingText);
  if (!Mapping)
    return In.fail("topology.mapping",
                   "expected block, round-robin or explicit, got '" +
                       MappingText + "'");
  if (*Mapping == RankMapping::Explicit) {
    if (Kind != "flat")
      return In.fail("topology.kind", "an explicit map's topology is flat");
    COLLPLAN_TRY(List, In.list(*O, "node_of_rank"));
    std::vector<uint32_t> NodeOf;
    NodeOf.reserve(List->size());
    for (size_t I = 0; I < List->size(); ++I) {
      COLLPLAN_TRY(Node, In.number((*List)[I],
                                   "topology.node_of_rank[" + Twine(I) + "]", 0,
                                   MaxRanks - 1));
      NodeOf.push_back(uint32_t(Node));
    }
    auto T = explicitTopology(std::move(NodeOf), Nodes, Ppn, Ranks);
    if (const FieldProblem *Bad = std::get_if<FieldProblem>(&T))
      return In.fail(Bad->Field, Bad->Why);
    return std::get<Topology>(std::move(T));
  }
  if (O->get("node_of_rank"))
    return In.fail("topology.node_of_rank",
                   "only an explicit mapping lists each rank's node");
  if (auto Problem = checkNodesMakeRanks(Nodes, Ppn, Ranks))
    return In.fail("topology", *Problem);
  if (Kind == "flat") {
    if (O->get("dims"))
      return In.fail("topology.dims", "a flat topology has no dims");
    return Topology::nodes(uint32_t(Nodes), uint32_t(Ppn), *Mapping);
  }
  if (Kind != "torus")
    return In.fail("topology.kind",
                   "expected flat or torus, got '" + Kind + "'");
  COLLPLAN_TRY(DimList, In.list(*O, "dims"));
  if (DimList->empty() || DimList->size() > MaxTorusDims)
    return In.fail("topology.dims", "a torus needs between 1 and " +
                                        Twine(MaxTorusDims) + " dimensions");
  llvm::SmallVector<uint32_t, 4> Dims;
  uint64_t Product = 1;
  for (size_t I = 0; I < DimList->size(); ++I) {
    COLLPLAN_TRY(D, In.number((*DimList)[I], "topology.dims[" + Twine(I) + "]",
                              1, MaxRanks));
    Product *= D; // Both factors are at most 2^24: no overflow.
    if (Product > MaxRanks)
      break;
    Dims.push_back(uint32_t(D));
  }
  if (auto Problem = checkDimsMakeNodes(Product, Nodes))
    return In.fail("topology.dims", *Problem);
  return Topology::torus(Dims, uint32_t(Ppn), *Mapping);
}

Expected<BlockSet> readBlocks(const TreeReader &In, const json::Value &V,
                              uint64_t NumBlocks) {
  const json::Array *A = V.getAsArray();
  if (!A)
    return In.fail("blocks",
                   "expected a list of [begin, end) pairs, got " + describe(V));
  BlockSet S;
  uint64_t PreviousEnd = 0;
  for (size_t I = 0; I < A->size(); ++I) {
    auto Field = [I] { return "blocks[" + std::to_string(I) + "]"; };
    const json::Array *Pair = (*A)[I].getAsArray();
    if (!Pair || Pair->size() != 2)
      return In.fail(Field(), "expected a [begin, end) pair");
    COLLPLAN_TRY(
        Begin, In.number((*Pair)[0], "blocks[" + Twine(I) + "]", 0, NumBlocks));
    COLLPLAN_TRY(
        End, In.number((*Pair)[1], "blocks[" + Twine(I) + "]", 0, NumBlocks));
    if (Begin >= End)
      return In.fail(Field(), "the range [" + Twine(Begin) + ", " + Twine(End) +
                                  ") is empty");
    if (I > 0 && Begin < PreviousEnd)
      return In.fail(Field(), "ranges must be sorted and disjoint; [" +
                                  Twine(Begin) + ", " + Twine(End) +
                                  ") starts before " + Twine(PreviousEnd));
    S.insert(Begin, End);
    PreviousEnd = End;
  }
  return S;
}

Expected<Combine> readCombine(const TreeReader &In, const json::Object &O) {
  COLLPLAN_TRY(Text, In.string(O, "combine"));
  if (Text == "replace")
    return Combine::Replace;
  if (Text == "reduce")
    return Combine::Reduce;
  return In.fail("combine", "expected replace or reduce, got '" + Text + "'");
}

} // namespace

Expected<Op> readOp(const TreeReader &In, const json::Value &V,
                    const PlanHeader &H,
                    const llvm::StringMap<uint16_t> &BufferIndex) {
  const json::Object *Probe = V.getAsObject();
  if (!Probe)
    return In.fail("", "expected an operation map, got " + describe(V));
  COLLPLAN_TRY(KindText, In.string(*Probe, "kind"));
  Op Result;
  if (KindText == "send")
    Result.Kind = OpKind::Send;
  else if (KindText == "recv")
    Result.Kind = OpKind::Recv;
  else if (KindText == "local")
    Result.Kind = OpKind::Local;
  else
    return In.fail("kind",
                   "expected send, recv or local, got '" + KindText + "'");

  llvm::SmallVector<StringRef, 6> Allowed = {"kind", "buffer", "blocks"};
  if (Result.Kind != OpKind::Local)
    Allowed.push_back("peer");
  else
    Allowed.push_back("source");
  if (Result.Kind != OpKind::Send)
    Allowed.push_back("combine");
  COLLPLAN_TRY(O, In.map(V, "", Allowed));

  auto Buffer = [&](StringRef Key) -> Expected<uint16_t> {
    COLLPLAN_TRY(BufferName, In.string(*O, Key));
    auto It = BufferIndex.find(BufferName);
    if (It == BufferIndex.end())
      return In.fail(Key, "'" + BufferName + "' is not a declared buffer");
    return It->second;
  };
  COLLPLAN_TRY(Destination, Buffer("buffer"));
  Result.Buffer = Destination;
  if (Result.Kind == OpKind::Local) {
    COLLPLAN_TRY(Source, Buffer("source"));
    Result.Source = Source;
  } else {
    COLLPLAN_TRY(Peer, In.number(*O, "peer", 0, H.Ranks - 1));
    Result.Peer = uint32_t(Peer);
  }
  if (Result.Kind != OpKind::Send) {
    COLLPLAN_TRY(Mode, readCombine(In, *O));
    Result.Mode = Mode;
  }
  COLLPLAN_TRY(BlocksValue, In.member(*O, "blocks"));
  COLLPLAN_TRY(Blocks, readBlocks(In, *BlocksValue, H.Blocks));
  Result.Blocks = std::move(Blocks);
  return Result;
}

Expected<Program> readProgram(TreeReader &In, const json::Value &V, size_t Rank,
                              const PlanHeader &H,
                              const llvm::StringMap<uint16_t> &BufferIndex) {
  In.Where.enterRank(int64_t(Rank));
  COLLPLAN_TRY(O, In.map(V, "", {"rank", "rounds"}));
  COLLPLAN_TRY(Declared, In.number(*O, "rank", 0, MaxRanks));
  if (Error E = checkRankLabel(In, Rank, Declared))
    return E;
  COLLPLAN_TRY(Rounds, In.list(*O, "rounds"));
  Program Prog;
  Prog.Rounds.reserve(Rounds->size());
  for (size_t K = 0; K < Rounds->size(); ++K) {
    In.Where.enterRound(int64_t(K));
    COLLPLAN_TRY(RO, In.map((*Rounds)[K], "", {"index", "ops"}));
    COLLPLAN_TRY(Index, In.number(*RO, "index", 0, UINT32_MAX));
    In.Where.RoundIndex = int64_t(Index);
    if (Error E = checkRoundOrder(In, Prog, Index))
      return E;
    COLLPLAN_TRY(Ops, In.list(*RO, "ops"));
    Round Rd;
    Rd.Index = uint32_t(Index);
    Rd.Ops.reserve(Ops->size());
    for (size_t I = 0; I < Ops->size(); ++I) {
      In.Where.Op = int64_t(I);
      COLLPLAN_TRY(Operation, readOp(In, (*Ops)[I], H, BufferIndex));
      Rd.Ops.push_back(std::move(Operation));
    }
    Prog.Rounds.push_back(std::move(Rd));
  }
  return Prog;
}

Error checkRankLabel(const TreeReader &In, uint64_t Rank, uint64_t Declared) {
  if (Declared == Rank)
    return Error::success();
  return In.fail("rank", "program " + Twine(Rank) + " is labelled rank " +
                             Twine(Declared) +
                             "; programs must be listed in rank order");
}

Error checkRoundOrder(const TreeReader &In, const Program &Prog,
                      uint64_t Index) {
  if (Prog.Rounds.empty() || Index > Prog.Rounds.back().Index)
    return Error::success();
  return In.fail("index", "round " + Twine(Index) + " follows round " +
                              Twine(Prog.Rounds.back().Index) +
                              "; rounds must strictly increase");
}

llvm::StringMap<uint16_t> bufferIndex(const PlanHeader &H) {
  llvm::StringMap<uint16_t> Index;
  for (size_t I = 0; I < H.Buffers.size(); ++I)
    Index[H.Buffers[I]] = uint16_t(I);
  return Index;
}

namespace {

Expected<PlanHeader> readHeader(const TreeReader &In, const json::Object &O) {
  PlanHeader H;
  COLLPLAN_TRY(CollectiveText, In.string(O, "collective"));
  std::optional<Collective> Kind = parseCollective(CollectiveText);
  if (!Kind)
    return In.fail("collective", "unknown collective '" + CollectiveText + "'");
  H.Kind = *Kind;
  COLLPLAN_TRY(Ranks, In.number(O, "ranks", 1, MaxRanks));
  H.Ranks = uint32_t(Ranks);
  COLLPLAN_TRY(TopoValue, In.member(O, "topology"));
  COLLPLAN_TRY(Topo, readTopology(In, *TopoValue, H.Ranks));
  H.Topo = std::move(Topo);
  COLLPLAN_TRY(Algorithm, In.string(O, "algorithm"));
  H.Algorithm = Algorithm.str();

  COLLPLAN_TRY(ParamsValue, In.member(O, "params"));
  const json::Object *Params = ParamsValue->getAsObject();
  if (!Params)
    return In.fail("params",
                   "expected a map of strings, got " + describe(*ParamsValue));
  for (const auto &[Key, Value] : *Params) {
    if (StringRef(Key).size() > MaxNameLength)
      return In.fail("params", "a parameter name is longer than " +
                                   Twine(MaxNameLength) + " bytes");
    COLLPLAN_TRY(Text, In.string(Value, "params." + Key.str()));
    H.Params.emplace(Key.str(), Text.str());
  }

  COLLPLAN_TRY(Blocks, In.number(O, "blocks", 1, MaxPlanBlocks));
  H.Blocks = Blocks;
  if (const json::Value *WeightsValue = O.get("weights")) {
    const json::Array *Weights = WeightsValue->getAsArray();
    if (!Weights)
      return In.fail("weights", "expected a list of integers, got " +
                                    describe(*WeightsValue));
    if (auto Problem = checkWeightCount(Weights->size(), H.Blocks))
      return In.fail("weights", *Problem);
    uint64_t MaxWeight = maxBlockWeight(H.Blocks);
    H.Weights.reserve(Weights->size());
    for (size_t I = 0; I < Weights->size(); ++I) {
      COLLPLAN_TRY(W, In.number((*Weights)[I], "weights[" + Twine(I) + "]", 0,
                                MaxWeight));
      H.Weights.push_back(W);
    }
  }
  if (const json::Value *RootValue = O.get("root")) {
    COLLPLAN_TRY(Root, In.number(*RootValue, "root", 0, H.Ranks - 1));
    H.Root = uint32_t(Root);
  }

  COLLPLAN_TRY(Buffers, In.list(O, "buffers"));
  if (Buffers->empty() || Buffers->size() > 0xffff)
    return In.fail("buffers", "expected between 1 and 65535 buffer names");
  H.Buffers.clear();
  llvm::StringSet<> Seen;
  for (size_t I = 0; I < Buffers->size(); ++I) {
    std::string Field = "buffers[" + std::to_string(I) + "]";
    COLLPLAN_TRY(BufferName, In.string((*Buffers)[I], Field));
    if (auto Problem = checkBufferName(BufferName, Seen))
      return In.fail(Field, *Problem);
    if (I == 0 && BufferName != "data")
      return In.fail(Field, "the first buffer must be 'data', got '" +
                                BufferName + "'");
    H.Buffers.push_back(BufferName.str());
  }

  COLLPLAN_TRY(Commutative, In.member(O, "requires_commutative"));
  auto Flag = Commutative->getAsBoolean();
  if (!Flag)
    return In.fail("requires_commutative",
                   "expected true or false, got " + describe(*Commutative));
  H.RequiresCommutative = *Flag;

  if (const json::Value *StampValue = O.get("verified")) {
    COLLPLAN_TRY(S, In.map(*StampValue, "verified",
                           {"plan_hash", "identical_results", "reproducible",
                            "verifier"}));
    VerificationStamp Stamp;
    COLLPLAN_TRY(HashValue, In.member(*S, "plan_hash"));
    COLLPLAN_TRY(HashText, In.string(*HashValue, "verified.plan_hash"));
    if (HashText.size() != 16 || HashText.getAsInteger(16, Stamp.PlanHash))
      return In.fail("verified.plan_hash",
                     "expected 16 hexadecimal digits, got '" + HashText + "'");
    COLLPLAN_TRY(Identical, In.member(*S, "identical_results"));
    // member() names the field without its map: say which map.
    auto IdenticalFlag = Identical->getAsBoolean();
    if (!IdenticalFlag)
      return In.fail("verified.identical_results",
                     "expected true or false, got " + describe(*Identical));
    Stamp.IdenticalResults = *IdenticalFlag;
    // Optional: stamps written before the verdict existed promise nothing.
    if (const json::Value *Reproducible = S->get("reproducible")) {
      auto Flag = Reproducible->getAsBoolean();
      if (!Flag)
        return In.fail("verified.reproducible", "expected true or false, got " +
                                                    describe(*Reproducible));
      Stamp.Reproducible = *Flag;
    }
    COLLPLAN_TRY(VerifierValue, In.member(*S, "verifier"));
    COLLPLAN_TRY(Verifier, In.string(*VerifierValue, "verified.verifier"));
    Stamp.Verifier = Verifier.str();
    H.Stamp = std::move(Stamp);
  }
  return H;
}

} // namespace

Expected<PlanHeader> readPlanHeader(const TreeReader &In,
                                    const json::Value &Root) {
  const json::Object *Probe = Root.getAsObject();
  if (!Probe)
    return In.fail("", "a plan must be a map, got " + describe(Root));
  COLLPLAN_TRY(Tag, In.string(*Probe, "format"));
  if (Tag != PlanFormatTag)
    return In.fail("format", "expected '" + PlanFormatTag + "', got '" + Tag +
                                 "'; this is not a collplan plan");
  COLLPLAN_TRY(VersionValue, In.member(*Probe, "version"));
  COLLPLAN_TRY(Version, In.number(*VersionValue, "version", 1, UINT32_MAX));
  if (auto Problem = checkVersion(Version))
    return In.fail("version", *Problem);
  COLLPLAN_TRY(
      O, In.map(Root, "",
                {"format", "version", "collective", "ranks", "topology",
                 "algorithm", "params", "blocks", "weights", "root", "buffers",
                 "requires_commutative", "verified", "programs"}));
  return readHeader(In, *O);
}

Expected<Plan> readPlanFields(const json::Value &Root, StringRef Name) {
  TreeReader In(Name);
  Plan P;
  COLLPLAN_TRY(Header, readPlanHeader(In, Root));
  P.Header = std::move(Header);
  llvm::StringMap<uint16_t> BufferIndex = bufferIndex(P.Header);

  COLLPLAN_TRY(Programs, In.list(*Root.getAsObject(), "programs"));
  // Compare before allocating: Ranks may be large, the list is what exists.
  if (auto Problem = checkProgramCount(Programs->size(), P.Header.Ranks))
    return In.fail("programs", *Problem);
  P.Programs.reserve(Programs->size());
  TreeReader ProgramIn(Name);
  for (size_t R = 0; R < Programs->size(); ++R) {
    COLLPLAN_TRY(
        Prog, readProgram(ProgramIn, (*Programs)[R], R, P.Header, BufferIndex));
    P.Programs.push_back(std::move(Prog));
  }
  return P;
}

} // namespace collplan
