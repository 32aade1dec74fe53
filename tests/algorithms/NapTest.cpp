//===- NapTest.cpp - NAP and SMP allreduce against the NAP paper ----------===//
//
// The oracles are the counts, partners and worked examples of
// docs/algorithms/nap.md ("Worked examples", "Test oracles"), after Bienz,
// Olson, Gropp, "Node-aware improvements to allreduce" (§III, §III-A and the
// captions of Figs. 3, 4, 6 and 8), written out here by hand.
// A message is inter-node when the sender's node differs from the peer's.
//
//===----------------------------------------------------------------------===//

#include "CompileHelper.h"
#include "tests/support/PlanChecks.h"

#include "compiler/algorithms/Algorithm.h"
#include "compiler/verify/Verifier.h"

#include "doctest/doctest.h"

#include <map>
#include <set>
#include <tuple>

using namespace collplan;
using namespace collplan::test;

namespace {

struct Message {
  uint32_t From, To, Round;
};

/// Every inter-node send of the plan.
std::vector<Message> interNodeSends(const Plan &P) {
  std::vector<Message> Out;
  const Topology &T = P.Header.Topo;
  for (uint32_t R = 0; R < P.Header.Ranks; ++R)
    for (const Round &Rd : P.Programs[R].Rounds)
      for (const Op &O : Rd.Ops)
        if (O.Kind == OpKind::Send && T.nodeOf(R) != T.nodeOf(O.Peer))
          Out.push_back({R, O.Peer, Rd.Index});
  return Out;
}

/// Inter-node messages per round that has any, in round order.
std::vector<uint64_t> perStep(const std::vector<Message> &Sends) {
  std::map<uint32_t, uint64_t> Count;
  for (const Message &M : Sends)
    ++Count[M.Round];
  std::vector<uint64_t> Out;
  for (auto [Round, N] : Count)
    Out.push_back(N);
  return Out;
}

uint64_t oneWay(const std::vector<Message> &Sends) {
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> All;
  for (const Message &M : Sends)
    All.insert({M.From, M.To, M.Round});
  uint64_t N = 0;
  for (const Message &M : Sends)
    N += !All.count({M.To, M.From, M.Round});
  return N;
}

bool sends(const std::vector<Message> &Sends, uint32_t From, uint32_t To) {
  for (const Message &M : Sends)
    if (M.From == From && M.To == To)
      return true;
  return false;
}

bool exchanges(const std::vector<Message> &Sends, uint32_t A, uint32_t B) {
  return sends(Sends, A, B) && sends(Sends, B, A);
}

/// A tiny symbolic replay independent of the verifier: per rank and buffer,
/// how many times each rank's input is in it, after every round.
class Replay {
public:
  explicit Replay(const Plan &P) : P(P) {
    uint32_t N = P.Header.Ranks;
    State.assign(N, std::vector<std::vector<int>>(P.Header.Buffers.size(),
                                                  std::vector<int>(N, 0)));
    for (uint32_t R = 0; R < N; ++R)
      State[R][DataBuffer][R] = 1;
  }

  /// Runs every round with index <= Last.
  void runThrough(uint32_t Last) {
    for (uint32_t Index : roundsOf(P)) {
      if (Index < Next || Index > Last)
        continue;
      step(Index);
    }
    Next = Last + 1;
  }

  const std::vector<int> &buffer(uint32_t Rank, uint16_t B) const {
    return State[Rank][B];
  }

