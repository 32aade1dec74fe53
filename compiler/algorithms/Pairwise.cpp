//===- Pairwise.cpp - Pairwise-exchange alltoall --------------------------===//
//
// docs/algorithms/pairwise.md. Thakur, Rabenseifner and Gropp (2005), §3.5
// (the long-message alltoall): P - 1 rounds, in round k every rank exchanges
// one block with one partner. For a power-of-two P the partner is r XOR k,
// so every round pairs the ranks off; otherwise rank r sends to r + k and
// receives from r - k (mod P), the form Open MPI's "pairwise" and MPICH's
// non-power-of-two exchange use. Each rank sends (P - 1)/P of its row, the
// lower bound, in the most rounds of any alltoall.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/PersonalisedExchange.h"
#include "plan/ir/Error.h"

#include "llvm/Support/MathExtras.h"

namespace collplan {
namespace {

struct PairwiseShape {
  bool Xor = false;
};

class PairwiseAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "pairwise"; }
  llvm::StringRef summary() const override {
    return "pairwise exchange (Thakur et al. 2005): P-1 rounds of one block "
           "each way, XOR partners at powers of two";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Alltoall,
                                               Collective::Alltoallv};
    return Supported;
  }
  std::vector<ParamInfo> params() const override {
    return {{"pairing",
             "xor: partner r XOR k; shift: send to r+k, receive from r-k",
             "xor for a power-of-two P, else shift",
             ParamDomain::oneOf({"xor", "shift"})}};
  }
  std::vector<Restriction> restrictions() const override {
    return {
        {Requirement::PowerOfTwoRanks, "pairing", "xor", "use pairing=shift"}};
  }

  bool rankSymmetric(const PlanHeader &H) const override {
    return personalisedSymmetric(H);
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = personalisedHeader(*this, Request);
    auto It = Request.Params.find("pairing");
    PairwiseShape S;
    S.Xor = It == Request.Params.end() ? llvm::isPowerOf2_32(H.Ranks)
                                       : It->second == "xor";
    H.Params["pairing"] = S.Xor ? "xor" : "shift";
    setPrepared(H, S);
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    const PairwiseShape &S = preparedAs<PairwiseShape>(H);
    Program Prog;
    uint32_t P = H.Ranks;
    for (uint32_t K = 1; K < P; ++K) {
      uint32_t To = S.Xor ? Rank ^ K : (Rank + K) % P;
      uint32_t From = S.Xor ? Rank ^ K : (Rank + P - K) % P;
      Prog.add(K - 1, Op::send(To, BlockSet::single(pairBlock(P, Rank, To))));
      Prog.add(K - 1, Op::recv(From, BlockSet::single(pairBlock(P, From, Rank)),
                               Combine::Replace));
    }
    return Prog;
  }
};

} // namespace

const Algorithm &pairwiseAlgorithm() {
  static const PairwiseAlgorithm Instance;
  return Instance;
}

} // namespace collplan
