//===- PlanSimulator.h - A brute-force plan executor for tests --*- C++ -*-===//
//
// An oracle written for the algorithm tests, independent of the verifier:
// it runs a plan concretely, round by round, on values of a free monoid, so
// it sees not only which contributions each block holds but in what order
// they were combined. A value is (count, sum of per-rank hashes, polynomial
// hash of the ordered sequence); "a (+) b" concatenates the sequences, so a
// plan that reverses operands is caught when it claims not to need a
// commutative operator.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_ALGORITHMS_PLANSIMULATOR_H
#define COLLPLAN_TESTS_ALGORITHMS_PLANSIMULATOR_H

#include "plan/ir/Plan.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace collplan::test {

struct Value {
  bool Defined = false;
  uint64_t Count = 0;
  uint64_t Sum = 0;     ///< Sum of the contributions' hashes: order-free.
  uint64_t Ordered = 0; ///< Polynomial hash of the sequence.
  uint64_t Power = 1;   ///< Base^Count, to append to Ordered.

  friend bool operator==(const Value &A, const Value &B) {
    return A.Defined == B.Defined && A.Count == B.Count && A.Sum == B.Sum &&
           A.Ordered == B.Ordered && A.Power == B.Power;
  }
};

inline uint64_t mix(uint64_t X) {
  X += 0x9e3779b97f4a7c15ULL;
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

/// Rank R's contribution.
inline Value contribution(uint32_t R) {
  constexpr uint64_t Base = 0x100000001b3ULL;
  return Value{true, 1, mix(R), mix(R ^ 0x5555555555555555ULL), Base};
}

/// A then B, as "destination = destination (+) incoming" computes it.
inline Value combine(const Value &A, const Value &B) {
  return Value{true, A.Count + B.Count, A.Sum + B.Sum,
               A.Ordered * B.Power + B.Ordered, A.Power * B.Power};
}

/// Contributions Lo, Lo+1, ..., Hi-1 combined in rank order.
inline Value inOrder(uint32_t Lo, uint32_t Hi) {
  Value V = contribution(Lo);
  for (uint32_t R = Lo + 1; R < Hi; ++R)
    V = combine(V, contribution(R));
  return V;
}

struct SimulationResult {
  std::vector<std::string> Errors;
  /// Final[r][buffer][block].
  std::vector<std::vector<std::vector<Value>>> Final;
};

/// Runs P. Initial data: every block of every rank holds its contribution
/// for the reducing collectives, only the owned blocks for allgather(v), only
/// the root's for broadcast; all else is undefined. Reports reading an
/// undefined block, mismatched sends and receives, receives overlapping a
/// round's sends or each other, and (with CheckResult) a wrong end state;
/// the order of combination is checked when the plan claims not to need a
/// commutative operator.
inline SimulationResult simulate(const Plan &P, bool CheckResult = true) {
  const PlanHeader &H = P.Header;
  SimulationResult Out;
  auto Fail = [&](std::string Msg) {
    if (Out.Errors.size() < 20)
      Out.Errors.push_back(std::move(Msg));
  };
  uint32_t N = H.Ranks;
  size_t NumBuffers = H.Buffers.size();
  auto &State = Out.Final;
  State.assign(N, std::vector<std::vector<Value>>(
                      NumBuffers, std::vector<Value>(H.Blocks)));
  for (uint32_t R = 0; R < N; ++R) {
    BlockSet Init;
    if (reduces(H.Kind))
      Init = BlockSet::range(0, H.Blocks);
    else if (hasOwnedBlocks(H.Kind))
      Init = H.ownedBy(R);
    else if (H.Root && *H.Root == R)
      Init = BlockSet::range(0, H.Blocks);
    Init.forEachBlock(
        [&](uint64_t B) { State[R][DataBuffer][B] = contribution(R); });
  }

  std::vector<size_t> Cursor(N, 0);
  while (true) {
    uint64_t Index = UINT64_MAX;
    for (uint32_t R = 0; R < N; ++R)
      if (Cursor[R] < P.Programs[R].Rounds.size())
        Index =
            std::min<uint64_t>(Index, P.Programs[R].Rounds[Cursor[R]].Index);
    if (Index == UINT64_MAX)
      break;
    std::vector<uint32_t> Active;
    for (uint32_t R = 0; R < N; ++R)
      if (Cursor[R] < P.Programs[R].Rounds.size() &&
          P.Programs[R].Rounds[Cursor[R]].Index == Index)
        Active.push_back(R);
    std::string Where = "round " + std::to_string(Index);

    // Sends read the state as the round begins.
    std::map<std::pair<uint32_t, uint32_t>,
             std::deque<std::pair<BlockSet, std::vector<Value>>>>
        Mail;
    for (uint32_t R : Active) {
      const Round &Rd = P.Programs[R].Rounds[Cursor[R]];
      for (const Op &O : Rd.Ops) {
        if (O.Kind != OpKind::Send)
          continue;
        std::vector<Value> Payload;
        O.Blocks.forEachBlock([&](uint64_t B) {
          if (!State[R][O.Buffer][B].Defined)
            Fail(Where + ": rank " + std::to_string(R) +
                 " sends undefined block " + std::to_string(B));
          Payload.push_back(State[R][O.Buffer][B]);
        });
        Mail[{R, O.Peer}].push_back({O.Blocks, std::move(Payload)});
      }
    }
    for (uint32_t R : Active) {
      const Round &Rd = P.Programs[R].Rounds[Cursor[R]];
      // Receives may overlap neither each other nor the round's sends.
      std::vector<BlockSet> Busy(NumBuffers);
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Send)
          Busy[O.Buffer].insert(O.Blocks);
      for (const Op &O : Rd.Ops) {
        if (O.Kind != OpKind::Recv)
          continue;
        if (Busy[O.Buffer].overlaps(O.Blocks))
          Fail(Where + ": rank " + std::to_string(R) +
               " receives into blocks it sends or receives in the round");
        Busy[O.Buffer].insert(O.Blocks);
        auto &Queue = Mail[{O.Peer, R}];
        if (Queue.empty()) {
          Fail(Where + ": rank " + std::to_string(R) + " receives from " +
               std::to_string(O.Peer) + " which sends nothing");
          continue;
        }
        auto [Blocks, Payload] = std::move(Queue.front());
        Queue.pop_front();
        if (Blocks != O.Blocks) {
          Fail(Where + ": rank " + std::to_string(R) + " expects blocks " +
               O.Blocks.str() + " from " + std::to_string(O.Peer) +
               " which sends " + Blocks.str());
          continue;
        }
        size_t I = 0;
        O.Blocks.forEachBlock([&](uint64_t B) {
          Value &Dst = State[R][O.Buffer][B];
          if (O.Mode == Combine::Replace) {
            Dst = Payload[I++];
            return;
          }
          if (!Dst.Defined)
            Fail(Where + ": rank " + std::to_string(R) +
                 " reduces into undefined block " + std::to_string(B));
          Dst = combine(Dst, Payload[I++]);
        });
      }
      for (const Op &O : Rd.Ops) {
        if (O.Kind != OpKind::Local)
          continue;
        O.Blocks.forEachBlock([&](uint64_t B) {
          const Value &Src = State[R][O.Source][B];
          Value &Dst = State[R][O.Buffer][B];
          if (!Src.Defined || (O.Mode == Combine::Reduce && !Dst.Defined))
            Fail(Where + ": rank " + std::to_string(R) +
                 " combines undefined block " + std::to_string(B));
          Dst = O.Mode == Combine::Replace ? Src : combine(Dst, Src);
        });
      }
    }
    for (auto &[Pair, Queue] : Mail)
      if (!Queue.empty())
        Fail(Where + ": " + std::to_string(Pair.first) + " sends to " +
             std::to_string(Pair.second) + " which does not receive it");
    for (uint32_t R : Active)
      ++Cursor[R];
  }

  if (!CheckResult)
    return Out;
  Value All = inOrder(0, N);
  auto Expect = [&](uint32_t R, uint64_t B, const Value &Want, bool Order) {
    const Value &Got = State[R][DataBuffer][B];
    bool Ok = Got.Defined && Got.Count == Want.Count && Got.Sum == Want.Sum &&
              (!Order || Got.Ordered == Want.Ordered);
    if (!Ok)
      Fail("end: rank " + std::to_string(R) + " block " + std::to_string(B) +
           (Got.Defined && Got.Count == Want.Count && Got.Sum == Want.Sum
                ? " combines its contributions out of rank order"
                : " holds " + std::to_string(Got.Count) +
                      " contributions, not the expected ones"));
  };
  bool Order = !H.RequiresCommutative;
  for (uint32_t R = 0; R < N; ++R) {
    switch (H.Kind) {
    case Collective::Allreduce:
      for (uint64_t B = 0; B < H.Blocks; ++B)
        Expect(R, B, All, Order);
      break;
    case Collective::ReduceScatter:
      H.ownedBy(R).forEachBlock([&](uint64_t B) { Expect(R, B, All, Order); });
      break;
    case Collective::Allgather:
    case Collective::Allgatherv:
      for (uint64_t B = 0; B < H.Blocks; ++B)
        Expect(R, B, contribution(H.ownerOf(B)), false);
      break;
    case Collective::Broadcast:
      for (uint64_t B = 0; B < H.Blocks; ++B)
        Expect(R, B, contribution(*H.Root), false);
      break;
    case Collective::Reduce:
      if (R == *H.Root)
        for (uint64_t B = 0; B < H.Blocks; ++B)
          Expect(R, B, All, Order);
      break;
    }
  }
  return Out;
}

/// The distinct round indices of a plan.
inline uint64_t roundCount(const Plan &P) {
  std::vector<uint32_t> Indices;
  for (const Program &Prog : P.Programs)
    for (const Round &Rd : Prog.Rounds)
      Indices.push_back(Rd.Index);
  std::sort(Indices.begin(), Indices.end());
  return std::unique(Indices.begin(), Indices.end()) - Indices.begin();
}

} // namespace collplan::test

#endif // COLLPLAN_TESTS_ALGORITHMS_PLANSIMULATOR_H