  /// The sum of node contributions Nodes as counts per rank.
  std::vector<int> nodesSum(std::initializer_list<uint32_t> Nodes) const {
    std::vector<int> Out(P.Header.Ranks, 0);
    for (uint32_t R = 0; R < P.Header.Ranks; ++R)
      for (uint32_t M : Nodes)
        if (P.Header.Topo.nodeOf(R) == M)
          Out[R] = 1;
    return Out;
  }

private:
  void step(uint32_t Index) {
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::vector<int>>> Mail;
    for (uint32_t R = 0; R < P.Header.Ranks; ++R)
      for (const Round &Rd : P.Programs[R].Rounds)
        if (Rd.Index == Index)
          for (const Op &O : Rd.Ops)
            if (O.Kind == OpKind::Send)
              Mail[{R, O.Peer}].push_back(State[R][O.Buffer]);
    for (uint32_t R = 0; R < P.Header.Ranks; ++R)
      for (const Round &Rd : P.Programs[R].Rounds)
        if (Rd.Index == Index) {
          for (const Op &O : Rd.Ops)
            if (O.Kind == OpKind::Recv) {
              auto &Box = Mail[{O.Peer, R}];
              REQUIRE(!Box.empty());
              apply(State[R][O.Buffer], Box.front(), O.Mode);
              Box.erase(Box.begin());
            }
          for (const Op &O : Rd.Ops)
            if (O.Kind == OpKind::Local)
              apply(State[R][O.Buffer], State[R][O.Source], O.Mode);
        }
    for (auto &[Key, Box] : Mail)
      CHECK(Box.empty());
  }

  static void apply(std::vector<int> &To, const std::vector<int> &From,
                    Combine Mode) {
    for (size_t I = 0; I < To.size(); ++I)
      To[I] = Mode == Combine::Replace ? From[I] : To[I] + From[I];
  }

  const Plan &P;
  uint32_t Next = 0;
  std::vector<std::vector<std::vector<int>>> State;
};

uint16_t bufferNamed(const Plan &P, llvm::StringRef Name) {
  for (size_t I = 0; I < P.Header.Buffers.size(); ++I)
    if (P.Header.Buffers[I] == Name)
      return uint16_t(I);
  FAIL("no buffer " << Name.str());
  return 0;
}

} // namespace

TEST_CASE("NAP takes L = ceil(log_ppn n) inter-node steps") {
  struct Case {
    uint32_t N, PerNode, L;
  };
  for (Case C : {Case{1, 4, 0}, Case{1, 16, 0}, Case{3, 4, 1}, Case{4, 4, 1},
                 Case{5, 2, 3}, Case{11, 4, 2}, Case{12, 4, 2}, Case{16, 4, 2},
                 Case{16, 16, 1}, Case{256, 16, 2}}) {
    CAPTURE(C.N);
    CAPTURE(C.PerNode);
    Plan P = compileNodes("nap", C.N, C.PerNode);
    CHECK(perStep(interNodeSends(P)).size() == C.L);
  }
}

TEST_CASE("power-of-ppn node counts: messages per process, node and step") {
  struct Case {
    uint32_t N, PerNode, L;
    uint64_t Nap, Rd, Smp;
  };
  for (Case C :
       {Case{4, 4, 1, 12, 32, 8}, Case{16, 4, 2, 96, 256, 64},
        Case{16, 16, 1, 240, 1024, 64}, Case{256, 16, 2, 7680, 32768, 2048}}) {
    CAPTURE(C.N);
    CAPTURE(C.PerNode);
    Plan P = compileNodes("nap", C.N, C.PerNode);
    std::vector<Message> Sends = interNodeSends(P);
    CHECK(Sends.size() == C.Nap);
    CHECK(Sends.size() == uint64_t(C.L) * C.N * (C.PerNode - 1));
    CHECK(oneWay(Sends) == 0);
    // Process (m, r) sends L - |{i : d_i(m) = r}| messages, at most one per
    // step; every node sends ppn - 1 per step.
    std::map<uint32_t, uint64_t> ByRank;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> ByRankRound, ByNodeRound,
        RecvByRankRound;
    const Topology &T = P.Header.Topo;
    for (const Message &M : Sends) {
      ++ByRank[M.From];
      ++ByRankRound[{M.From, M.Round}];
      ++RecvByRankRound[{M.To, M.Round}];
      ++ByNodeRound[{T.nodeOf(M.From), M.Round}];
    }
    for (auto [K, V] : ByRankRound)
      CHECK(V == 1);
    for (auto [K, V] : RecvByRankRound)
      CHECK(V == 1);
    for (auto [K, V] : ByNodeRound)
      CHECK(V == C.PerNode - 1);
    uint32_t Silent = 0;
    for (uint32_t Q = 0; Q < P.Header.Ranks; ++Q) {
      uint32_t M = Q / C.PerNode, R = Q % C.PerNode, Digits = 0;
      for (uint32_t I = 0, Div = 1; I < C.L; ++I, Div *= C.PerNode)
        Digits += (M / Div) % C.PerNode == R;
      CHECK(ByRank[Q] == C.L - Digits);
      Silent += ByRank[Q] == 0;
    }
    CHECK(Silent == C.PerNode);
    CHECK(ByRank[0] == 0);
    CHECK(interNodeSends(compileNodes("recursive-doubling", C.N, C.PerNode))
              .size() == C.Rd);
    CHECK(interNodeSends(compileNodes("smp", C.N, C.PerNode)).size() == C.Smp);
  }
}

