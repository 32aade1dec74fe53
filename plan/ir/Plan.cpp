//===- Plan.cpp - The plan IR ---------------------------------------------===//

#include "plan/ir/Plan.h"

#include "llvm/ADT/STLExtras.h"

namespace collplan {

// Anchors the vtable in this file.
PreparedParams::~PreparedParams() = default;

Op Op::send(uint32_t Peer, BlockSet Blocks, uint16_t Buffer) {
  Op O;
  O.Kind = OpKind::Send;
  O.Peer = Peer;
  O.Buffer = Buffer;
  O.Blocks = std::move(Blocks);
  return O;
}

Op Op::recv(uint32_t Peer, BlockSet Blocks, Combine Mode, uint16_t Buffer) {
  Op O;
  O.Kind = OpKind::Recv;
  O.Mode = Mode;
  O.Peer = Peer;
  O.Buffer = Buffer;
  O.Blocks = std::move(Blocks);
  return O;
}

Op Op::local(uint16_t Source, uint16_t Destination, BlockSet Blocks,
             Combine Mode) {
  Op O;
  O.Kind = OpKind::Local;
  O.Mode = Mode;
  O.Source = Source;
  O.Buffer = Destination;
  O.Blocks = std::move(Blocks);
  return O;
}

namespace {
thread_local OpBudget *CurrentBudget = nullptr;
} // namespace

OpBudget::OpBudget(uint64_t Limit) : Limit(Limit), Outer(CurrentBudget) {
  CurrentBudget = this;
}

OpBudget::~OpBudget() { CurrentBudget = Outer; }

bool OpBudget::exceededOnThisThread() {
  return CurrentBudget && CurrentBudget->exceeded();
}

bool OpBudget::cannotFit(uint64_t Ops) {
  OpBudget *B = CurrentBudget;
  if (!B || B->Added + Ops <= B->Limit)
    return false;
  B->Added += Ops;
  return true;
}

void Program::add(uint32_t Index, Op Operation) {
  if (OpBudget *B = CurrentBudget)
    if (++B->Added > B->Limit)
      return;
  if (Rounds.empty() || Rounds.back().Index != Index)
    Rounds.push_back(Round{Index, {}});
  Rounds.back().Ops.push_back(std::move(Operation));
}

uint64_t Program::numOps() const {
  uint64_t N = 0;
  for (const Round &Rd : Rounds)
    N += Rd.Ops.size();
  return N;
}

uint32_t PlanHeader::ownerOf(uint64_t Block) const {
  uint64_t PerRank = Blocks / Ranks;
  return PerRank == 0 ? 0 : uint32_t(Block / PerRank);
}

BlockSet PlanHeader::ownedBy(uint32_t Rank) const {
  uint64_t PerRank = Blocks / Ranks;
  return BlockSet::range(Rank * PerRank, (Rank + 1) * PerRank);
}

uint64_t PlanHeader::pairBlocks() const {
  return Blocks / (uint64_t(Ranks) * Ranks);
}

uint32_t PlanHeader::addresseeOf(uint64_t Block) const {
  uint64_t S = pairBlocks();
  return S == 0 ? 0 : uint32_t(Block / S % Ranks);
}

BlockSet PlanHeader::addressedTo(uint32_t Rank) const {
  uint64_t S = pairBlocks();
  BlockSet Out;
  for (uint64_t From = 0; S != 0 && From < Ranks; ++From) {
    uint64_t Begin = (From * Ranks + Rank) * S;
    Out.insert(Begin, Begin + S);
  }
  return Out;
}

namespace {

BlockSet blocksOf(const PlanHeader &H, VectorPart Part, uint32_t Rank) {
  switch (Part) {
  case VectorPart::None:
    return {};
  case VectorPart::Whole:
    return BlockSet::range(0, H.Blocks);
  case VectorPart::Owned:
    return H.ownedBy(Rank);
  case VectorPart::AtRoot:
    return H.Root == Rank ? BlockSet::range(0, H.Blocks) : BlockSet();
  case VectorPart::Addressed:
    return H.addressedTo(Rank);
  }
  return {};
}

} // namespace

BlockSet PlanHeader::inputBlocks(uint32_t Rank) const {
  return blocksOf(*this, contractOf(Kind).Input, Rank);
}

BlockSet PlanHeader::outputBlocks(uint32_t Rank) const {
  return blocksOf(*this, contractOf(Kind).Output, Rank);
}

uint32_t PlanHeader::contributorOf(uint64_t Block) const {
  return contractOf(Kind).Input == VectorPart::AtRoot ? Root.value_or(0)
                                                      : ownerOf(Block);
}

std::string Diagnostic::str() const {
  std::string Out;
  auto Add = [&](const char *Name, int64_t V) {
    if (V < 0)
      return;
    Out += Out.empty() ? "" : ", ";
    Out += Name + std::to_string(V);
  };
  Add("rank ", Where.Rank);
  Add("round ", Where.Round);
  Add("op ", Where.Op);
  return Out.empty() ? Message : Out + ": " + Message;
}

namespace {

/// Collects at most MaxErrors diagnostics.
struct DiagnosticSink {
  std::vector<Diagnostic> Errors;
  size_t MaxErrors;

