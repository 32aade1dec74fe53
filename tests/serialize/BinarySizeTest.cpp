//===- BinarySizeTest.cpp - The binary form stays compact at large P ------===//

#include "PlanSamples.h"

#include "plan/serialize/PlanFile.h"

#include "llvm/Support/MathExtras.h"

#include <doctest/doctest.h>

#include <chrono>

using namespace collplan;

/// Rabenseifner's allreduce (Thakur, Rabenseifner and Gropp 2005, §4.4):
/// recursive-halving reduce-scatter then recursive-doubling allgather over P
/// blocks, P a power of two. Built here, not by an algorithm family, as the
/// shape a large-P plan file must hold.
static Plan rabenseifnerPlan(uint32_t P) {
  Plan Result;
  PlanHeader &H = Result.Header;
  H.Ranks = P;
  H.Topo = Topology::flat(P);
  H.Algorithm = "rabenseifner";
  H.Blocks = P;
  unsigned Steps = llvm::Log2_32(P);
  for (uint32_t R = 0; R < P; ++R) {
    Program Prog;
    uint64_t Lo = 0, Hi = P;
    llvm::SmallVector<std::pair<uint64_t, uint64_t>, 32> Kept;
    for (unsigned K = 0; K < Steps; ++K) {
      uint32_t Distance = P >> (K + 1), Partner = R ^ Distance;
      uint64_t Mid = (Lo + Hi) / 2;
      bool Lower = (R & Distance) == 0;
      Kept.push_back({Lo, Hi});
      BlockSet Give =
          Lower ? BlockSet::range(Mid, Hi) : BlockSet::range(Lo, Mid);
      (Lower ? Hi : Lo) = Mid;
      Prog.add(K, Op::send(Partner, Give));
      Prog.add(K, Op::recv(Partner, BlockSet::range(Lo, Hi), Combine::Reduce));
    }
    for (unsigned K = Steps; K-- > 0;) {
      uint32_t Partner = R ^ (P >> (K + 1));
      auto [OuterLo, OuterHi] = Kept[K];
      BlockSet Mine = BlockSet::range(Lo, Hi);
      Prog.add(2 * Steps - 1 - K, Op::send(Partner, Mine));
      Prog.add(2 * Steps - 1 - K,
               Op::recv(Partner,
                        BlockSet::range(OuterLo, OuterHi).subtract(Mine),
                        Combine::Replace));
      Lo = OuterLo;
      Hi = OuterHi;
    }
    Result.Programs.push_back(std::move(Prog));
  }
  return Result;
}

TEST_CASE("a P = 16384 Rabenseifner plan is a few MB in binary") {
  Plan P = rabenseifnerPlan(16384);
  REQUIRE(checkStructure(P).empty());
  auto Start = std::chrono::steady_clock::now();
  std::string Bytes = encodePlan(P, PlanFormat::Binary);
  auto Encoded = std::chrono::steady_clock::now();
  llvm::Expected<Plan> Back = decodePlan(Bytes, "rabenseifner.cplan");
  auto Decoded = std::chrono::steady_clock::now();
  REQUIRE_MESSAGE(bool(Back), llvm::toString(Back.takeError()));
  test::checkSamePlan(P, *Back);
  using Ms = std::chrono::duration<double, std::milli>;
  MESSAGE("P = 16384 Rabenseifner: "
          << Bytes.size() << " bytes, encode " << Ms(Encoded - Start).count()
          << " ms, decode " << Ms(Decoded - Encoded).count() << " ms");
  // 28 rounds of two operations per rank: about 15 bytes a round.
  CHECK(Bytes.size() < 8u * 1024 * 1024);
}

TEST_CASE("binary is far smaller than text for a ring plan") {
  Plan P =
      test::compiledPlan("ring", Collective::Allreduce, Topology::flat(128));
  size_t Binary = encodePlan(P, PlanFormat::Binary).size();
  size_t Yaml = encodePlan(P, PlanFormat::Yaml).size();
  size_t Json = encodePlan(P, PlanFormat::Json).size();
  MESSAGE("ring P = 128: binary " << Binary << ", YAML " << Yaml << ", JSON "
                                  << Json << " bytes");
  // 128 ranks x 254 rounds x 2 ops: under 8 bytes an op.
  CHECK(Binary < 128u * 254 * 2 * 8);
  CHECK(Binary * 5 < Yaml);
}