TEST_CASE("4096 x 16 sends 184320 inter-node messages") {
  Plan P = compileNodes("nap", 4096, 16);
  std::vector<Message> Sends = interNodeSends(P);
  CHECK(Sends.size() == 184320);
  CHECK(perStep(Sends).size() == 3);
}

TEST_CASE("n = k ppn^(L-1): the truncated last step of the paper's Fig. 8") {
  {
    Plan P = compileNodes("nap", 12, 4);
    std::vector<Message> Sends = interNodeSends(P);
    CHECK(perStep(Sends) == std::vector<uint64_t>{36, 24});
    CHECK(oneWay(Sends) == 0);
    uint32_t LastRound = 0;
    for (const Message &M : Sends)
      LastRound = std::max(LastRound, M.Round);
    for (const Message &M : Sends)
      if (M.Round == LastRound)
        CHECK(M.From % 4 < 3); // Local rank >= k = 3 is idle.
    CHECK(exchanges(Sends, 9, 24));
    CHECK(exchanges(Sends, 44, 14));
    CHECK(exchanges(Sends, 44, 35));
  }
  {
    Plan P = compileNodes("nap", 3, 4);
    CHECK(interNodeSends(P).size() == 6);
  }
  {
    Plan P = compileNodes("nap", 2048, 16);
    std::vector<Message> Sends = interNodeSends(P);
    CHECK(Sends.size() == 75776);
    CHECK(perStep(Sends) == std::vector<uint64_t>{30720, 30720, 14336});
    CHECK(oneWay(Sends) == 0);
  }
}

TEST_CASE("partners, and message totals when n is not a power of ppn") {
  {
    std::vector<Message> S = interNodeSends(compileNodes("nap", 4, 4));
    CHECK(exchanges(S, 9, 6));
    for (uint32_t Idle : {0u, 5u, 10u, 15u})
      for (const Message &M : S)
        CHECK(M.From != Idle);
  }
  {
    std::vector<Message> S = interNodeSends(compileNodes("nap", 16, 4));
    CHECK(perStep(S) == std::vector<uint64_t>{48, 48});
    CHECK(exchanges(S, 9, 6));
    CHECK(exchanges(S, 9, 24));
    CHECK(exchanges(S, 5, 20));
    CHECK(exchanges(S, 6, 36));
    for (const Message &M : S)
      CHECK((M.From != 0 && M.From != 63));
  }
  {
    std::vector<Message> S = interNodeSends(compileNodes("nap", 11, 4));
    CHECK(perStep(S) == std::vector<uint64_t>{30, 22});
    CHECK(oneWay(S) == 2);
    CHECK((sends(S, 34, 14) && !sends(S, 14, 34)));
    CHECK((sends(S, 38, 30) && !sends(S, 30, 38)));
    CHECK(exchanges(S, 13, 28));
    uint32_t Last = 0;
    for (const Message &M : S)
      Last = std::max(Last, M.Round);
    for (const Message &M : S)
      if (M.Round == Last)
        CHECK((M.From % 4 != 3 && M.From != 42 && M.To != 42));
    CHECK(exchanges(S, 44 - 0, 35) == false); // Node 11 does not exist.
  }
  {
    std::vector<Message> S = interNodeSends(compileNodes("nap", 9, 4));
    CHECK(perStep(S) == std::vector<uint64_t>{18, 18});
    CHECK(oneWay(S) == 0);
  }
  {
    std::vector<Message> S = interNodeSends(compileNodes("nap", 5, 2));
    CHECK(perStep(S) == std::vector<uint64_t>{4, 3, 5});
    CHECK(oneWay(S) == 2);
    CHECK((sends(S, 5, 3) && !sends(S, 3, 5)));
    CHECK((sends(S, 7, 5) && !sends(S, 5, 7)));
    CHECK(exchanges(S, 1, 6));
    CHECK(exchanges(S, 3, 8));
  }
  {
    // The balanced partition: at most 3 sends per process, never 255.
    std::vector<Message> S = interNodeSends(compileNodes("nap", 257, 16));
    std::map<uint32_t, uint64_t> ByRank;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> ByRankRound;
    for (const Message &M : S) {
      ++ByRank[M.From];
      ++ByRankRound[{M.From, M.Round}];
    }
    for (auto [K, V] : ByRank)
      CHECK(V <= 3);
    for (auto [K, V] : ByRankRound)
      CHECK(V == 1);
  }
}

