//===- ConcreteEvaluator.cpp - Brute-force execution of a plan ------------===//

#include "ConcreteEvaluator.h"

#include <deque>
#include <map>
#include <vector>

namespace collplan {
namespace test {
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

std::vector<uint64_t> blocksOf(const BlockSet &S) {
  std::vector<uint64_t> Out;
  S.forEachBlock([&](uint64_t B) { Out.push_back(B); });
  return Out;
}

class Evaluator {
public:
  Evaluator(const Plan &P, uint64_t Seed)
      : P(P), H(P.Header), Ranks(H.Ranks), Blocks(H.Blocks),
        Buffers(H.Buffers.size()), Seed(Seed) {}

  Evaluation run() {
    if (std::string Why = malformed(); !Why.empty())
      return {true, Why};
    initialise();
    std::map<uint32_t, std::vector<std::pair<uint32_t, const Round *>>> ByRound;
    for (uint32_t R = 0; R < Ranks; ++R)
      for (const Round &Rd : P.Programs[R].Rounds)
        ByRound[Rd.Index].push_back({R, &Rd});
    for (auto &[Index, Active] : ByRound)
      if (std::string Why = runRound(Index, Active); !Why.empty())
        return {true, Why};
    return finalCheck();
  }

private:
  const Plan &P;
  const PlanHeader &H;
  uint64_t Ranks, Blocks, Buffers, Seed;
  std::vector<uint64_t> Mem;

  uint64_t &at(uint64_t Rank, uint64_t Buffer, uint64_t Block) {
    return Mem[(Rank * Buffers + Buffer) * Blocks + Block];
  }
  uint64_t contribution(uint64_t Rank, uint64_t Block) const {
    return randomValue(Seed, 1, Rank * Blocks + Block);
  }
  uint64_t owner(uint64_t Block) const { return Block / (Blocks / Ranks); }

  std::string malformed() const {
    if (Ranks == 0 || Blocks == 0 || P.Programs.size() != Ranks)
      return "malformed header";
    if (hasRoot(H.Kind) && (!H.Root || *H.Root >= Ranks))
      return "bad root";
    if ((H.Kind == Collective::Allgather || H.Kind == Collective::Allgatherv ||
         H.Kind == Collective::ReduceScatter) &&
        Blocks % Ranks)
      return "blocks not divisible by ranks";
    for (uint64_t R = 0; R < Ranks; ++R) {
      int64_t Last = -1;
      for (const Round &Rd : P.Programs[R].Rounds) {
        if (int64_t(Rd.Index) <= Last)
          return "rounds out of order";
        Last = Rd.Index;
        for (const Op &O : Rd.Ops) {
          if (O.Kind != OpKind::Local && (O.Peer >= Ranks || O.Peer == R))
            return "bad peer";
          if (O.Buffer >= Buffers || O.Source >= Buffers)
            return "bad buffer";
          if (O.Kind == OpKind::Local && O.Source == O.Buffer)
            return "local op within one buffer";
          if (O.Blocks.empty() || O.Blocks.upperBound() > Blocks)
            return "bad blocks";
        }
      }
    }
    return "";
  }

  void initialise() {
    Mem.resize(Ranks * Buffers * Blocks);
    for (uint64_t I = 0; I < Mem.size(); ++I)
      Mem[I] = randomValue(Seed, 2, I); // Garbage.
    for (uint64_t R = 0; R < Ranks; ++R)
      for (uint64_t B = 0; B < Blocks; ++B) {
        bool Holds = false;
        switch (H.Kind) {
        case Collective::Allreduce:
        case Collective::ReduceScatter:
        case Collective::Reduce:
          Holds = true;
          break;
        case Collective::Allgather:
        case Collective::Allgatherv:
          Holds = owner(B) == R;
          break;
        case Collective::Broadcast:
          Holds = R == *H.Root;
          break;
        }
        if (Holds)
          at(R, 0, B) = contribution(R, B);
      }
  }

