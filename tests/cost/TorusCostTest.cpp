// The torus congestion model: minimal routing, per-link loads, hop counts and
// the deficiencies of Swing, De Sensi et al., NSDI'24, §2.2 and §4. Oracles
// are values worked out by hand (docs/cost-model.md, "Hops and loads of the
// standard patterns", "Deficiencies"; the paper's Table 2, Eqs. 1 and 3),
// never outputs of the model.

#include "tests/support/PlanFactory.h"

#include "MessagePlan.h"
#include "compiler/algorithms/Algorithm.h"
#include "compiler/cost/CostModel.h"
#include "compiler/cost/TorusRouting.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <vector>

using namespace collplan;
using namespace collplan::test;

namespace {

/// Every link of a route with its share, as a map for comparison.
std::map<LinkId, double> routeOf(const TorusRouter &R, uint32_t From,
                                 uint32_t To) {
  std::map<LinkId, double> Out;
  R.route(From, To, [&](LinkId L, double Share) { Out[L] += Share; });
  return Out;
}

/// Pure communication time: alpha = beta = 1, nothing else.
CostParams unitParams() {
  CostParams C;
  C.Alpha = 1;
  C.Beta = 1;
  C.Gamma = 0;
  C.AlphaHop = 0;
  return C;
}

/// Name's allreduce on Topo.
Plan allreduceOn(llvm::StringRef Name, const Topology &Topo) {
  return compileOn(Name, Collective::Allreduce, Topo);
}

/// The rounds that move messages.
std::vector<RoundCost> commRounds(const CostReport &R) {
  std::vector<RoundCost> Out;
  for (const RoundCost &RC : R.Rounds)
    if (RC.InterNodeMessages + RC.IntraNodeMessages)
      Out.push_back(RC);
  return Out;
}

std::vector<uint32_t> hopsOf(const std::vector<RoundCost> &Rounds) {
  std::vector<uint32_t> Out;
  for (const RoundCost &RC : Rounds)
    Out.push_back(RC.Hops);
  return Out;
}

/// Max link load per round in messages: bytes over the round's largest
/// message, as docs/cost-model.md counts them.
std::vector<double> loadsInMessages(const std::vector<RoundCost> &Rounds) {
  std::vector<double> Out;
  for (const RoundCost &RC : Rounds)
    Out.push_back(RC.MaxLinkLoad / RC.MaxMessageBytes);
  return Out;
}

/// Bandwidth-optimal recursive doubling with the torus optimisation of Sack
/// and Gropp that Table 2's Rec.Doub.(B) row assumes (Swing, §2.3.3): step s
/// of the reduce-scatter halves the data (p / 2^(s+1) of p blocks) and works
/// along dimension s mod D at distance 2^floor(s/D); the allgather retraces
/// it. Only sizes matter to the cost model, so the block sets are ranges.
Plan torusRecursiveDoublingB(uint32_t Side, unsigned D) {
  Topology Topo = Topology::torus(llvm::SmallVector<uint32_t, 4>(D, Side), 1);
  uint32_t P = Topo.ranks();
  unsigned L = 0;
  while ((uint32_t(1) << L) < P)
    ++L;
  Plan Pl;
  Pl.Header.Kind = Collective::Allreduce;
  Pl.Header.Ranks = P;
  Pl.Header.Topo = Topo;
  Pl.Header.Blocks = P;
  Pl.Programs.resize(P);
  auto PeerAt = [&](uint32_t R, unsigned S) {
    auto Coords = Topo.coordsOf(R);
    Coords[S % D] ^= uint32_t(1) << (S / D);
    uint32_t Node = 0;
    for (uint32_t C : Coords)
      Node = Node * Side + C;
    return Node;
  };
  for (unsigned K = 0; K < 2 * L; ++K) {
    unsigned S = K < L ? K : 2 * L - 1 - K;
    BlockSet Part = BlockSet::range(0, P >> (S + 1));
    for (uint32_t R = 0; R < P; ++R) {
      Pl.Programs[R].add(K, Op::send(PeerAt(R, S), Part));
      Pl.Programs[R].add(K,
                         Op::recv(PeerAt(R, S), Part,
                                  K < L ? Combine::Reduce : Combine::Replace));
    }
  }
  return Pl;
}

/// docs/cost-model.md: recursive doubling at distance k in a dimension of size
/// d puts k messages on the busiest link, d/4 at k = d/2 (split both ways).
double rdLoad(uint32_t Side, uint32_t Distance) {
  return 2 * Distance == Side ? Side / 4.0 : Distance;
}

/// The communication pattern of Swing-B (docs/algorithms/swing.md, "Idea") on a
/// torus of power-of-two sides with Collectives = 1 (the plain collective
/// c = 0) or 2D concurrent collectives: at reduce-scatter step s collective
/// c's rank talks along its schedule's dimension at signed distance
/// +-rho(sigma) and sends 1/2^(s+1) of its part of the vector; the allgather
/// retraces the steps. Only sizes matter to the cost model, so block sets
/// are ranges of the collective's part.
Plan swingShapePlan(llvm::ArrayRef<uint32_t> Dims, unsigned Collectives) {
  Topology Topo = Topology::torus(Dims, 1);
  unsigned D = Dims.size();
  uint32_t P = Topo.ranks();
  llvm::SmallVector<unsigned, 4> Levels; // log2 of each side
  unsigned L = 0;
  for (uint32_t Side : Dims) {
    unsigned E = 0;
    while ((uint32_t(1) << E) < Side)
      ++E;
    Levels.push_back(E);
    L += E;
  }
  auto Rho = [](unsigned Sigma) {
    int64_t R = 1;
    for (unsigned I = 0; I < Sigma; ++I)
      R = 1 - 2 * R;
    return R;
  };
  // Collective c's schedule: (dimension, sigma) per step.
  auto Schedule = [&](unsigned C) {
    std::vector<std::pair<unsigned, unsigned>> Out;
    llvm::SmallVector<unsigned, 4> Next(D, 0);
    unsigned Dim = C % D;
    for (unsigned S = 0; S < L; ++S) {
      while (Next[Dim] >= Levels[Dim])
        Dim = (Dim + 1) % D;
      Out.push_back({Dim, Next[Dim]++});
      Dim = (Dim + 1) % D;
    }
    return Out;
  };
  Plan Pl;
  Pl.Header.Kind = Collective::Allreduce;
  Pl.Header.Ranks = P;
  Pl.Header.Topo = Topo;
  Pl.Header.Blocks = uint64_t(P) * Collectives;
  Pl.Programs.resize(P);
  std::vector<std::vector<std::pair<unsigned, unsigned>>> Schedules;
  for (unsigned C = 0; C < Collectives; ++C)
    Schedules.push_back(Schedule(C));
  auto PeerOf = [&](uint32_t R, unsigned S, unsigned C) {
    auto [Dim, Sigma] = Schedules[C][S];
    auto A = Topo.coordsOf(R);
    int64_t Dist = Rho(Sigma);
    if (A[Dim] % 2)
      Dist = -Dist;
    if (C >= D)
      Dist = -Dist;
    int64_t Side = Dims[Dim];
    A[Dim] = uint32_t(((A[Dim] + Dist) % Side + Side) % Side);
    uint32_t Node = 0;
    for (unsigned I = 0; I < D; ++I)
      Node = Node * Dims[I] + A[I];
    return Node;
  };
  for (unsigned K = 0; K < 2 * L; ++K) {
    unsigned S = K < L ? K : 2 * L - 1 - K;
    for (uint32_t R = 0; R < P; ++R)
      for (unsigned C = 0; C < Collectives; ++C) {
        BlockSet Part =
            BlockSet::range(uint64_t(C) * P, uint64_t(C) * P + (P >> (S + 1)));
        uint32_t Peer = PeerOf(R, S, C);
        Pl.Programs[R].add(K, Op::send(Peer, Part));
        Pl.Programs[R].add(
            K,
            Op::recv(Peer, Part, K < L ? Combine::Reduce : Combine::Replace));
      }
  }
  return Pl;
}

} // namespace

