//===- Bruck.cpp - Bruck's alltoall, radix 2 and radix k ------------------===//
//
// docs/algorithms/bruck.md. Bruck, Ho, Kipnis, Upfal and Weathersby,
// "Efficient algorithms for all-to-all communications in multiport
// message-passing systems" (IEEE TPDS 8(11), 1997), §3 (the index
// algorithm), as Thakur, Rabenseifner and Gropp (2005) §3.5 state it for
// radix 2. After a local rotation rank r's slot j holds its data for
// r + j; a block at slot j travels j ranks forward in ceil(log_k P) phases,
// one base-k digit of j per phase: in phase x every rank sends each slot
// whose digit x is v (v = 1 .. k-1) to r + v k^x, and the receiver keeps it
// at the same slot. ports=1 sends the k - 1 messages of a phase in k - 1
// rounds (the one-port model of Bruck et al. §2; radix P is then the
// pairwise exchange's shift form), ports=all in one round (their k-port
// model; radix P is the direct linear exchange). A last rotation puts slot
// j, which came from r - j, where the user expects it.
//
// The plan names blocks by (sender, receiver) (PersonalisedExchange.h), so
// the rotations are no operations: the block at rank r's slot j before
// phase x is the pair (r - (j mod k^x), r - (j mod k^x) + j). Where a rank
// keeps its slots is the executor's business (ARCHITECTURE.md).
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/PersonalisedExchange.h"
#include "plan/ir/Error.h"

#include <algorithm>
#include <string>
#include <vector>

namespace collplan {
namespace {

struct BruckShape {
  uint32_t Radix = 2;
  bool AllPorts = false;
};

/// The phases of radix K among P ranks: ceil(log_K P).
uint32_t phasesOf(uint32_t P, uint32_t K) {
  uint32_t Phases = 0;
  for (uint64_t Power = 1; Power < P; Power *= K)
    ++Phases;
  return Phases;
}

class BruckAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "bruck"; }
  llvm::StringRef summary() const override {
    return "Bruck's index algorithm (Bruck et al. 1997): ceil(log_k P) rounds "
           "of k-1 messages, radix k; radix P is the direct exchange";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Alltoall,
                                               Collective::Alltoallv};
    return Supported;
  }
  std::vector<ParamInfo> params() const override {
    return {{"radix",
             "k: the base of the digits a block's distance is sent by; k-1 "
             "messages a round, at most P",
             "chosen by the cost model on a torus or one rank per node, "
             "else 1",
             ParamDomain::integerFrom(2)},
            {"ports",
             "1 (one message a round: (k-1) ceil(log_k P) rounds) or all "
             "(a phase's k-1 messages in one round)",
             "chosen by the cost model on a torus or one rank per node, "
             "else 1",
             ParamDomain::oneOf({"1", "all"})}};
  }

  bool rankSymmetric(const PlanHeader &H) const override {
    return personalisedSymmetric(H);
  }

  /// Radix 2 (fewest bytes), 4, 8, ... below P: the cost model weighs
  /// rounds against bytes, which grow as (k - 1)/k log_k P of a row. All
  /// ports (and with them radix P, the direct exchange that Open MPI's
  /// basic_linear and MPICH's scattered alltoall post) on a torus and on
  /// one rank per node: a phase's k - 1 messages overlap their latencies,
  /// and the model makes their bytes share the rank's port (or its torus
  /// links), as SimGrid's flat switch does (docs/evaluation.md). Where
  /// several ranks share a node's NIC the model prices that too, but no
  /// simulation here has checked it (one of the 256-rank direct exchange
  /// took 23 minutes): not offered there, `ports=all` given explicitly
  /// still compiles.
  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override {
    uint32_t P = Request.ranks();
    std::vector<std::string> Ports = {"1"}, Radices;
    if (Request.Topo.kind() == TopologyKind::Torus ||
        Request.Topo.ranksPerNode() == 1)
      Ports.push_back("all");
    if (Request.Params.count("ports"))
      Ports = {Request.Params.at("ports")};
    std::vector<std::map<std::string, std::string>> Out;
    for (const std::string &Port : Ports) {
      Radices.clear();
      if (Request.Params.count("radix"))
        Radices.push_back(Request.Params.at("radix"));
      else
        for (uint64_t K = 2; K < P || (K == 2 && P <= 2); K *= 2)
          Radices.push_back(std::to_string(K));
      if (!Request.Params.count("radix") && Port == "all" && P > 2)
        Radices.push_back(std::to_string(P));
      for (const std::string &K : Radices)
        Out.push_back({{"radix", K}, {"ports", Port}});
    }
    return Out;
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    PlanHeader H = personalisedHeader(*this, Request);
    uint32_t P = H.Ranks;
    llvm::Expected<int64_t> K =
        integerParam(Request.Params, "radix", 2, 2, std::max<int64_t>(P, 2));
    if (!K)
      return K.takeError();
    auto Ports = Request.Params.find("ports");
    BruckShape S{uint32_t(*K),
                 Ports != Request.Params.end() && Ports->second == "all"};
    H.Params["radix"] = std::to_string(S.Radix);
    H.Params["ports"] = S.AllPorts ? "all" : "1";
    setPrepared(H, S);
    return H;
  }

  Program buildRank(const PlanHeader &H, uint32_t Rank) const override {
    const BruckShape &S = preparedAs<BruckShape>(H);
    uint32_t P = H.Ranks, K = S.Radix;
    Program Prog;
    std::vector<uint64_t> Sent, Received;
    uint64_t Power = 1; // k^x
    uint32_t Round = 0;
    for (; Power < P; Power *= K, Round += S.AllPorts) {
      for (uint64_t V = 1; V < K && V * Power < P; ++V, Round += !S.AllPorts) {
        uint32_t Hop = uint32_t(V * Power);
        uint32_t To = (Rank + Hop) % P, From = (Rank + P - Hop) % P;
        Sent.clear();
        Received.clear();
        // Slots j < P whose digit x is V: j = q k^(x+1) + V k^x + t.
        for (uint64_t Base = V * Power; Base < P; Base += Power * K)
          for (uint64_t J = Base; J < std::min<uint64_t>(Base + Power, P);
               ++J) {
            uint64_t Low = J % Power; // The distance travelled so far.
            uint32_t Mine = uint32_t((Rank + P - Low) % P);
            uint32_t Theirs = uint32_t((From + P - Low) % P);
            Sent.push_back(pairBlock(P, Mine, uint32_t((Mine + J) % P)));
            Received.push_back(
                pairBlock(P, Theirs, uint32_t((Theirs + J) % P)));
          }
        Prog.add(Round, Op::send(To, blockSetOf(Sent)));
        Prog.add(Round, Op::recv(From, blockSetOf(Received), Combine::Replace));
      }
    }
    return Prog;
  }

  std::string explain(const CompileRequest &,
                      const PlanHeader &H) const override {
    const BruckShape &S = preparedAs<BruckShape>(H);
    uint32_t K = S.Radix;
    uint64_t Messages = std::min<uint64_t>(K - 1, H.Ranks - 1);
    return "radix " + std::to_string(K) + ", " +
           std::to_string(phasesOf(H.Ranks, K)) + " phases of up to " +
           std::to_string(Messages) + " messages per rank, " +
           (S.AllPorts ? "each phase one round" : "one message a round");
  }
};

} // namespace

const Algorithm &bruckAlgorithm() {
  static const BruckAlgorithm Instance;
  return Instance;
}

} // namespace collplan
