//===- ReferenceInterpreter.cpp - The tests' one brute-force plan runner --===//

#include "tests/support/ReferenceInterpreter.h"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>

namespace collplan::test {
namespace {

/// A hash of (Seed, Stream, Index): independent random values per stream.
uint64_t randomValue(uint64_t Seed, uint64_t Stream, uint64_t Index) {
  uint64_t X = Seed * 0x2545f4914f6cdd1dULL + Stream * 0x9e3779b97f4a7c15ULL +
               Index * 0xd1b54a32d192ed03ULL;
  for (int I = 0; I < 3; ++I) {
    X ^= X >> 31;
    X *= 0x7fb5d329728ea185ULL;
    X ^= X >> 27;
  }
  return X;
}

/// The base of the ordered hash, and rank R's element in it.
constexpr uint64_t OrderBase = 0x100000001b3ULL;
uint64_t orderElement(uint32_t R) {
  return randomValue(0, 3, R) | 1; // Odd: never the empty sequence's 0.
}

/// What one cell holds, but its contributor set.
struct Cell {
  uint64_t Value = 0;   ///< Concrete: contributions and garbage, summed.
  uint64_t Count = 0;   ///< Contributions combined, with repetition.
  uint64_t Ordered = 0; ///< Polynomial hash of the contribution sequence.
  uint64_t Power = 1;   ///< OrderBase^Count.
  bool Defined = false; ///< Derived from contributions only.
};

std::string str(uint64_t X) { return std::to_string(X); }

} // namespace

struct ReferenceInterpreter::State {
  const Plan &P;
  const PlanHeader &H;
  uint64_t Seed;
  uint32_t Ranks;
  uint64_t Blocks;
  size_t NumBuffers;
  size_t Words; ///< 64-bit words per contributor set.
  std::vector<Cell> Cells;
  std::vector<uint64_t> Sets; ///< Words per cell.
  Interpretation Out;
  bool Ran = false;

  State(const Plan &P, uint64_t Seed)
      : P(P), H(P.Header), Seed(Seed), Ranks(P.Header.Ranks),
        Blocks(P.Header.Blocks), NumBuffers(P.Header.Buffers.size()),
        Words((P.Header.Ranks + 63) / 64) {}

  size_t at(uint32_t R, uint16_t Buf, uint64_t B) const {
    return (size_t(R) * NumBuffers + Buf) * Blocks + B;
  }
  uint64_t *set(size_t C) { return &Sets[C * Words]; }
  const uint64_t *set(size_t C) const { return &Sets[C * Words]; }
  uint64_t contribution(uint32_t R, uint64_t B) const {
    return randomValue(Seed, 1, uint64_t(R) * Blocks + B);
  }
  uint64_t owner(uint64_t B) const { return B / (Blocks / Ranks); }
  bool personalised() const {
    return H.Kind == Collective::Alltoall || H.Kind == Collective::Alltoallv;
  }
  /// Alltoall(v): the rank block B is for. The vector is the P x P matrix
  /// of runs of Blocks / P^2 blocks, row r what rank r sends.
  uint64_t addressee(uint64_t B) const {
    return B / (Blocks / (uint64_t(Ranks) * Ranks)) % Ranks;
  }
  /// Alltoall(v): how often each rank received each block addressed to it.
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> Arrivals;

  /// A broken rule; Breaks when it makes the result wrong on real numbers.
  void error(std::string Msg, bool Breaks) {
    if (Breaks && !Out.Broken) {
      Out.Broken = true;
      Out.Why = Msg;
    }
    if (Out.Errors.size() < MaxErrors)
      Out.Errors.push_back(std::move(Msg));
  }

  std::string malformed() const {
    if (Ranks == 0 || Blocks == 0 || P.Programs.size() != Ranks)
      return "malformed header";
    if (NumBuffers == 0)
      return "no data buffer";
    if (!H.Weights.empty() && H.Weights.size() != Blocks)
      return "weights do not match the blocks";
    bool Rooted =
        H.Kind == Collective::Broadcast || H.Kind == Collective::Reduce;
    if (Rooted && (!H.Root || *H.Root >= Ranks))
      return "bad root";
    bool Owned = H.Kind == Collective::Allgather ||
                 H.Kind == Collective::Allgatherv ||
                 H.Kind == Collective::ReduceScatter;
    if (Owned && Blocks % Ranks)
      return "blocks not divisible by ranks";
    if (personalised() && Blocks % (uint64_t(Ranks) * Ranks))
      return "blocks not divisible by P^2";
    for (uint32_t R = 0; R < Ranks; ++R) {
      int64_t Last = -1;
      for (const Round &Rd : P.Programs[R].Rounds) {
        std::string Where =
            "rank " + str(R) + ", round " + str(Rd.Index) + ": ";
        if (int64_t(Rd.Index) <= Last)
          return Where + "rounds out of order";
        Last = Rd.Index;
        for (const Op &O : Rd.Ops) {
          if (O.Kind != OpKind::Local && (O.Peer >= Ranks || O.Peer == R))
            return Where + "bad peer";
          if (O.Buffer >= NumBuffers || O.Source >= NumBuffers)
            return Where + "bad buffer";
          if (O.Kind == OpKind::Local && O.Source == O.Buffer)
            return Where + "local op within one buffer";
          if (O.Blocks.empty() || O.Blocks.upperBound() > Blocks)
            return Where + "bad blocks";
        }
      }
    }
    return "";
  }

