//===- PermutationSimulator.h - Brute-force plan execution for tests -*- C++
//-*-===//
//
// An independent oracle for the permutation tests: executes a plan on exact
// contribution sets (one bit per rank) following the round semantics at the
// top of plan/ir/Plan.h, and lets a test look at the state after every
// round. Written for the tests only; it shares no code with the verifier or
// the algorithm.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_PERMUTATIONSIMULATOR_H
#define COLLPLAN_TESTS_PERMUTATIONSIMULATOR_H

#include "plan/ir/Plan.h"

#include "llvm/ADT/BitVector.h"

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace collplan::testing {

class ContributionSim {
public:
  explicit ContributionSim(const Plan &Pl)
      : Pl(Pl), P(Pl.Header.Ranks), B(Pl.Header.Blocks),
        NB(Pl.Header.Buffers.size()), Sets(size_t(P) * NB * B),
        Defined(size_t(P) * NB * B, false) {
    bool Gather = Pl.Header.Kind == Collective::Allgather;
    for (uint32_t R = 0; R < P; ++R)
      for (uint64_t Blk = 0; Blk < B; ++Blk) {
        size_t I = at(R, DataBuffer, Blk);
        Sets[I].resize(P);
        if (Gather && Pl.Header.ownerOf(Blk) != R)
          continue;
        Sets[I].set(R);
        Defined[I] = true;
      }
    for (auto &S : Sets)
      S.resize(P);
  }

  /// Runs every round; After(RoundIndex) is called once each round is done.
  /// Returns an empty string or the first broken rule.
  std::string run(std::function<void(uint32_t)> After = {}) {
    std::map<uint32_t, std::vector<std::pair<uint32_t, const Round *>>> ByIdx;
    for (uint32_t R = 0; R < P; ++R)
      for (const Round &Rd : Pl.Programs[R].Rounds)
        ByIdx[Rd.Index].push_back({R, &Rd});
    for (auto &[Idx, Parts] : ByIdx) {
      std::map<std::pair<uint32_t, uint32_t>, std::deque<Message>> Queues;
      for (auto &[R, Rd] : Parts) {
        for (const Op &O : Rd->Ops) {
          if (O.Kind != OpKind::Send)
            continue;
          Message M{O.Blocks, {}};
          std::string Err;
          O.Blocks.forEachBlock([&](uint64_t Blk) {
            if (!Defined[at(R, O.Buffer, Blk)])
              Err = where(R, Idx) + "sends undefined block " +
                    std::to_string(Blk);
            M.Data.push_back(Sets[at(R, O.Buffer, Blk)]);
          });
          if (!Err.empty())
            return Err;
          Queues[{R, O.Peer}].push_back(std::move(M));
        }
        // Receive destinations must not overlap each other or sources.
        for (size_t I = 0; I < Rd->Ops.size(); ++I)
          for (size_t K = 0; K < I; ++K) {
            const Op &A = Rd->Ops[I], &C = Rd->Ops[K];
            bool AIn = A.Kind == OpKind::Recv, CIn = C.Kind == OpKind::Recv;
            if ((AIn || CIn) && A.Kind != OpKind::Local &&
                C.Kind != OpKind::Local && A.Buffer == C.Buffer &&
                A.Blocks.overlaps(C.Blocks))
              return where(R, Idx) + "receive overlaps another op's blocks";
          }
      }
      for (auto &[R, Rd] : Parts)
        for (const Op &O : Rd->Ops) {
          if (O.Kind != OpKind::Recv)
            continue;
          auto &Q = Queues[{O.Peer, R}];
          if (Q.empty())
            return where(R, Idx) + "receive without a send";
          Message M = std::move(Q.front());
          Q.pop_front();
          if (M.Blocks != O.Blocks)
            return where(R, Idx) + "blocks differ from the matching send";
          size_t K = 0;
          std::string Err;
          O.Blocks.forEachBlock([&](uint64_t Blk) {
            std::string E = apply(R, O.Buffer, Blk, M.Data[K++], O.Mode);
            if (Err.empty() && !E.empty())
              Err = where(R, Idx) + E;
          });
          if (!Err.empty())
            return Err;
        }
      for (auto &[Key, Q] : Queues)
        if (!Q.empty())
          return where(Key.first, Idx) + "send without a receive";
      for (auto &[R, Rd] : Parts)
        for (const Op &O : Rd->Ops) {
          if (O.Kind != OpKind::Local)
            continue;
          std::string Err;
          O.Blocks.forEachBlock([&](uint64_t Blk) {
            size_t S = at(R, O.Source, Blk);
            std::string E = !Defined[S]
                                ? "local op reads an undefined block"
                                : apply(R, O.Buffer, Blk, Sets[S], O.Mode);
            if (Err.empty() && !E.empty())
              Err = where(R, Idx) + E;
          });
          if (!Err.empty())
            return Err;
        }
      if (After)
        After(Idx);
    }
    return "";
  }

  /// The contribution set of (rank, buffer, block); empty when undefined.
  const llvm::BitVector &set(uint32_t R, uint16_t Buf, uint64_t Blk) const {
    return Sets[at(R, Buf, Blk)];
  }
  bool defined(uint32_t R, uint16_t Buf, uint64_t Blk) const {
    return Defined[at(R, Buf, Blk)];
  }

  /// Whether the final state is what the collective promises.
  std::string checkResult() const {
    for (uint32_t R = 0; R < P; ++R)
      for (uint64_t Blk = 0; Blk < B; ++Blk) {
        const llvm::BitVector &S = set(R, DataBuffer, Blk);
        bool Ok = true;
        switch (Pl.Header.Kind) {
        case Collective::Allreduce:
          Ok = S.all();
          break;
        case Collective::ReduceScatter:
          Ok = Pl.Header.ownerOf(Blk) != R || S.all();
          break;
        case Collective::Allgather:
          Ok = S.count() == 1 && S.test(Pl.Header.ownerOf(Blk));
          break;
        default:
          return "collective not handled by the test simulator";
        }
        if (!Ok)
          return "rank " + std::to_string(R) + " block " + std::to_string(Blk) +
                 " holds a wrong result";
      }
    return "";
  }

private:
  /// One send in flight within a round.
  struct Message {
    BlockSet Blocks;
    std::vector<llvm::BitVector> Data;
  };

  size_t at(uint32_t R, uint16_t Buf, uint64_t Blk) const {
    return (size_t(R) * NB + Buf) * B + Blk;
  }
  static std::string where(uint32_t R, uint32_t Idx) {
    return "rank " + std::to_string(R) + ", round " + std::to_string(Idx) +
           ": ";
  }
  std::string apply(uint32_t R, uint16_t Buf, uint64_t Blk,
                    const llvm::BitVector &In, Combine Mode) {
    size_t I = at(R, Buf, Blk);
    if (Mode == Combine::Replace) {
      Sets[I] = In;
      Defined[I] = true;
      return "";
    }
    if (!Defined[I])
      return "reduce into an undefined block " + std::to_string(Blk);
    if (Sets[I].anyCommon(In))
      return "reduce counts a contribution twice in block " +
             std::to_string(Blk);
    Sets[I] |= In;
    return "";
  }

  const Plan &Pl;
  uint32_t P;
  uint64_t B;
  size_t NB;
  std::vector<llvm::BitVector> Sets;
  std::vector<bool> Defined;
};

} // namespace collplan::testing

#endif // COLLPLAN_TESTS_PERMUTATIONSIMULATOR_H