TEST_CASE("a message at distance d/2 on a ring splits 50/50") {
  Topology Ring = Topology::torus({4}, 1);
  TorusRouter R(Ring);
  CHECK(R.hops(0, 2) == 2);
  std::map<LinkId, double> Expected = {{R.link(0, 0, true), 0.5},
                                       {R.link(1, 0, true), 0.5},
                                       {R.link(0, 0, false), 0.5},
                                       {R.link(3, 0, false), 0.5}};
  CHECK(routeOf(R, 0, 2) == Expected);

  // Alone on its links, it moves at twice the rate of one link.
  Plan P = messagePlan(Ring, {{{0, 2}}});
  CostParams C = unitParams();
  CostReport Rep = evaluateCost(P, 100, C);
  CHECK(Rep.Time == doctest::Approx(1 + 50));
  CHECK(Rep.Rounds[0].MaxLinkLoad == doctest::Approx(50));
  CHECK(Rep.Rounds[0].Hops == 2);
  C.AlphaHop = 0.25;
  CHECK(evaluateCost(P, 100, C).Time == doctest::Approx(1 + 2 * 0.25 + 50));
}

TEST_CASE("minimal routes take the short way round, dimension 0 first") {
  TorusRouter Ring(Topology::torus({8}, 1));
  CHECK(Ring.hops(0, 6) == 2);
  CHECK(routeOf(Ring, 0, 6) ==
        std::map<LinkId, double>{{Ring.link(0, 0, false), 1},
                                 {Ring.link(7, 0, false), 1}});
  CHECK(routeOf(Ring, 6, 1) ==
        std::map<LinkId, double>{{Ring.link(6, 0, true), 1},
                                 {Ring.link(7, 0, true), 1},
                                 {Ring.link(0, 0, true), 1}});

  // 4x4, row-major: node 5 is (1, 1). From (0, 0), dimension 0 first:
  // (0,0) -> (1,0) = node 4, then (1,0) -> (1,1).
  TorusRouter T(Topology::torus({4, 4}, 1));
  CHECK(T.hops(0, 5) == 2);
  CHECK(routeOf(T, 0, 5) == std::map<LinkId, double>{{T.link(0, 0, true), 1},
                                                     {T.link(4, 1, true), 1}});
  // (3,3) -> (1,0): dimension 0 is tied (distance 2 of 4) and splits; both
  // halves meet at (1,3) = node 7, which then takes the wrap link to (1,0).
  CHECK(T.hops(15, 4) == 3);
  CHECK(routeOf(T, 15, 4) ==
        std::map<LinkId, double>{{T.link(15, 0, true), 0.5},
                                 {T.link(3, 0, true), 0.5},
                                 {T.link(15, 0, false), 0.5},
                                 {T.link(11, 0, false), 0.5},
                                 {T.link(7, 1, true), 1}});

  // A deterministic router sends the tied dimension all the + way:
  // (3,3) -> (0,3) -> (1,3), then the wrap link to (1,0).
  TorusRouter Positive(Topology::torus({4, 4}, 1), TorusTies::Positive);
  CHECK(Positive.hops(15, 4) == 3);
  CHECK(routeOf(Positive, 15, 4) ==
        std::map<LinkId, double>{{T.link(15, 0, true), 1},
                                 {T.link(3, 0, true), 1},
                                 {T.link(7, 1, true), 1}});

  // A dimension of size 2 is one cable: one link each way, no split.
  TorusRouter Two(Topology::torus({2, 4}, 1));
  CHECK(routeOf(Two, 0, 4) ==
        std::map<LinkId, double>{{Two.link(0, 0, true), 1}});
  CHECK(routeOf(Two, 4, 0) ==
        std::map<LinkId, double>{{Two.link(4, 0, true), 1}});
}