  struct Message {
    BlockSet Blocks;
    std::vector<uint64_t> Values;
  };

  std::string
  runRound(uint32_t Index,
           const std::vector<std::pair<uint32_t, const Round *>> &Active) {
    std::string Where = " in round " + std::to_string(Index);
    // Every send reads the state at the start of the round.
    std::map<std::pair<uint64_t, uint64_t>, std::deque<Message>> InFlight;
    for (auto [R, Rd] : Active) {
      std::vector<char> Mark(Buffers * Blocks, 0);
      for (const Op &O : Rd->Ops)
        if (O.Kind == OpKind::Send) {
          Message M{O.Blocks, {}};
          for (uint64_t B : blocksOf(O.Blocks)) {
            M.Values.push_back(at(R, O.Buffer, B));
            Mark[O.Buffer * Blocks + B] = 1;
          }
          InFlight[{R, O.Peer}].push_back(std::move(M));
        }
      for (const Op &O : Rd->Ops)
        if (O.Kind == OpKind::Recv)
          for (uint64_t B : blocksOf(O.Blocks)) {
            if (Mark[O.Buffer * Blocks + B])
              return "receive overlaps a send or receive" + Where;
            Mark[O.Buffer * Blocks + B] = 2;
          }
    }
    for (auto [R, Rd] : Active)
      for (const Op &O : Rd->Ops) {
        if (O.Kind != OpKind::Recv)
          continue;
        auto &Queue = InFlight[{O.Peer, R}];
        if (Queue.empty())
          return "receive without a send" + Where;
        Message M = std::move(Queue.front());
        Queue.pop_front();
        if (M.Blocks != O.Blocks)
          return "message blocks differ" + Where;
        std::vector<uint64_t> Bs = blocksOf(O.Blocks);
        for (size_t I = 0; I < Bs.size(); ++I) {
          uint64_t &D = at(R, O.Buffer, Bs[I]);
          D = O.Mode == Combine::Reduce ? D + M.Values[I] : M.Values[I];
        }
      }
    for (auto &[Pair, Queue] : InFlight)
      if (!Queue.empty())
        return "send without a receive" + Where;
    for (auto [R, Rd] : Active)
      for (const Op &O : Rd->Ops) {
        if (O.Kind != OpKind::Local)
          continue;
        for (uint64_t B : blocksOf(O.Blocks)) {
          uint64_t &D = at(R, O.Buffer, B);
          uint64_t S = at(R, O.Source, B);
          D = O.Mode == Combine::Reduce ? D + S : S;
        }
      }
    return "";
  }

  Evaluation finalCheck() {
    auto Sum = [&](uint64_t B) {
      uint64_t S = 0;
      for (uint64_t R = 0; R < Ranks; ++R)
        S += contribution(R, B);
      return S;
    };
    for (uint64_t R = 0; R < Ranks; ++R)
      for (uint64_t B = 0; B < Blocks; ++B) {
        bool Checked = true;
        uint64_t Want = 0;
        switch (H.Kind) {
        case Collective::Allreduce:
          Want = Sum(B);
          break;
        case Collective::ReduceScatter:
          Checked = owner(B) == R;
          Want = Sum(B);
          break;
        case Collective::Reduce:
          Checked = R == *H.Root;
          Want = Sum(B);
          break;
        case Collective::Allgather:
        case Collective::Allgatherv:
          Want = contribution(owner(B), B);
          break;
        case Collective::Broadcast:
          Want = contribution(*H.Root, B);
          break;
        }
        if (Checked && at(R, 0, B) != Want)
          return {true, "rank " + std::to_string(R) + " block " +
                            std::to_string(B) + " ends with a wrong value"};
      }
    return {};
  }
};

} // namespace

Evaluation evaluateConcretely(const Plan &P, uint64_t Seed) {
  return Evaluator(P, Seed).run();
}

} // namespace test
} // namespace collplan
