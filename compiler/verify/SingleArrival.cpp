//===- SingleArrival.cpp - A personalised block reaches its rank once -----===//

#include "compiler/verify/SingleArrival.h"

#include "llvm/ADT/BitVector.h"

#include <string>

namespace collplan {
namespace verify {

void checkSingleArrival(const Plan &P, size_t MaxErrors,
                        std::vector<Diagnostic> &Errors) {
  const PlanHeader &H = P.Header;
  if (!isPersonalised(H.Kind))
    return;
  uint64_t PerPair = H.pairBlocks(), Ranks = H.Ranks;
  if (PerPair == 0)
    return;
  // Per rank, the blocks addressed to it by sender and position in the
  // pair's run: P * PerPair bits, reused rank after rank.
  llvm::BitVector Arrived(Ranks * PerPair);
  for (uint32_t R = 0; R < H.Ranks && Errors.size() < MaxErrors; ++R) {
    Arrived.reset();
    for (const Round &Rd : P.Programs[R].Rounds)
      for (size_t I = 0; I < Rd.Ops.size(); ++I) {
        const Op &O = Rd.Ops[I];
        if (O.Kind != OpKind::Recv)
          continue;
        for (const BlockRange &BR : O.Blocks.ranges()) {
          // The pairs the range touches that are addressed to R: q with
          // q mod P == R, stepping P.
          uint64_t FirstPair = BR.Begin / PerPair;
          uint64_t Q = FirstPair + (R + Ranks - FirstPair % Ranks) % Ranks;
          for (; Q * PerPair < BR.End; Q += Ranks) {
            uint64_t Lo = std::max(BR.Begin, Q * PerPair);
            uint64_t Hi = std::min(BR.End, (Q + 1) * PerPair);
            for (uint64_t B = Lo; B < Hi; ++B) {
              uint64_t Bit = Q / Ranks * PerPair + B % PerPair;
              if (!Arrived.test(Bit)) {
                Arrived.set(Bit);
                continue;
              }
              Errors.push_back({{R, Rd.Index, int64_t(I)},
                                "receives block " + std::to_string(B) +
                                    " (rank " + std::to_string(Q / Ranks) +
                                    "'s for rank " + std::to_string(R) +
                                    ") a second time: every block of an " +
                                    collectiveName(H.Kind).str() +
                                    " arrives at its rank exactly once"});
              if (Errors.size() >= MaxErrors)
                return;
            }
          }
        }
      }
  }
}

} // namespace verify
} // namespace collplan
