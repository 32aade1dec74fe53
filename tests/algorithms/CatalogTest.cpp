//===- CatalogTest.cpp - Declared restrictions and typed parameters -------===//
//
// The families' catalog: what each declares beside params() (restrictions,
// the collectives a parameter applies to) is checked by checkRequest before
// prepare() runs, and a family reads its parameters from what prepare()
// parsed, never from the strings of the header. Oracles: a stub family
// that counts its prepare() calls, the declared catalog of the real
// families, and programs built before and after the header's strings are
// spoiled.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"

#include "doctest/doctest.h"

#include <string>

using namespace collplan;

namespace {

/// A family that serves allreduce and allgather, needs a power-of-two P
/// when mode=fast, and takes `depth` for allreduce only.
class StubAlgorithm final : public Algorithm {
public:
  mutable int Prepared = 0;

  llvm::StringRef name() const override { return "stub"; }
  llvm::StringRef summary() const override { return "a stub"; }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Allreduce,
                                               Collective::Allgather};
    return Supported;
  }
  std::vector<Restriction> restrictions() const override {
    return {{Requirement::PowerOfTwoRanks, "mode", "fast", "use mode=slow"},
            {Requirement::RegularNodes}};
  }
  std::vector<ParamInfo> params() const override {
    return {
        {"mode", "fast or slow", "slow", ParamDomain::oneOf({"fast", "slow"})},
        {"depth", "a depth", "0", ParamDomain::integerFrom(0),
         /*Stage=*/false, /*Only=*/{Collective::Allreduce}}};
  }
  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override {
    ++Prepared;
    return headerFor(*this, Request);
  }
  Program buildRank(const PlanHeader &, uint32_t) const override { return {}; }
};

CompileRequest request(uint32_t P,
                       std::map<std::string, std::string> Params = {},
                       Collective Kind = Collective::Allreduce) {
  CompileRequest Req;
  Req.Kind = Kind;
  Req.Topo = Topology::flat(P);
  Req.Params = std::move(Params);
  return Req;
}

/// checkRequest's refusal of Req, or "" when it accepts it.
std::string refusal(const Algorithm &A, const CompileRequest &Req) {
  llvm::Error E = checkRequest(A, Req);
  return E ? llvm::toString(std::move(E)) : "";
}

bool contains(const std::string &Text, const char *Part) {
  return Text.find(Part) != std::string::npos;
}

} // namespace

TEST_CASE("a restriction refuses the request before prepare runs") {
  StubAlgorithm Stub;
  llvm::Expected<Plan> P = compilePlan(Stub, request(6, {{"mode", "fast"}}));
  REQUIRE_FALSE(bool(P));
  std::string E = llvm::toString(P.takeError());
  CAPTURE(E);
  CHECK(contains(E, "stub with mode=fast needs a power-of-two P, not P = 6"));
  CHECK(contains(E, "power-of-two-ranks"));
  CHECK(contains(E, "use mode=slow"));
  CHECK(Stub.Prepared == 0);
  // The restriction holds only under its parameter value.
  CHECK(refusal(Stub, request(6, {{"mode", "slow"}})) == "");
  CHECK(refusal(Stub, request(8, {{"mode", "fast"}})) == "");
  // Irregular nodes: 3 ranks on node 0, 1 on node 1.
  CompileRequest Irregular = request(4);
  Irregular.Topo = Topology::explicitNodes({0, 0, 0, 1});
  E = refusal(Stub, Irregular);
  CHECK(contains(E, "same number of ranks on every node"));
  CHECK(contains(E, "1 to 3"));
  CHECK(contains(E, "regular-nodes"));
}

TEST_CASE("a parameter declared for some collectives is refused for others") {
  StubAlgorithm Stub;
  CHECK(refusal(Stub, request(4, {{"depth", "2"}})) == "");
  std::string E =
      refusal(Stub, request(4, {{"depth", "2"}}, Collective::Allgather));
  CHECK(contains(E, "parameter depth of 'stub' applies to allreduce only, not "
                    "allgather"));
  CHECK(Stub.Prepared == 0);
}

