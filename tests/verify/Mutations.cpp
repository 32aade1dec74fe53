//===- Mutations.cpp - Single-edit mutants of a plan ----------------------===//

#include "Mutations.h"

#include <algorithm>
#include <random>

namespace collplan {
namespace test {
namespace {

struct Site {
  uint32_t Rank, RoundPos, OpIdx;
};

Op &opAt(Plan &P, const Site &S) {
  return P.Programs[S.Rank].Rounds[S.RoundPos].Ops[S.OpIdx];
}

std::string describe(const Plan &P, const char *Kind, const Site &S) {
  return std::string(Kind) + " at rank " + std::to_string(S.Rank) + " round " +
         std::to_string(P.Programs[S.Rank].Rounds[S.RoundPos].Index) + " op " +
         std::to_string(S.OpIdx);
}

Op removeOp(Plan &P, const Site &S) {
  auto &Rounds = P.Programs[S.Rank].Rounds;
  Op O = Rounds[S.RoundPos].Ops[S.OpIdx];
  Rounds[S.RoundPos].Ops.erase(Rounds[S.RoundPos].Ops.begin() + S.OpIdx);
  if (Rounds[S.RoundPos].Ops.empty())
    Rounds.erase(Rounds.begin() + S.RoundPos);
  return O;
}

/// Appends O to the rank's round Index, creating the round in order.
void insertOp(Plan &P, uint32_t Rank, uint32_t Index, Op O) {
  auto &Rounds = P.Programs[Rank].Rounds;
  auto It =
      std::lower_bound(Rounds.begin(), Rounds.end(), Index,
                       [](const Round &R, uint32_t I) { return R.Index < I; });
  if (It == Rounds.end() || It->Index != Index)
    It = Rounds.insert(It, Round{Index, {}});
  It->Ops.push_back(std::move(O));
}

/// Each range moved by Delta (+1 or -1), wrapping modulo Blocks.
BlockSet shifted(const BlockSet &S, int Delta, uint64_t Blocks) {
  BlockSet Out;
  for (const BlockRange &R : S.ranges())
    Out.insert(BlockSet::wrapped((R.Begin + Blocks + Delta) % Blocks, R.size(),
                                 Blocks));
  return Out;
}

/// The send that pairs with the receive at S by the FIFO rule, if any.
std::optional<Site> matchingSend(const Plan &P, const Site &S) {
  const Round &Rd = P.Programs[S.Rank].Rounds[S.RoundPos];
  const Op &Recv = Rd.Ops[S.OpIdx];
  uint32_t Ordinal = 0;
  for (uint32_t I = 0; I < S.OpIdx; ++I)
    Ordinal += Rd.Ops[I].Kind == OpKind::Recv && Rd.Ops[I].Peer == Recv.Peer;
  const auto &Peer = P.Programs[Recv.Peer].Rounds;
  for (uint32_t Pos = 0; Pos < Peer.size(); ++Pos) {
    if (Peer[Pos].Index != Rd.Index)
      continue;
    for (uint32_t I = 0; I < Peer[Pos].Ops.size(); ++I) {
      const Op &O = Peer[Pos].Ops[I];
      if (O.Kind == OpKind::Send && O.Peer == S.Rank && Ordinal-- == 0)
        return Site{Recv.Peer, Pos, I};
    }
  }
  return std::nullopt;
}

} // namespace

std::vector<Mutant> mutantsOf(const Plan &P, size_t PerKind, uint64_t Seed) {
  std::mt19937_64 Rng(Seed);
  uint32_t Ranks = P.Header.Ranks;
  uint64_t Blocks = P.Header.Blocks;
  std::vector<Site> All;
  uint32_t LastRound = 0;
  for (uint32_t R = 0; R < P.Programs.size(); ++R)
    for (uint32_t Pos = 0; Pos < P.Programs[R].Rounds.size(); ++Pos) {
      LastRound = std::max(LastRound, P.Programs[R].Rounds[Pos].Index);
      for (uint32_t I = 0; I < P.Programs[R].Rounds[Pos].Ops.size(); ++I)
        All.push_back({R, Pos, I});
    }
  auto Sample = [&](auto Keep) {
    std::vector<Site> Out;
    for (const Site &S : All)
      if (Keep(P.Programs[S.Rank].Rounds[S.RoundPos].Ops[S.OpIdx]))
        Out.push_back(S);
    std::shuffle(Out.begin(), Out.end(), Rng);
    if (Out.size() > PerKind)
      Out.resize(PerKind);
    return Out;
  };
  auto Any = [](const Op &) { return true; };
  auto Remote = [](const Op &O) { return O.Kind != OpKind::Local; };
  auto Reducing = [](const Op &O) {
    return O.Kind != OpKind::Send && O.Mode == Combine::Reduce;
  };
  auto Copying = [](const Op &O) {
    return O.Kind != OpKind::Send && O.Mode == Combine::Replace;
  };
  auto ReducingRecv = [](const Op &O) {
    return O.Kind == OpKind::Recv && O.Mode == Combine::Reduce;
  };

  std::vector<Mutant> Out;
  auto Emit = [&](const char *Kind, const Site &S, Plan M,
                  bool Reorders = false) {
    Out.push_back({describe(P, Kind, S), std::move(M), Reorders});
  };
  for (const Site &S : Sample(Any)) {
    Plan M = P;
    removeOp(M, S);
    Emit("drop", S, std::move(M));
  }
  if (Ranks > 2)
    for (const Site &S : Sample(Remote)) {
      Plan M = P;
      Op &O = opAt(M, S);
      do
        O.Peer = (O.Peer + 1 + Rng() % (Ranks - 1)) % Ranks;
      while (O.Peer == S.Rank);
      Emit("change peer", S, std::move(M));
    }
  if (Blocks > 1)
    for (const Site &S : Sample(Any)) {
      Plan M = P;
      Op &O = opAt(M, S);
      BlockSet New = shifted(O.Blocks, Rng() % 2 ? 1 : -1, Blocks);
      if (New == O.Blocks)
        continue;
      O.Blocks = New;
      Emit("shift blocks", S, std::move(M));
    }
  for (const Site &S : Sample(Reducing)) {
    Plan M = P;
    opAt(M, S).Mode = Combine::Replace;
    Emit("reduce to copy", S, std::move(M));
  }
  for (const Site &S : Sample(Copying)) {
    Plan M = P;
    opAt(M, S).Mode = Combine::Reduce;
    Emit("copy to reduce", S, std::move(M));
  }
  for (const Site &S : Sample(Reducing)) {
    Plan M = P;
    auto &Ops = M.Programs[S.Rank].Rounds[S.RoundPos].Ops;
    Ops.insert(Ops.begin() + S.OpIdx + 1, Ops[S.OpIdx]);
    Emit("duplicate reduce", S, std::move(M));
  }
  for (const Site &S : Sample(Any)) {
    Plan M = P;
    uint32_t From = P.Programs[S.Rank].Rounds[S.RoundPos].Index;
    uint32_t To;
    switch (Rng() % 3) {
    case 0:
      To = From + 1;
      break;
    case 1:
      To = From == 0 ? From + 1 : From - 1;
      break;
    default:
      To = Rng() % (LastRound + 2);
      if (To == From)
        To = From + 1;
      break;
    }
    Op O = removeOp(M, S);
    insertOp(M, S.Rank, To, std::move(O));
    Emit("move to another round", S, std::move(M));
  }
  // Both ends of a reducing message once more, in a new last round: matches,
  // so only the symbolic state can tell it combines a contribution twice.
  for (const Site &S : Sample(ReducingRecv)) {
    std::optional<Site> Send = matchingSend(P, S);
    if (!Send)
      continue;
    Plan M = P;
    insertOp(M, Send->Rank, LastRound + 1, opAt(M, *Send));
    insertOp(M, S.Rank, LastRound + 1, opAt(M, S));
    Emit("repeat reducing message", S, std::move(M));
  }
  // Operand order (Plan.h: destination = destination (+) incoming). Through a
  // buffer the plan does not use, a reduce is rewritten to combine the same
  // two partials the other way round, and nothing else changes: broken
  // exactly when the plan claims rank order.
  auto LocalReduce = [](const Op &O) {
    return O.Kind == OpKind::Local && O.Mode == Combine::Reduce;
  };
  auto WithFresh = [](Plan &M) {
    M.Header.Buffers.push_back("mutant");
    return uint16_t(M.Header.Buffers.size() - 1);
  };
  for (const Site &S : Sample(LocalReduce)) {
    Plan M = P;
    uint16_t Fresh = WithFresh(M);
    Op O = opAt(M, S);
    // Fresh = old destination; destination = source; destination (+)= Fresh.
    auto &Ops = M.Programs[S.Rank].Rounds[S.RoundPos].Ops;
    Ops[S.OpIdx] = Op::local(O.Buffer, Fresh, O.Blocks, Combine::Replace);
    Ops.insert(Ops.begin() + S.OpIdx + 1,
               {Op::local(O.Source, O.Buffer, O.Blocks, Combine::Replace),
                Op::local(Fresh, O.Buffer, O.Blocks, Combine::Reduce)});
    Emit("reverse local reduce", S, std::move(M), /*Reorders=*/true);
  }
  for (const Site &S : Sample(ReducingRecv)) {
    Plan M = P;
    uint16_t Fresh = WithFresh(M);
    Op &O = opAt(M, S);
    uint16_t Dst = O.Buffer;
    BlockSet Blocks = O.Blocks;
    O.Mode = Combine::Replace;
    O.Buffer = Fresh;
    // The original reduce landed before any Local of the round ran, so
    // the rewrite runs first among them: Fresh (+)= destination, then back.
    auto &Ops = M.Programs[S.Rank].Rounds[S.RoundPos].Ops;
    Ops.insert(Ops.begin(), {Op::local(Dst, Fresh, Blocks, Combine::Reduce),
                             Op::local(Fresh, Dst, Blocks, Combine::Replace)});
    Emit("reverse reducing receive", S, std::move(M), /*Reorders=*/true);
  }
  // The plain swap also moves where the result lands.
  for (const Site &S : Sample(LocalReduce)) {
    Plan M = P;
    Op &O = opAt(M, S);
    std::swap(O.Source, O.Buffer);
    Emit("swap local reduce operands", S, std::move(M), /*Reorders=*/true);
  }
  // Two reduces of one round in the other order: a later rank's partial
  // may then be combined before an earlier one's.
  for (const Site &S : Sample(LocalReduce)) {
    const auto &Ops = P.Programs[S.Rank].Rounds[S.RoundPos].Ops;
    for (uint32_t I = S.OpIdx + 1; I < Ops.size(); ++I) {
      if (!LocalReduce(Ops[I]))
        continue;
      Plan M = P;
      auto &MOps = M.Programs[S.Rank].Rounds[S.RoundPos].Ops;
      std::swap(MOps[S.OpIdx], MOps[I]);
      Emit("swap two local reduces", S, std::move(M), /*Reorders=*/true);
      break;
    }
  }
  return Out;
}

} // namespace test
} // namespace collplan