TEST_CASE("messages sharing a link share its bandwidth") {
  Topology Ring = Topology::torus({8}, 1);
  CostParams C = unitParams();
  // 0 -> 2 and 1 -> 3 both cross link 1 -> 2: it carries 2 x 100 bytes.
  CostReport Shared =
      evaluateCost(messagePlan(Ring, {{{0, 2}, {1, 3}}}), 100, C);
  CHECK(Shared.Time == doctest::Approx(1 + 200));
  CHECK(Shared.Rounds[0].MaxLinkLoad == doctest::Approx(200));
  CHECK(Shared.CongestionDeficiency == doctest::Approx(2));
  // Opposite directions are different links.
  CostReport Opposite =
      evaluateCost(messagePlan(Ring, {{{0, 1}, {1, 0}}}), 100, C);
  CHECK(Opposite.Time == doctest::Approx(1 + 100));
  CHECK(Opposite.CongestionDeficiency == doctest::Approx(1));
  // 0 -> 2 alongside 4 -> 6: disjoint, each alone on its links.
  CostReport Disjoint =
      evaluateCost(messagePlan(Ring, {{{0, 2}, {4, 6}}}), 100, C);
  CHECK(Disjoint.Time == doctest::Approx(1 + 100));
  CHECK(Disjoint.Rounds[0].Hops == 2);
}