  void operator()(PlanLocation Where, std::string Message) {
    if (Errors.size() < MaxErrors)
      Errors.push_back({Where, std::move(Message)});
  }
  bool full() const { return Errors.size() >= MaxErrors; }
};

void checkHeader(const PlanHeader &H, DiagnosticSink &Report) {
  if (H.Ranks == 0)
    Report({}, "the plan has no ranks");
  if (H.Ranks > MaxRanks)
    Report({}, "P = " + std::to_string(H.Ranks) + " exceeds the limit of " +
                   std::to_string(MaxRanks));
  if (H.Topo.ranks() != H.Ranks)
    Report({}, "the topology '" + H.Topo.str() + "' has " +
                   std::to_string(H.Topo.ranks()) + " ranks, the plan " +
                   std::to_string(H.Ranks));
  if (H.Blocks == 0)
    Report({}, "the plan has no blocks");
  if (!H.Weights.empty() && H.Weights.size() != H.Blocks)
    Report({}, "the plan has " + std::to_string(H.Weights.size()) +
                   " weights for " + std::to_string(H.Blocks) + " blocks");
  // All-zero weights describe an empty collective: a plan that moves no
  // data is refused rather than verified as vacuously correct.
  if (!H.Weights.empty() &&
      llvm::all_of(H.Weights, [](uint64_t W) { return W == 0; }))
    Report({}, "the block weights are all 0: the plan moves no data");
  for (size_t B = 0; B < H.Weights.size(); ++B)
    if (H.Weights[B] > maxBlockWeight(H.Blocks)) {
      Report({}, "block " + std::to_string(B) + " has weight " +
                     std::to_string(H.Weights[B]) + ", more than the " +
                     std::to_string(maxBlockWeight(H.Blocks)) + " a plan of " +
                     std::to_string(H.Blocks) + " blocks allows");
      break;
    }
  if (H.Buffers.empty() || H.Buffers.size() > 0xffff)
    Report({}, "the plan must declare between 1 and 65535 buffers");
  if (hasRoot(H.Kind) && (!H.Root || *H.Root >= H.Ranks))
    Report({}, std::string(collectiveName(H.Kind)) + " needs a root in [0, P)");
  if (hasOwnedBlocks(H.Kind) && H.Ranks && H.Blocks % H.Ranks != 0)
    Report({}, std::string(collectiveName(H.Kind)) +
                   " needs a block count "
                   "that is a multiple of P; got " +
                   std::to_string(H.Blocks));
  else if (isPersonalised(H.Kind) &&
           (H.Blocks == 0 || H.Blocks % (uint64_t(H.Ranks) * H.Ranks) != 0))
    Report({}, std::string(collectiveName(H.Kind)) +
                   " needs a block count that is a positive multiple of P^2 "
                   "(one run per sender and receiver); got " +
                   std::to_string(H.Blocks));
}

/// Checks rank R's program against a header that passed checkHeader.
void checkProgram(const PlanHeader &H, uint32_t R, const Program &Prog,
                  DiagnosticSink &Report) {
  int64_t Previous = -1;
  for (const Round &Rd : Prog.Rounds) {
    if (int64_t(Rd.Index) <= Previous)
      Report({int64_t(R), Rd.Index, -1},
             "round " + std::to_string(Rd.Index) + " follows round " +
                 std::to_string(Previous) + "; rounds must strictly increase");
    Previous = Rd.Index;
    for (size_t I = 0; I < Rd.Ops.size(); ++I) {
      const Op &O = Rd.Ops[I];
      PlanLocation Where{int64_t(R), Rd.Index, int64_t(I)};
      if (O.Kind != OpKind::Local && O.Peer >= H.Ranks)
        Report(Where, "peer " + std::to_string(O.Peer) + " is not a rank");
      if (O.Kind != OpKind::Local && O.Peer == R)
        Report(Where, "a rank cannot send to or receive from itself");
      if (O.Buffer >= H.Buffers.size() ||
          (O.Kind == OpKind::Local && O.Source >= H.Buffers.size()))
        Report(Where, "buffer index is not declared");
      if (O.Blocks.upperBound() > H.Blocks)
        Report(Where, "blocks " + O.Blocks.str() + " exceed the " +
                          std::to_string(H.Blocks) + " blocks of the plan");
      if (O.Blocks.empty())
        Report(Where, "the operation moves no blocks");
      if (O.Kind == OpKind::Local && O.Source == O.Buffer)
        Report(Where, "a local operation's source and destination are the "
                      "same buffer");
    }
    if (Report.full())
      return;
  }
}

} // namespace

std::vector<Diagnostic> checkStructure(const Plan &P, size_t MaxErrors) {
  DiagnosticSink Report{{}, MaxErrors};
  const PlanHeader &H = P.Header;
  checkHeader(H, Report);
  if (P.Programs.size() != H.Ranks)
    Report({}, "the plan declares " + std::to_string(H.Ranks) +
                   " ranks but has " + std::to_string(P.Programs.size()) +
                   " programs");
  if (!Report.Errors.empty())
    return std::move(Report.Errors);
  for (size_t R = 0; R < P.Programs.size() && !Report.full(); ++R)
    checkProgram(H, uint32_t(R), P.Programs[R], Report);
  return std::move(Report.Errors);
}

std::vector<Diagnostic> checkRankStructure(const PlanHeader &H, uint32_t Rank,
                                           const Program &Prog,
                                           size_t MaxErrors) {
  DiagnosticSink Report{{}, MaxErrors};
  checkHeader(H, Report);
  if (Rank >= H.Ranks)
    Report({}, "rank " + std::to_string(Rank) + " is not one of the plan's " +
                   std::to_string(H.Ranks) + " ranks");
  if (Report.Errors.empty())
    checkProgram(H, Rank, Prog, Report);
  return std::move(Report.Errors);
}

} // namespace collplan
