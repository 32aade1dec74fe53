//===- Hierarchical.cpp - Plans composed of plans on sub-communicators ----===//
//
// See Hierarchical.h. The composition is purely a relabelling: it never
// looks at what a stage does, so the verifier's verdict on the composed plan
// only depends on the stages being correct on their own and running on the
// same vector one after another.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Hierarchical.h"
#include "plan/ir/Error.h"

#include <map>
#include <mutex>
#include <numeric>

namespace collplan {

namespace {

/// A key naming everything buildRank may read from a header.
std::string headerKey(const Algorithm &A, const PlanHeader &H) {
  std::string Key = A.name().str() + '|' + collectiveName(H.Kind).str() + '|' +
                    std::to_string(H.Ranks) + '|' + H.Topo.str() + '|' +
                    std::to_string(H.Topo.ranksPerNode()) + '|' +
                    std::string(mappingName(H.Topo.mapping())) + '|' +
                    std::to_string(H.Blocks) + '|' +
                    (H.Root ? std::to_string(*H.Root) : "-");
  for (const auto &[K, V] : H.Params)
    Key += '|' + K + '=' + V;
  for (uint64_t W : H.Weights)
    Key += ',' + std::to_string(W);
  return Key;
}

BlockSet rescale(const BlockSet &Blocks, uint64_t Scale, uint64_t Offset) {
  if (Scale == 1 && Offset == 0)
    return Blocks;
  BlockSet Out;
  for (const BlockRange &R : Blocks.ranges())
    Out.insert(Offset + R.Begin * Scale, Offset + R.End * Scale);
  return Out;
}

} // namespace

llvm::Expected<uint32_t> planRoundSpan(const Algorithm &A,
                                       const PlanHeader &H) {
  static std::mutex Lock;
  static std::map<std::string, uint32_t> Known;
  std::string Key = headerKey(A, H);
  {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Known.find(Key);
    if (It != Known.end())
      return It->second;
  }
  uint64_t Limit = maxPlanOps();
  auto TooLarge = [&](uint64_t Ops) {
    return makeError(ErrorKind::CannotCompile,
                     "its %s plan for %u ranks would hold about %llu "
                     "operations, more than %s",
                     A.name().str().c_str(), H.Ranks, (unsigned long long)Ops,
                     maxPlanOpsText().c_str());
  };
  // Every sub-rank is built under a budget of its own: the caller's budget
  // (compilePlan sizing the composed rank 0) must not be charged, and a stage
  // too large for any plan is refused from its estimate, as compilePlan does,
  // before building all its ranks.
  if (uint64_t Ops = estimatePlanOps(A, H, Limit).Ops; Ops > Limit)
    return TooLarge(Ops);
  OpBudget Budget(Limit);
  uint32_t Span = 0;
  for (uint32_t R = 0; R < H.Ranks && !Budget.exceeded(); ++R) {
    Program Prog = A.buildRank(H, R);
    if (!Prog.Rounds.empty())
      Span = std::max(Span, Prog.Rounds.back().Index + 1);
  }
  if (Budget.exceeded())
    return TooLarge(Budget.added());
  std::lock_guard<std::mutex> Guard(Lock);
  Known.emplace(std::move(Key), Span);
  return Span;
}

std::map<std::string, std::string>
stageParams(const std::map<std::string, std::string> &Composed,
            llvm::StringRef Name) {
  std::map<std::string, std::string> Out;
  std::string Prefix = Name.str() + '.';
  for (const auto &[K, V] : Composed)
    if (llvm::StringRef(K).startswith(Prefix))
      Out[K.substr(Prefix.size())] = V;
  return Out;
}

llvm::Expected<Composition>
Composition::compose(llvm::ArrayRef<StageSpec> Specs, PlanHeader &Composed) {
  Composition C;
  uint64_t Blocks = 1;
  for (const StageSpec &Spec : Specs) {
    auto Fail = [&](const llvm::Twine &Why) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     Spec.Name + " stage (" +
                                         Spec.Algo->name() + "): " + Why);
    };
    if (llvm::Error E = checkRequest(*Spec.Algo, Spec.Request))
      return Fail(llvm::toString(std::move(E)));
    llvm::Expected<PlanHeader> H = Spec.Algo->prepare(Spec.Request);
    if (!H)
      return Fail(llvm::toString(H.takeError()));
    if (!H->Weights.empty())
      return Fail("weighted blocks cannot be rescaled into the composed plan");
    if (Spec.Slices == 0 || H->Blocks > MaxBlocks / Spec.Slices)
      return Fail("its block count times its " + llvm::Twine(Spec.Slices) +
                  " parts is above " + llvm::Twine(MaxBlocks));
    Blocks = std::lcm(Blocks, Spec.Slices * H->Blocks);
    if (Blocks > MaxBlocks)
      return Fail("the stages' block counts have an lcm above " +
                  llvm::Twine(MaxBlocks));
    PlacedStage S;
    S.Algo = Spec.Algo;
    S.Header = std::move(*H);
    S.Name = Spec.Name;
    S.Slices = Spec.Slices;
    C.Stages.push_back(std::move(S));
  }

  Composed.Blocks = Blocks;
  Composed.Weights.clear();
  Composed.Buffers = {"data"};
  Composed.RequiresCommutative = false;
  uint32_t Round = 0;
  for (PlacedStage &S : C.Stages) {
    S.BlockScale = Blocks / (uint64_t(S.Slices) * S.Header.Blocks);
    S.BufferMap = {DataBuffer};
    for (size_t B = 1; B < S.Header.Buffers.size(); ++B) {
      S.BufferMap.push_back(uint16_t(Composed.Buffers.size()));
      Composed.Buffers.push_back(S.Name + '.' + S.Header.Buffers[B]);
    }
    for (const auto &[K, V] : S.Header.Params)
      Composed.Params[S.Name + '.' + K] = V;
    Composed.RequiresCommutative |= S.Header.RequiresCommutative;
    S.FirstRound = Round;
    if (S.Header.Ranks > 1) {
      llvm::Expected<uint32_t> Span = planRoundSpan(*S.Algo, S.Header);
      if (!Span)
        return makeError(ErrorKind::CannotCompile,
                         S.Name +
                             " stage: " + llvm::toString(Span.takeError()));
      S.Rounds = *Span;
    }
    Round += S.Rounds;
  }
  if (Composed.Buffers.size() > 0xffff)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the stages declare too many buffers");
  return C;
}

void Composition::append(Program &Prog, size_t StageIndex, uint32_t SubRank,
                         llvm::function_ref<uint32_t(uint32_t)> GlobalOf,
                         uint32_t Slice) const {
  const PlacedStage &S = Stages[StageIndex];
  if (S.Rounds == 0)
    return;
  uint64_t Offset = Slice * S.BlockScale * S.Header.Blocks;
  Program Sub = S.Algo->buildRank(S.Header, SubRank);
  for (Round &Rd : Sub.Rounds)
    for (Op &O : Rd.Ops) {
      O.Buffer = S.BufferMap[O.Buffer];
      if (O.Kind == OpKind::Local)
        O.Source = S.BufferMap[O.Source];
      else
        O.Peer = GlobalOf(O.Peer);
      O.Blocks = rescale(O.Blocks, S.BlockScale, Offset);
      Prog.add(S.FirstRound + Rd.Index, std::move(O));
    }
}

} // namespace collplan