TEST_CASE("inter-node rounds cross nodes, intra-node rounds do not") {
  for (auto [N, PerNode] :
       {std::pair{5u, 2u}, {11u, 4u}, {7u, 3u}, {20u, 6u}}) {
    CAPTURE(N);
    CAPTURE(PerNode);
    Plan P = compileNodes("nap", N, PerNode);
    const Topology &T = P.Header.Topo;
    std::set<uint32_t> InterRounds;
    for (const Message &M : interNodeSends(P))
      InterRounds.insert(M.Round);
    for (uint32_t R = 0; R < P.Header.Ranks; ++R)
      for (const Round &Rd : P.Programs[R].Rounds)
        for (const Op &O : Rd.Ops)
          if (O.Kind != OpKind::Local)
            CHECK((T.nodeOf(R) != T.nodeOf(O.Peer)) ==
                  bool(InterRounds.count(Rd.Index)));
  }
}

TEST_CASE("4 x 4 takes NAP 5, SMP 6, RD 4 rounds") {
  CHECK(roundsOf(compileNodes("nap", 4, 4)).size() == 5);
  CHECK(roundsOf(compileNodes("smp", 4, 4)).size() == 6);
  CHECK(roundsOf(compileNodes("recursive-doubling", 4, 4)).size() == 4);
  // (L + 1) log2 ppn + L for power-of-two ppn.
  CHECK(roundsOf(compileNodes("nap", 16, 4)).size() == 3 * 2 + 2);
  CHECK(roundsOf(compileNodes("nap", 256, 16)).size() == 3 * 4 + 2);
}