  /// Whether rank R's data block B starts with R's contribution.
  bool startsHeld(uint32_t R, uint64_t B) const {
    switch (H.Kind) {
    case Collective::Allreduce:
    case Collective::ReduceScatter:
    case Collective::Reduce:
      return true;
    case Collective::Allgather:
    case Collective::Allgatherv:
      return owner(B) == R;
    case Collective::Broadcast:
      return R == *H.Root;
    case Collective::Alltoall:
    case Collective::Alltoallv:
      return owner(B) == R;
    }
    return false;
  }

  void initialise() {
    Cells.resize(size_t(Ranks) * NumBuffers * Blocks);
    Sets.assign(Cells.size() * Words, 0);
    for (size_t C = 0; C < Cells.size(); ++C)
      Cells[C].Value = randomValue(Seed, 2, C); // Garbage.
    for (uint32_t R = 0; R < Ranks; ++R)
      for (uint64_t B = 0; B < Blocks; ++B) {
        if (!startsHeld(R, B))
          continue;
        size_t C = at(R, DataBuffer, B);
        Cells[C] =
            Cell{contribution(R, B), 1, orderElement(R), OrderBase, true};
        set(C)[R / 64] |= uint64_t(1) << (R % 64);
      }
  }

  /// A message in flight: its blocks and their cells as the round began.
  struct Message {
    BlockSet Blocks;
    std::vector<Cell> Data;
    std::vector<uint64_t> Sets;
  };

  /// Lands In (with contributor set InSet) in cell C per Mode. Returns the
  /// strict rule broken, or "".
  std::string land(size_t C, const Cell &In, const uint64_t *InSet,
                   Combine Mode, uint64_t B) {
    Cell &Dst = Cells[C];
    uint64_t *DstSet = set(C);
    if (Mode == Combine::Replace) {
      Dst = In;
      std::copy(InSet, InSet + Words, DstSet);
      return "";
    }
    std::string Err;
    bool Twice = false;
    for (size_t W = 0; W < Words; ++W)
      Twice |= (DstSet[W] & InSet[W]) != 0;
    if (!Dst.Defined)
      Err = "reduces into undefined block " + str(B);
    else if (Twice)
      Err = "reduce counts a contribution twice in block " + str(B);
    Dst.Value += In.Value;
    Dst.Count += In.Count;
    Dst.Ordered = Dst.Ordered * In.Power + In.Ordered;
    Dst.Power *= In.Power;
    Dst.Defined = Dst.Defined && In.Defined;
    for (size_t W = 0; W < Words; ++W)
      DstSet[W] |= InSet[W];
    return Err;
  }