TEST_CASE("messages within a node use no link") {
  // torus:4 with 2 ranks per node: ranks 0, 1 on node 0, ranks 2, 3 on 1.
  Topology T = Topology::torus({4}, 2);
  CostParams C = unitParams();
  C.AlphaIntra = 0.5;
  C.BetaIntra = 0.01;
  C.AlphaHop = 3;
  CostReport R = evaluateCost(messagePlan(T, {{{0, 1}}}), 100, C);
  CHECK(R.Time == doctest::Approx(0.5 + 1));
  CHECK(R.Rounds[0].Hops == 0);
  CHECK(R.Rounds[0].MaxLinkLoad == 0);
  CHECK(R.IntraNodeMessages == 1);
  CHECK(R.InterNodeMessages == 0);
  // Two ranks of node 0 sending to node 1 share link 0 -> 1.
  R = evaluateCost(messagePlan(T, {{{0, 2}, {1, 3}}}), 100, C);
  CHECK(R.Time == doctest::Approx(1 + 3 + 200));
  CHECK(R.InterNodeMessages == 2);
  // Round-robin mapping: rank r lives on node r mod 4, so 0 -> 4 stays in
  // node 0 and 1 -> 3 crosses two links each way round (distance 2 of 4
  // splits), 50 bytes on each.
  Topology Cyclic = Topology::torus({4}, 2, RankMapping::RoundRobin);
  R = evaluateCost(messagePlan(Cyclic, {{{0, 4}, {1, 3}}}), 100, C);
  CHECK(R.IntraNodeMessages == 1);
  CHECK(R.Rounds[0].Hops == 2);
  CHECK(R.Time == doctest::Approx(1 + 2 * 3 + 50));
}

TEST_CASE("recursive doubling on a 1-D torus of 16, one collective") {
  // Hops 1, 2, 4, 8 and busiest-link loads 1, 2, 4, 4 messages
  // (distance 8 = d/2 splits both ways), the paper's Fig. 1.
  Plan P = allreduceOn("recursive-doubling", Topology::torus({16}, 1));
  std::vector<RoundCost> Rounds = commRounds(evaluateCost(P, 1 << 20, {}));
  CHECK(hopsOf(Rounds) == std::vector<uint32_t>{1, 2, 4, 8});
  CHECK(loadsInMessages(Rounds) == std::vector<double>{1, 2, 4, 4});
}

TEST_CASE("recursive doubling on 8x8, one collective") {
  // RD hop counts 2^sigma, 8x8 -> 1,1,2,2,4,4 when dimensions
  // alternate. Our recursive doubling XORs rank bits, lowest first, which on
  // a row-major torus finishes dimension 1 before dimension 0: the same
  // distances in the order 1,2,4,1,2,4, with loads 1,2,2 (4 = d/2 splits).
  Plan P = allreduceOn("recursive-doubling", Topology::torus({8, 8}, 1));
  std::vector<RoundCost> Rounds = commRounds(evaluateCost(P, 1 << 20, {}));
  CHECK(hopsOf(Rounds) == std::vector<uint32_t>{1, 2, 4, 1, 2, 4});
  CHECK(loadsInMessages(Rounds) == std::vector<double>{1, 2, 2, 1, 2, 2});
}

TEST_CASE("torus-ordered Rec.Doub.(B) link loads per step") {
  struct Case {
    uint32_t Side;
    unsigned D;
    std::vector<double> Loads; // Reduce-scatter steps, one collective.
  } Cases[] = {{4, 2, {1, 1, 1, 1}},
               {8, 2, {1, 1, 2, 2, 2, 2}},
               {16, 2, {1, 1, 2, 2, 4, 4, 4, 4}},
               {8, 3, {1, 1, 1, 2, 2, 2, 2, 2, 2}}};
  for (const Case &K : Cases) {
    CAPTURE(K.Side);
    CAPTURE(K.D);
    Plan P = torusRecursiveDoublingB(K.Side, K.D);
    std::vector<RoundCost> Rounds =
        commRounds(evaluateCost(P, uint64_t(1) << 24, {}));
    std::vector<double> Loads = loadsInMessages(Rounds);
    REQUIRE(Loads.size() == 2 * K.Loads.size());
    Loads.resize(K.Loads.size());
    CHECK(Loads == K.Loads);
  }
}