TEST_CASE("4 x 4 step by step, the paper's Fig. 6") {
  // The order as printed; NapIdenticalTest.cpp walks the identical one.
  Plan P = compileNodes("nap", 4, 4, RankMapping::Block,
                        {{"order", "rank-dependent"}});
  // Phase 0: XOR1 then XOR2 on local ranks.
  CHECK(opsAt(P, 0, 0).front().Peer == 1);
  CHECK(opsAt(P, 0, 1).front().Peer == 2);
  CHECK(opsAt(P, 5, 0).front().Peer == 4);
  CHECK(opsAt(P, 5, 1).front().Peer == 7);
  std::vector<Message> S = interNodeSends(P);
  for (auto [A, B] : {std::pair{1u, 4u},
                      {2u, 8u},
                      {3u, 12u},
                      {6u, 9u},
                      {7u, 13u},
                      {11u, 14u}})
    CHECK(exchanges(S, A, B));
  Replay Run(P);
  Run.runThrough(1);
  for (uint32_t M = 0; M < 4; ++M)
    for (uint32_t R = 0; R < 4; ++R)
      CHECK(Run.buffer(M * 4 + R, DataBuffer) == Run.nodesSum({M}));
  uint16_t T = bufferNamed(P, "received");
  Run.runThrough(3); // Inter step, then XOR1 of what was received.
  CHECK(Run.buffer(0, T) == Run.nodesSum({1}));
  CHECK(Run.buffer(2, T) == Run.nodesSum({2, 3}));
  CHECK(Run.buffer(5, T) == Run.nodesSum({0}));
  CHECK(Run.buffer(10, T) == Run.nodesSum({3}));
  CHECK(Run.buffer(14, T) == Run.nodesSum({2}));
  CHECK(Run.buffer(13, T) == Run.nodesSum({0, 1}));
  Run.runThrough(4);
  for (uint32_t Q = 0; Q < 16; ++Q) {
    uint32_t M = Q / 4;
    std::vector<int> Others = Run.nodesSum({0, 1, 2, 3});
    for (uint32_t R = 0; R < 4; ++R)
      Others[M * 4 + R] = 0;
    CHECK(Run.buffer(Q, T) == Others);
    CHECK(Run.buffer(Q, DataBuffer) == Run.nodesSum({0, 1, 2, 3}));
  }
  // Ranks holding nothing send nothing: P0 only receives in XOR1.
  llvm::ArrayRef<Op> P0Xor1 = opsAt(P, 0, 3);
  for (const Op &O : P0Xor1)
    CHECK(O.Kind != OpKind::Send);
}

TEST_CASE("5 x 2 step by step, a balanced partition over three steps") {
  Plan P = compileNodes("nap", 5, 2);
  // One intra round, then per step one inter-node round and one intra.
  std::vector<Message> S = interNodeSends(P);
  auto At = [&](uint32_t Round) {
    std::vector<Message> Out;
    for (const Message &M : S)
      if (M.Round == Round)
        Out.push_back(M);
    return Out;
  };
  std::vector<Message> Step0 = At(1), Step1 = At(3), Step2 = At(5);
  CHECK(exchanges(Step0, 1, 2));
  CHECK(exchanges(Step0, 7, 8));
  CHECK(exchanges(Step1, 1, 4));
  CHECK((sends(Step1, 5, 3) && !sends(Step1, 3, 5)));
  CHECK(exchanges(Step2, 1, 6));
  CHECK(exchanges(Step2, 3, 8));
  CHECK((sends(Step2, 7, 5) && !sends(Step2, 5, 7)));
  for (const Message &M : S)
    CHECK((M.From != 0 && M.From != 9 && M.To != 0 && M.To != 9));
  Replay Run(P);
  Run.runThrough(2);
  for (uint32_t Q = 0; Q < 10; ++Q)
    CHECK(Run.buffer(Q, DataBuffer) == (Q < 4   ? Run.nodesSum({0, 1})
                                        : Q < 6 ? Run.nodesSum({2})
                                                : Run.nodesSum({3, 4})));
  Run.runThrough(4);
  for (uint32_t Q = 0; Q < 10; ++Q)
    CHECK(Run.buffer(Q, DataBuffer) ==
          (Q < 6 ? Run.nodesSum({0, 1, 2}) : Run.nodesSum({3, 4})));
  Run.runThrough(6);
  for (uint32_t Q = 0; Q < 10; ++Q)
    CHECK(Run.buffer(Q, DataBuffer) == Run.nodesSum({0, 1, 2, 3, 4}));
}