  void runRound(uint32_t Index,
                const std::vector<std::pair<uint32_t, const Round *>> &Active) {
    std::string Where = "round " + str(Index) + ": ";
    // Sends read the state as the round begins.
    std::map<std::pair<uint32_t, uint32_t>, std::deque<Message>> Mail;
    for (auto [R, Rd] : Active) {
      Out.MaxOpsPerRound =
          std::max<uint64_t>(Out.MaxOpsPerRound, Rd->Ops.size());
      for (const Op &O : Rd->Ops) {
        if (O.Kind != OpKind::Send)
          continue;
        Message M{O.Blocks, {}, {}};
        uint64_t Weight = 0;
        O.Blocks.forEachBlock([&](uint64_t B) {
          size_t C = at(R, O.Buffer, B);
          if (!Cells[C].Defined)
            error(Where + "rank " + str(R) + " sends undefined block " + str(B),
                  false);
          M.Data.push_back(Cells[C]);
          M.Sets.insert(M.Sets.end(), set(C), set(C) + Words);
          Weight += H.Weights.empty() ? 1 : H.Weights[B];
        });
        Out.MaxMessageWeight = std::max(Out.MaxMessageWeight, Weight);
        Mail[{R, O.Peer}].push_back(std::move(M));
      }
    }
    for (auto [R, Rd] : Active) {
      // Receives may overlap neither each other nor the round's sends.
      std::vector<BlockSet> Busy(NumBuffers);
      for (const Op &O : Rd->Ops)
        if (O.Kind == OpKind::Send)
          Busy[O.Buffer].insert(O.Blocks);
      for (const Op &O : Rd->Ops) {
        if (O.Kind != OpKind::Recv)
          continue;
        if (Busy[O.Buffer].overlaps(O.Blocks))
          error(Where + "rank " + str(R) +
                    " receives into blocks it sends or receives in the round",
                true);
        Busy[O.Buffer].insert(O.Blocks);
      }
    }
    for (auto [R, Rd] : Active)
      for (const Op &O : Rd->Ops) {
        if (O.Kind != OpKind::Recv)
          continue;
        auto &Queue = Mail[{O.Peer, R}];
        if (Queue.empty()) {
          error(Where + "rank " + str(R) + " receives from " + str(O.Peer) +
                    " which sends nothing",
                true);
          continue;
        }
        Message M = std::move(Queue.front());
        Queue.pop_front();
        if (M.Blocks != O.Blocks) {
          error(Where + "rank " + str(R) + " expects blocks " + O.Blocks.str() +
                    " from " + str(O.Peer) + " which sends " + M.Blocks.str(),
                true);
          continue;
        }
        size_t I = 0;
        O.Blocks.forEachBlock([&](uint64_t B) {
          size_t C = at(R, O.Buffer, B);
          if (O.Mode == Combine::Replace && O.Buffer == DataBuffer &&
              Cells[C].Defined)
            ++Out.ReplacedHeld;
          if (personalised() && addressee(B) == R && ++Arrivals[{R, B}] == 2)
            error(Where + "rank " + str(R) + " receives block " + str(B) +
                      ", addressed to it, a second time",
                  false);
          std::string E = land(C, M.Data[I], &M.Sets[I * Words], O.Mode, B);
          if (!E.empty())
            error(Where + "rank " + str(R) + " " + E, false);
          ++I;
        });
      }
    for (auto &[Pair, Queue] : Mail)
      if (!Queue.empty())
        error(Where + str(Pair.first) + " sends to " + str(Pair.second) +
                  " which does not receive it",
              true);
    for (auto [R, Rd] : Active)
      for (const Op &O : Rd->Ops) {
        if (O.Kind != OpKind::Local)
          continue;
        O.Blocks.forEachBlock([&](uint64_t B) {
          size_t Src = at(R, O.Source, B);
          if (!Cells[Src].Defined)
            error(Where + "rank " + str(R) + " combines undefined block " +
                      str(B),
                  false);
          // Source and destination are different buffers: no aliasing.
          Cell In = Cells[Src];
          std::string E = land(at(R, O.Buffer, B), In, set(Src), O.Mode, B);
          if (!E.empty())
            error(Where + "rank " + str(R) + " " + E, false);
        });
      }
  }

  void endError(std::string Msg) {
    if (Out.EndErrors.size() < MaxErrors)
      Out.EndErrors.push_back(std::move(Msg));
  }

  /// Checks rank R's data block B: it holds every rank's contribution once
  /// (Contributor < 0) or Contributor's alone.
  void expect(uint32_t R, uint64_t B, int64_t Contributor) {
    size_t C = at(R, DataBuffer, B);
    const Cell &Got = Cells[C];
    std::vector<uint64_t> WantSet(Words, 0);
    uint64_t WantValue = 0, WantCount = 0;
    if (Contributor < 0) {
      for (uint32_t Q = 0; Q < Ranks; ++Q) {
        WantSet[Q / 64] |= uint64_t(1) << (Q % 64);
        WantValue += contribution(Q, B);
      }
      WantCount = Ranks;
    } else {
      WantSet[Contributor / 64] |= uint64_t(1) << (Contributor % 64);
      WantValue = contribution(uint32_t(Contributor), B);
      WantCount = 1;
    }
    std::string Where = "end: rank " + str(R) + " block " + str(B);
    if (Got.Value != WantValue) {
      std::string Why = Where + " ends with a wrong value";
      if (!Out.Broken) {
        Out.Broken = true;
        Out.Why = Why;
      }
    }
    bool SameSet = std::equal(WantSet.begin(), WantSet.end(), set(C));
    if (!Got.Defined || Got.Count != WantCount || !SameSet) {
      endError(Where + " holds " + str(Got.Count) +
               " contributions, not the expected ones");
      return;
    }
    if (Got.Value != WantValue) {
      endError(Where + " holds the right ranks' data of other blocks");
      return;
    }
    if (Contributor >= 0 || H.RequiresCommutative)
      return;
    uint64_t WantOrdered = 0;
    for (uint32_t Q = 0; Q < Ranks; ++Q)
      WantOrdered = WantOrdered * OrderBase + orderElement(Q);
    if (Got.Ordered != WantOrdered) {
      // Wrong on a non-commutative operator, which the plan accepts.
      std::string Why = Where + " combines its contributions out of rank order";
      if (!Out.Broken) {
        Out.Broken = true;
        Out.Why = Why;
      }
      endError(Why);
    }
  }