TEST_CASE("Rec.Doub.(B) congestion deficiency tends to Table 2's "
          "(2^D-1)/(2^D-2)") {
  // Xi_RD(B) = sum_s load(s) / 2^(s+1) in units of the single
  // port optimum 2n (Psi = 2D). The finite sum uses the loads above; Table 2
  // gives the limits 1.5, 7/6 = 1.1667 and 15/14 = 1.0714.
  struct Case {
    uint32_t Side;
    unsigned D;
    double Limit;
  } Cases[] = {{64, 2, 1.5}, {16, 3, 7.0 / 6}, {8, 4, 15.0 / 14}};
  for (const Case &K : Cases) {
    CAPTURE(K.D);
    Plan P = torusRecursiveDoublingB(K.Side, K.D);
    uint64_t N = uint64_t(1) << 24;
    CostReport R = evaluateCost(P, N, {});
    uint32_t Ranks = P.Header.Ranks;
    unsigned L = 0;
    while ((uint32_t(1) << L) < Ranks)
      ++L;
    double Sum = 0;
    for (unsigned S = 0; S < L; ++S)
      Sum += rdLoad(K.Side, uint32_t(1) << (S / K.D)) / std::ldexp(1.0, S + 1);
    // Psi = 2D (1 - 1/p): 2(1 - 1/p) n bytes on one port against n/D.
    CHECK(R.BandwidthDeficiency ==
          doctest::Approx(2.0 * K.D * (1 - 1.0 / Ranks)));
    // Psi * Xi / 2D is that sum, normalised to 2n.
    CHECK(R.BandwidthDeficiency * R.CongestionDeficiency / (2 * K.D) ==
          doctest::Approx(Sum));
    CHECK(Sum < K.Limit);
    CHECK(Sum > 0.97 * K.Limit);
    CHECK(R.LatencyDeficiency == doctest::Approx(2));
  }
}

TEST_CASE("the rabenseifner family on a row-major torus is not Table 2's "
          "torus-ordered RD(B)") {
  // Rabenseifner pairs rank bits lowest first: on 8x8 that is distances
  // 1, 2, 4 along dimension 1, then 1, 2, 4 along dimension 0, on n/2 ..
  // n/64 bytes. By the rule above (load = distance, d/4 at d/2) the busiest
  // links carry 1, 2, 2, 1, 2, 2 messages, so C = 2n (1/2 + 2/4 + 2/8 + 1/16
  // + 2/32 + 2/64) = 2n * 45/32 against W = 2n * 63/64: Xi = 10/7, where the
  // interleaved order of Sack and Gropp gets 1.21875 / (63/64) = 26/21.
  CostReport R = evaluateCost(
      allreduceOn("rabenseifner", Topology::torus({8, 8}, 1)), 1 << 20, {});
  CHECK(loadsInMessages(commRounds(R)) ==
        std::vector<double>{1, 2, 2, 1, 2, 2, 2, 2, 1, 2, 2, 1});
  CHECK(R.CongestionDeficiency == doctest::Approx(10.0 / 7));
  CHECK(evaluateCost(torusRecursiveDoublingB(8, 2), 1 << 20, {})
            .CongestionDeficiency == doctest::Approx(26.0 / 21));
}

TEST_CASE("ring allreduce has no congestion (Table 2: Xi = 1)") {
  for (Topology T : {Topology::torus({16}, 1), Topology::torus({4, 4}, 1),
                     Topology::torus({4, 2, 2}, 1)}) {
    CAPTURE(T.str());
    Plan P = allreduceOn("ring", T);
    CostReport R = evaluateCost(P, 16 << 10, {});
    CHECK(R.CongestionDeficiency == doctest::Approx(1));
    uint32_t Ranks = P.Header.Ranks;
    // Lambda = 2(p-1)/log2 p.
    CHECK(R.LatencyDeficiency ==
          doctest::Approx(2.0 * (Ranks - 1) / std::log2(Ranks)));
  }
}