TEST_CASE("block and round-robin mappings give one node-level pattern") {
  for (auto [N, PerNode] : {std::pair{4u, 4u}, {5u, 2u}, {11u, 4u}, {7u, 3u}}) {
    CAPTURE(N);
    CAPTURE(PerNode);
    using Coord = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                             uint8_t, uint16_t>;
    std::multiset<Coord> Pattern[2];
    for (RankMapping M : {RankMapping::Block, RankMapping::RoundRobin}) {
      Plan P = compileNodes("nap", N, PerNode, M);
      test::expectVerified(P);
      const Topology &T = P.Header.Topo;
      for (uint32_t R = 0; R < P.Header.Ranks; ++R)
        for (const Round &Rd : P.Programs[R].Rounds)
          for (const Op &O : Rd.Ops) {
            bool Local = O.Kind == OpKind::Local;
            Pattern[M == RankMapping::RoundRobin].insert(
                {T.nodeOf(R), T.localRankOf(R), Local ? 0 : T.nodeOf(O.Peer),
                 Local ? 0 : T.localRankOf(O.Peer), Rd.Index, uint8_t(O.Kind),
                 O.Buffer});
          }
      std::vector<Message> S = interNodeSends(P);
      std::set<uint32_t> InterRounds;
      for (const Message &Msg : S) {
        CHECK(T.nodeOf(Msg.From) != T.nodeOf(Msg.To));
        InterRounds.insert(Msg.Round);
      }
      CHECK(InterRounds.size() == (N == 4 ? 1u : N == 5 ? 3u : 2u));
    }
    CHECK(Pattern[0] == Pattern[1]);
  }
}

TEST_CASE("one node, one rank per node, ppn not a power of two") {
  Plan One = compileNodes("nap", 1, 6);
  test::expectVerified(One);
  CHECK(interNodeSends(One).empty());
  // ppn = 1: recursive doubling's programs.
  for (uint32_t N : {1u, 5u, 8u, 12u}) {
    Plan Nap = compileNodes("nap", N, 1);
    Plan Rd = compileNodes("recursive-doubling", N, 1);
    REQUIRE(Nap.Programs.size() == Rd.Programs.size());
    for (uint32_t R = 0; R < N; ++R) {
      REQUIRE(Nap.Programs[R].Rounds.size() == Rd.Programs[R].Rounds.size());
      for (size_t I = 0; I < Rd.Programs[R].Rounds.size(); ++I) {
        CHECK(Nap.Programs[R].Rounds[I].Index ==
              Rd.Programs[R].Rounds[I].Index);
        CHECK(Nap.Programs[R].Rounds[I].Ops == Rd.Programs[R].Rounds[I].Ops);
      }
    }
    const Algorithm *A = findAlgorithm("nap");
    CompileRequest Req;
    Req.Topo = Topology::flat(N);
    CHECK(A->explain(Req, Nap.Header).find("recursive doubling") !=
          std::string::npos);
  }
  for (uint32_t PerNode : {3u, 6u, 12u})
    test::expectVerified(compileNodes("nap", 7, PerNode));
}

TEST_CASE("smp: only leaders talk across nodes, any inter algorithm") {
  Plan P = compileNodes("smp", 4, 4);
  for (const Message &M : interNodeSends(P))
    CHECK((M.From % 4 == 0 && M.To % 4 == 0));
  test::expectVerified(P);
  for (const char *Inter : {"ring", "recursive-doubling", "rabenseifner",
                            "permutation", "circulant", "nap"}) {
    CAPTURE(Inter);
    Plan Q = compileNodes("smp", 5, 3, RankMapping::Block, {{"inter", Inter}});
    test::expectVerified(Q);
    CHECK(Q.Header.Params.at("inter") == Inter);
  }
  // The composition works on the inter plan's blocks: Rabenseifner on 8
  // leaders splits the vector into 8, and the one-block binomial reduce and
  // broadcast move all 8; each stage's scratch buffers keep their own names.
  Plan R = compileNodes("smp", 8, 2, RankMapping::Block,
                        {{"inter", "rabenseifner"}});
  test::expectVerified(R);
  CHECK(R.Header.Blocks == 8);
  CHECK(R.Header.Buffers == std::vector<std::string>{"data", "inter.scratch"});
  CHECK(opsAt(R, 1, 0).front().Blocks == BlockSet::range(0, 8));
  // An unknown or unsuitable part is refused with the parameter's name.
  const Algorithm *A = findAlgorithm("smp");
  CompileRequest Req;
  Req.Topo = Topology::nodes(3, 4);
  Req.Params = {{"inter", "binomial"}};
  llvm::Expected<Plan> Bad = compilePlan(*A, Req);
  REQUIRE(!Bad);
  CHECK(llvm::toString(Bad.takeError()).find("inter") != std::string::npos);
}