  /// The end state each collective promises (ARCHITECTURE.md, "What
  /// \"verified\" means"): allreduce, every
  /// block everywhere holds all contributions; reduce-scatter, each rank its
  /// own blocks; reduce, the root every block; allgather(v), every block
  /// everywhere its owner's contribution; broadcast, the root's; alltoall(v),
  /// each block its sender's contribution at the rank it is addressed to.
  void checkEnd() {
    for (uint32_t R = 0; R < Ranks; ++R)
      for (uint64_t B = 0; B < Blocks; ++B)
        switch (H.Kind) {
        case Collective::Allreduce:
          expect(R, B, -1);
          break;
        case Collective::ReduceScatter:
          if (owner(B) == R)
            expect(R, B, -1);
          break;
        case Collective::Reduce:
          if (R == *H.Root)
            expect(R, B, -1);
          break;
        case Collective::Allgather:
        case Collective::Allgatherv:
          expect(R, B, int64_t(owner(B)));
          break;
        case Collective::Broadcast:
          expect(R, B, int64_t(*H.Root));
          break;
        case Collective::Alltoall:
        case Collective::Alltoallv:
          if (addressee(B) == R)
            expect(R, B, int64_t(owner(B)));
          break;
        }
  }

  void run(llvm::function_ref<void(uint32_t)> After) {
    if (std::string Why = malformed(); !Why.empty()) {
      error(Why, true);
      return;
    }
    initialise();
    std::map<uint32_t, std::vector<std::pair<uint32_t, const Round *>>> ByIndex;
    for (uint32_t R = 0; R < Ranks; ++R)
      for (const Round &Rd : P.Programs[R].Rounds)
        ByIndex[Rd.Index].push_back({R, &Rd});
    Out.Rounds = ByIndex.size();
    Out.RoundSpan = ByIndex.empty() ? 0 : uint64_t(ByIndex.rbegin()->first) + 1;
    for (auto &[Index, Active] : ByIndex) {
      runRound(Index, Active);
      if (After)
        After(Index);
    }
    checkEnd();
  }
};

std::vector<std::string> Interpretation::problems() const {
  std::vector<std::string> All = Errors;
  All.insert(All.end(), EndErrors.begin(), EndErrors.end());
  return All;
}

std::string Interpretation::firstError() const {
  return Errors.empty() ? "" : Errors.front();
}

std::string Interpretation::firstEndError() const {
  return EndErrors.empty() ? "" : EndErrors.front();
}

ReferenceInterpreter::ReferenceInterpreter(const Plan &P, uint64_t Seed)
    : S(std::make_unique<State>(P, Seed)) {}

ReferenceInterpreter::~ReferenceInterpreter() = default;

const Interpretation &
ReferenceInterpreter::run(llvm::function_ref<void(uint32_t)> After) {
  if (!S->Ran) {
    S->Ran = true;
    S->run(After);
  }
  return S->Out;
}

llvm::BitVector ReferenceInterpreter::contributors(uint32_t Rank,
                                                   uint16_t Buffer,
                                                   uint64_t Block) const {
  llvm::BitVector Out(S->Ranks);
  if (S->Cells.empty())
    return Out;
  const uint64_t *Set = S->set(S->at(Rank, Buffer, Block));
  for (uint32_t R = 0; R < S->Ranks; ++R)
    if (Set[R / 64] >> (R % 64) & 1)
      Out.set(R);
  return Out;
}

std::vector<uint32_t> ReferenceInterpreter::holding(uint32_t Rank,
                                                    uint16_t Buffer,
                                                    uint64_t Block) const {
  std::vector<uint32_t> Out;
  for (unsigned R : contributors(Rank, Buffer, Block).set_bits())
    Out.push_back(R);
  return Out;
}

bool ReferenceInterpreter::defined(uint32_t Rank, uint16_t Buffer,
                                   uint64_t Block) const {
  return !S->Cells.empty() && S->Cells[S->at(Rank, Buffer, Block)].Defined;
}

uint64_t ReferenceInterpreter::contributionCount(uint32_t Rank, uint16_t Buffer,
                                                 uint64_t Block) const {
  return S->Cells.empty() ? 0 : S->Cells[S->at(Rank, Buffer, Block)].Count;
}

Interpretation interpret(const Plan &P, uint64_t Seed) {
  ReferenceInterpreter I(P, Seed);
  return I.run();
}

uint64_t roundCount(const Plan &P) {
  std::vector<uint32_t> Indices;
  for (const Program &Prog : P.Programs)
    for (const Round &Rd : Prog.Rounds)
      Indices.push_back(Rd.Index);
  std::sort(Indices.begin(), Indices.end());
  return std::unique(Indices.begin(), Indices.end()) - Indices.begin();
}

} // namespace collplan::test