TEST_CASE("with alpha_hop = gamma = 0 the per-step model is Eq. 1") {
  // Eq. 1: T = log2 p alpha Lambda + (n/D) beta Psi Xi.
  CostParams C;
  C.Alpha = 2e-6;
  C.Beta = 1e-10;
  C.Gamma = 0;
  C.AlphaHop = 0;
  uint64_t N = 1 << 20;
  auto Eq1 = [&](const CostReport &R, uint32_t P, unsigned D) {
    return std::log2(double(P)) * C.Alpha * R.LatencyDeficiency +
           double(N) / D * C.Beta * R.BandwidthDeficiency *
               R.CongestionDeficiency;
  };
  {
    // Ring on a 1-D torus of 16 (one port): 2(p-1) alpha + 2n(p-1)/p beta.
    CostReport R =
        evaluateCost(allreduceOn("ring", Topology::torus({16}, 1)), N, C);
    CHECK(R.Time == doctest::Approx(Eq1(R, 16, 1)));
    CHECK(R.Time ==
          doctest::Approx(2 * 15 * C.Alpha + 2.0 * N * 15 / 16 * C.Beta));
  }
  {
    // RD(B) on 8x8: 2 log2 p alpha + 2n (p-1)/p beta Xi_RD.
    Plan P = torusRecursiveDoublingB(8, 2);
    CostReport R = evaluateCost(P, N, C);
    CHECK(R.Time == doctest::Approx(Eq1(R, 64, 2)));
    CHECK(R.Time ==
          doctest::Approx(2 * 6 * C.Alpha +
                          2.0 * N * 63 / 64 * C.Beta * R.CongestionDeficiency));
    // Loads 1,1,2,2,2,2 on n/2 .. n/64, twice: C = 2n * 1.21875.
    CHECK(R.Time == doctest::Approx(12 * C.Alpha + 2.0 * N * 1.21875 * C.Beta));
  }
  {
    // Recursive doubling (latency-optimal) on 1-D 16: n per step, loads
    // 1,2,4,4 messages: 4 alpha + 11 n beta.
    CostReport R = evaluateCost(
        allreduceOn("recursive-doubling", Topology::torus({16}, 1)), N, C);
    CHECK(R.Time == doctest::Approx(Eq1(R, 16, 1)));
    CHECK(R.Time == doctest::Approx(4 * C.Alpha + 11.0 * N * C.Beta));
  }
}

TEST_CASE("flat and nodes topologies ignore the hop latency") {
  CostParams C = unitParams();
  C.AlphaHop = 5;
  Plan P = messagePlan(Topology::flat(4), {{{0, 2}, {1, 3}}});
  CostReport R = evaluateCost(P, 100, C);
  CHECK(R.Time == doctest::Approx(101));
  CHECK(R.Rounds[0].Hops == 0);
  CHECK(R.CongestionDeficiency == 1);
}

TEST_CASE("Swing's pattern, hops and busiest links") {
  // Hand-built from the peer rule (docs/algorithms/swing.md), independent of
  // the swing family: reduce-scatter steps only (the allgather retraces them).
  struct Case {
    std::vector<uint32_t> Dims;
    bool All; // all 2D collectives, or the plain c = 0 alone
    std::vector<uint32_t> Hops;
    std::vector<double> Loads;
  } Cases[] = {
      {{16}, false, {1, 1, 3, 5}, {1, 1, 2, 3}}, // the paper's Fig. 1
      {{16}, true, {1, 1, 3, 5}, {1, 1, 3, 5}},
      {{64}, false, {1, 1, 3, 5, 11, 21}, {1, 1, 2, 3, 6, 11}},
      {{4, 4}, true, {1, 1, 1, 1}, {1, 1, 1, 1}},
      {{8, 8}, false, {1, 1, 1, 1, 3, 3}, {1, 1, 1, 1, 2, 2}},
      {{8, 8}, true, {1, 1, 1, 1, 3, 3}, {1, 1, 1, 1, 3, 3}},
      {{16, 16}, false, {1, 1, 1, 1, 3, 3, 5, 5}, {1, 1, 1, 1, 2, 2, 3, 3}},
      {{64, 64},
       true,
       {1, 1, 1, 1, 3, 3, 5, 5, 11, 11, 21, 21},
       {1, 1, 1, 1, 3, 3, 5, 5, 11, 11, 21, 21}},
      {{8, 8, 8},
       false,
       {1, 1, 1, 1, 1, 1, 3, 3, 3},
       {1, 1, 1, 1, 1, 1, 2, 2, 2}},
  };
  for (const Case &K : Cases) {
    CAPTURE(Topology::torus(K.Dims, 1).str());
    CAPTURE(K.All);
    Plan P = swingShapePlan(K.Dims, K.All ? 2 * K.Dims.size() : 1);
    std::vector<RoundCost> Rounds =
        commRounds(evaluateCost(P, uint64_t(1) << 26, {}));
    REQUIRE(Rounds.size() == 2 * K.Hops.size());
    Rounds.resize(K.Hops.size());
    CHECK(hopsOf(Rounds) == K.Hops);
    CHECK(loadsInMessages(Rounds) == K.Loads);
  }
}