TEST_CASE("the families' catalogs refuse what they cannot serve") {
  const Algorithm &Circulant = *findAlgorithm("circulant");
  std::string E =
      refusal(Circulant, request(8, {{"blocks", "4"}}, Collective::Allgather));
  CHECK(contains(E, "applies to broadcast, reduce, allgatherv and allreduce "
                    "only, not allgather"));
  E = refusal(Circulant,
              request(8, {{"variant", "census"}}, Collective::Broadcast));
  CHECK(contains(E, "applies to allreduce only, not broadcast"));
  CompileRequest V = request(8, {{"blocks", "4"}}, Collective::Allgatherv);
  V.Weights.assign(8, 1);
  CHECK(refusal(Circulant, V) == "");

  const Algorithm &Permutation = *findAlgorithm("permutation");
  E = refusal(Permutation, request(6, {{"group", "xor"}}));
  CHECK(contains(E, "power-of-two"));
  CHECK(contains(E, "group=cyclic"));

  CompileRequest Torus = request(1);
  uint32_t Dims[] = {4, 4};
  Torus.Topo = Topology::torus(Dims, 2);
  for (const char *Name : {"swing", "bucket"}) {
    E = refusal(*findAlgorithm(Name), Torus);
    CAPTURE(E);
    CHECK(contains(E, "one rank per torus node, not 2"));
    CHECK(contains(E, "smp-rsag"));
  }

  CompileRequest Irregular = request(5);
  Irregular.Topo = Topology::explicitNodes({0, 0, 0, 1, 1});
  for (const char *Name : {"smp", "smp-rsag"}) {
    E = refusal(*findAlgorithm(Name), Irregular);
    CAPTURE(E);
    CHECK(contains(E, "regular-nodes"));
    CHECK(contains(E, "use nap"));
  }

  CompileRequest NonCommutative = request(4);
  NonCommutative.CommutativeOperator = false;
  for (const char *Name : {"ring", "permutation", "swing", "bucket"}) {
    E = refusal(*findAlgorithm(Name), NonCommutative);
    CAPTURE(Name);
    CHECK(contains(E, "needs a commutative operator"));
  }
  // Rank-order families declare no such restriction.
  CHECK(refusal(*findAlgorithm("recursive-doubling"), NonCommutative) == "");
}

TEST_CASE("every declared restriction has a name for collplan list") {
  for (const Algorithm *A : allAlgorithms())
    for (const Restriction &R : A->restrictions()) {
      CHECK_FALSE(requirementName(R.Needs).empty());
      CHECK(contains(R.str(), requirementName(R.Needs).str().c_str()));
    }
  Restriction Xor{Requirement::PowerOfTwoRanks, "group", "xor"};
  CHECK(Xor.str() == "power-of-two-ranks (when group=xor)");
}

TEST_CASE("a parameter that does not parse is an error of prepare") {
  // Past checkRequest's domains (as a caller that skips it would be), the
  // family's own parse still refuses the value instead of ignoring it.
  llvm::Expected<PlanHeader> H =
      findAlgorithm("permutation")->prepare(request(7, {{"r", "x"}}));
  REQUIRE_FALSE(bool(H));
  CHECK(contains(llvm::toString(H.takeError()), "r=x"));
  H = findAlgorithm("swing")->prepare(request(8, {{"variant", "wide"}}));
  REQUIRE_FALSE(bool(H));
  CHECK(contains(llvm::toString(H.takeError()), "wide"));
  H = findAlgorithm("bucket")->prepare(request(8, {{"ports", "2"}}));
  REQUIRE_FALSE(bool(H));
  CHECK(contains(llvm::toString(H.takeError()), "'2'"));
}

TEST_CASE("buildRank reads the parameters prepare parsed, not the strings") {
  struct Case {
    const char *Family;
    std::map<std::string, std::string> Params;
    Collective Kind;
  };
  for (const Case &C : std::vector<Case>{
           {"permutation",
            {{"r", "2"}, {"group", "cyclic"}},
            Collective::Allreduce},
           {"swing", {{"variant", "latency"}}, Collective::Allreduce},
           {"bucket", {{"ports", "all"}}, Collective::ReduceScatter},
           {"smp", {{"inter", "ring"}}, Collective::Allreduce}}) {
    CAPTURE(C.Family);
    const Algorithm &A = *findAlgorithm(C.Family);
    CompileRequest Req = request(12, C.Params, C.Kind);
    Req.Topo = Topology::nodes(4, 3);
    if (std::string(C.Family) != "smp")
      Req.Topo = Topology::flat(12);
    llvm::Expected<PlanHeader> H = A.prepare(Req);
    REQUIRE(bool(H));
    REQUIRE(H->Prepared);
    std::vector<Program> Before;
    for (uint32_t R = 0; R < H->Ranks; ++R)
      Before.push_back(A.buildRank(*H, R));
    // Spoil every serialised parameter: the programs must not change.
    for (auto &[Name, Value] : H->Params)
      Value = "spoiled";
    for (uint32_t R = 0; R < H->Ranks; ++R) {
      Program After = A.buildRank(*H, R);
      REQUIRE(After.Rounds.size() == Before[R].Rounds.size());
      for (size_t K = 0; K < After.Rounds.size(); ++K)
        CHECK(After.Rounds[K].Ops == Before[R].Rounds[K].Ops);
    }
  }
}