TEST_CASE("hand-built Swing-B: congestion deficiency and Eq. 1") {
  // Raw sum of delta(sigma(s))/2^(s+1) (= Psi * Xi here) and the same over
  // 1 - 1/p (= Xi), worked out by hand (docs/cost-model.md). Square tori
  // only: on
  // 64x16, 128x8 and 256x4 the per-collective sums (1.1787, 1.2432, 1.4443)
  // treat each collective alone, while the multi-port schedule piles two
  // collectives onto the same links once the short dimension is exhausted
  // (docs/cost-model.md, "Deficiencies"), which the link-load model counts:
  // 1.2207, 1.4082, 1.9512 (Eq. 3, the test on rectangular tori).
  struct Case {
    std::vector<uint32_t> Dims;
    double Raw, Normalised;
  } Cases[] = {{{8, 8}, 1.0781, 1.0952},      {{16, 16}, 1.1367, 1.1412},
               {{64, 64}, 1.1843, 1.1846},    {{128, 128}, 1.1922, 1.1923},
               {{8, 8, 8}, 1.0254, 1.0274},   {{16, 16, 16}, 1.0339, 1.0342},
               {{8, 8, 8, 8}, 1.0071, 1.0073}};
  CostParams C;
  C.AlphaHop = 0;
  C.Gamma = 0;
  for (const Case &K : Cases) {
    CAPTURE(Topology::torus(K.Dims, 1).str());
    unsigned D = K.Dims.size();
    uint64_t N = uint64_t(1) << 26;
    Plan P = swingShapePlan(K.Dims, 2 * D);
    CostReport R = evaluateCost(P, N, C);
    CHECK(R.BandwidthDeficiency * R.CongestionDeficiency ==
          doctest::Approx(K.Raw).epsilon(1e-4));
    CHECK(R.CongestionDeficiency ==
          doctest::Approx(K.Normalised).epsilon(1e-4));
    CHECK(R.LatencyDeficiency == doctest::Approx(2));
    // Eq. 1: T = 2 log2 p alpha + (n/D) beta Xi_raw.
    double Log2P = std::log2(double(P.Header.Ranks));
    CHECK(R.Time ==
          doctest::Approx(2 * Log2P * C.Alpha + double(N) / D * C.Beta * K.Raw)
              .epsilon(1e-4));
  }
}

// Plans of the registered swing family, priced by the model.
namespace {
std::optional<Plan> compileSwing(const Topology &T,
                                 std::map<std::string, std::string> Params) {
  CompileRequest Req;
  Req.Kind = Collective::Allreduce;
  Req.Topo = T;
  Req.Params = std::move(Params);
  const Algorithm *Swing = findAlgorithm("swing");
  REQUIRE(Swing != nullptr);
  llvm::Expected<Plan> P = compilePlan(*Swing, Req);
  if (!P) {
    FAIL_CHECK("swing did not compile: " << llvm::toString(P.takeError()));
    return std::nullopt;
  }
  return std::move(*P);
}
} // namespace

TEST_CASE("Swing on a 1-D torus of 16, one collective") {
  std::optional<Plan> P = compileSwing(
      Topology::torus({16}, 1), {{"variant", "bandwidth"}, {"ports", "1"}});
  if (!P)
    return;
  std::vector<RoundCost> Rounds = commRounds(evaluateCost(*P, 1 << 20, {}));
  REQUIRE(Rounds.size() == 8);
  Rounds.resize(4); // The reduce-scatter.
  // Hops delta(s) = 1, 1, 3, 5; busiest links 1, 1, 2, 3.
  CHECK(hopsOf(Rounds) == std::vector<uint32_t>{1, 1, 3, 5});
  CHECK(loadsInMessages(Rounds) == std::vector<double>{1, 1, 2, 3});
}

TEST_CASE("Swing-B with all 2D collectives") {
  // Every message of reduce-scatter step s crosses
  // delta(floor(s/D)) links, and with all 2D collectives the busiest link
  // carries that many messages.
  struct Case {
    std::vector<uint32_t> Dims;
    std::vector<uint32_t> Delta;
  } Cases[] = {{{8, 8}, {1, 1, 1, 1, 3, 3}},
               {{64, 64}, {1, 1, 1, 1, 3, 3, 5, 5, 11, 11, 21, 21}},
               {{16, 16, 16}, {1, 1, 1, 1, 1, 1, 3, 3, 3, 5, 5, 5}}};
  for (const Case &K : Cases) {
    Topology T = Topology::torus(K.Dims, 1);
    CAPTURE(T.str());
    std::optional<Plan> P =
        compileSwing(T, {{"variant", "bandwidth"}, {"ports", "all"}});
    if (!P)
      return;
    // Equal blocks (a multiple of the block count) keep every message of a
    // step the same size, so loads are whole numbers of messages.
    std::vector<RoundCost> Rounds =
        commRounds(evaluateCost(*P, P->Header.Blocks * 256, {}));
    REQUIRE(Rounds.size() == 2 * K.Delta.size());
    Rounds.resize(K.Delta.size());
    CHECK(hopsOf(Rounds) == K.Delta);
    CHECK(loadsInMessages(Rounds) ==
          std::vector<double>(K.Delta.begin(), K.Delta.end()));
  }
}

TEST_CASE("Eq. 3 on rectangular tori d_min^D x d_max, in Table 2's units") {
  // Eq. 3 (the paper's §4.2): once the short dimensions are exhausted, Swing
  // runs as on a 1-D torus of d_max, on n / (2 d_min^D) of data per port:
  //   Xi_Q = 1/(2 d_min^D) sum_{s=log2 d_min}^{log2 d_max - 1}
  //            (2^(s+1) - (-1)^(s+1)) / (3 * 2^(s+1 - log2 d_min)).
  // That sum counts bytes in units of n for one phase; Table 2's Xi counts
  // both phases in units of n / D, so the term enters it times 2D. With
  // the square torus d_min^D's own steps, sum_{s < D log2 d_min}
  // delta(floor(s/D)) / 2^(s+1), the prediction for the whole plan is
  //   Xi_raw = square part + 2 D Xi_Q,
  // which the generated plans meet (256x4: 0.9375 + 4 * 0.2535 = 1.9514;
  // Eq. 3's "+0.25" is Xi_Q itself).
  auto Delta = [](unsigned S) {
    return (std::pow(2.0, S + 1) - std::pow(-1.0, S + 1)) / 3;
  };
  CHECK(Delta(0) == 1);
  CHECK(Delta(3) == 5);
  struct Case {
    std::vector<uint32_t> Dims; ///< d_min, ..., d_min, d_max.
  } Cases[] = {{{4, 16}}, {{4, 64}}, {{4, 256}}, {{4, 1024}}, {{8, 64}}};
  CostParams C;
  C.AlphaHop = 0;
  C.Gamma = 0;
  for (const Case &K : Cases) {
    CAPTURE(Topology::torus(K.Dims, 1).str());
    unsigned D = K.Dims.size();
    unsigned LogMin = llvm::Log2_32(K.Dims.front());
    unsigned LogMax = llvm::Log2_32(K.Dims.back());
    double Square = 0;
    for (unsigned S = 0; S < D * LogMin; ++S)
      Square += Delta(S / D) / std::pow(2.0, S + 1);
    double XiQ = 0;
    for (unsigned S = LogMin; S < LogMax; ++S)
      XiQ += Delta(S) / std::pow(2.0, S + 1 - LogMin);
    XiQ /= 2 * std::pow(double(K.Dims.front()), D);
    if (K.Dims == std::vector<uint32_t>{4, 256})
      CHECK(XiQ == doctest::Approx(0.2535).epsilon(1e-3));
    Plan P = swingShapePlan(K.Dims, 2 * D);
    CostReport R = evaluateCost(P, uint64_t(1) << 26, C);
    CHECK(R.BandwidthDeficiency * R.CongestionDeficiency ==
          doctest::Approx(Square + 2 * D * XiQ).epsilon(2e-3));
  }
}

TEST_CASE("the swing family's Swing-B congestion deficiency on square tori") {
  // Raw sum (= Psi * Xi) and the sum over 1 - 1/p (= Xi).
  struct Case {
    std::vector<uint32_t> Dims;
    double Raw, Normalised;
  } Cases[] = {{{8, 8}, 1.0781, 1.0952},
               {{64, 64}, 1.1843, 1.1846},
               {{8, 8, 8}, 1.0254, 1.0274},
               {{8, 8, 8, 8}, 1.0071, 1.0073}};
  for (const Case &K : Cases) {
    Topology T = Topology::torus(K.Dims, 1);
    CAPTURE(T.str());
    std::optional<Plan> P =
        compileSwing(T, {{"variant", "bandwidth"}, {"ports", "all"}});
    if (!P)
      return;
    CostReport R = evaluateCost(*P, uint64_t(1) << 26, {});
    CHECK(R.BandwidthDeficiency * R.CongestionDeficiency ==
          doctest::Approx(K.Raw).epsilon(1e-4));
    CHECK(R.CongestionDeficiency ==
          doctest::Approx(K.Normalised).epsilon(1e-4));
    CHECK(R.LatencyDeficiency == doctest::Approx(2));
  }
}
