//===- PlanFileTest.cpp - Round trips, determinism and the plan hash ------===//

#include "PlanSamples.h"

#include "plan/serialize/PlanFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <doctest/doctest.h>

using namespace collplan;
using namespace collplan::test;

static constexpr PlanFormat AllFormats[] = {PlanFormat::Yaml, PlanFormat::Json,
                                            PlanFormat::Binary};

static Plan roundTrip(const Plan &P, PlanFormat F) {
  std::string Bytes = encodePlan(P, F);
  llvm::Expected<Plan> Back = decodePlan(Bytes, "mem");
  REQUIRE_MESSAGE(bool(Back), llvm::toString(Back.takeError()));
  // Re-encoding what was read gives the same bytes.
  CHECK(encodePlan(*Back, F) == Bytes);
  return std::move(*Back);
}

TEST_CASE("a hand-built plan with every field survives all three formats") {
  Plan P = handBuiltPlan();
  REQUIRE(checkStructure(P).empty());
  for (PlanFormat F : AllFormats) {
    CAPTURE(formatName(F));
    checkSamePlan(P, roundTrip(P, F));
  }
}

TEST_CASE("compiled ring plans survive all three formats") {
  for (Collective C : {Collective::Allreduce, Collective::ReduceScatter,
                       Collective::Allgather})
    for (uint32_t N : {1u, 2u, 3u, 7u, 16u})
      for (PlanFormat F : AllFormats) {
        CAPTURE(N);
        CAPTURE(formatName(F));
        Plan P = compiledPlan("ring", C, Topology::flat(N));
        checkSamePlan(P, roundTrip(P, F));
      }
  Plan P = compiledPlan("ring", Collective::Allreduce,
                        Topology::nodes(4, 3, RankMapping::RoundRobin));
  for (PlanFormat F : AllFormats)
    checkSamePlan(P, roundTrip(P, F));
  // A hostfile's explicit map (nodes of 2, 3 and 1 ranks, interleaved) is
  // stored in the plan, so every reader sees the same nodes.
  Plan E = compiledPlan("ring", Collective::Allreduce,
                        Topology::explicitNodes({1, 0, 1, 2, 1, 0}));
  for (PlanFormat F : AllFormats) {
    CAPTURE(formatName(F));
    Plan Back = roundTrip(E, F);
    checkSamePlan(E, Back);
    CHECK(Back.Header.Topo.mapping() == RankMapping::Explicit);
    CHECK(Back.Header.Topo.explicitNodeOf() ==
          llvm::ArrayRef<uint32_t>({1, 0, 1, 2, 1, 0}));
    CHECK(Back.Header.Topo.ranksOn(1) == 3);
  }
}

TEST_CASE("encoding is deterministic") {
  for (PlanFormat F : AllFormats) {
    CAPTURE(formatName(F));
    // Two plans built apart, parameters inserted in different orders.
    Plan A = handBuiltPlan(), B = handBuiltPlan();
    B.Header.Params.clear();
    for (auto It = A.Header.Params.rbegin(); It != A.Header.Params.rend(); ++It)
      B.Header.Params.emplace(It->first, It->second);
    CHECK(encodePlan(A, F) == encodePlan(B, F));
    CHECK(encodePlan(A, F) == encodePlan(A, F));
  }
}

TEST_CASE("YAML writes one operation per line in flow style") {
  Plan P = compiledPlan("ring", Collective::Allreduce, Topology::flat(3));
  std::string Yaml = encodePlan(P, PlanFormat::Yaml);
  // docs/algorithms/ring.md, "Idea": at step 1 rank 0 sends chunk 1 to rank 2
  // and reduces chunk 2 from rank 1.
  CHECK(
      Yaml.find("- {kind: send, peer: 2, buffer: data, blocks: [[1, 2]]}\n") !=
      std::string::npos);
  CHECK(Yaml.find("- {kind: recv, peer: 1, buffer: data, combine: reduce, "
                  "blocks: [[2, 3]]}\n") != std::string::npos);
  size_t Ops = 0;
  for (const Program &Prog : P.Programs)
    for (const Round &Rd : Prog.Rounds)
      Ops += Rd.Ops.size();
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  llvm::StringRef(Yaml).split(Lines, '\n');
  CHECK(llvm::count_if(Lines, [](llvm::StringRef L) {
          return L.ltrim().startswith("- {kind: ");
        }) == long(Ops));
  CHECK(
      llvm::StringRef(Yaml).startswith("format: collplan-plan\nversion: 1\n"));
}

TEST_CASE("JSON writes one operation per line and parses as JSON") {
  Plan P = compiledPlan("ring", Collective::Allgather, Topology::flat(4));
  std::string Json = encodePlan(P, PlanFormat::Json);
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Json);
  REQUIRE_MESSAGE(bool(V), llvm::toString(V.takeError()));
  const llvm::json::Object *O = V->getAsObject();
  REQUIRE(O);
  CHECK(O->getString("format") ==
        llvm::Optional<llvm::StringRef>(llvm::StringRef("collplan-plan")));
  CHECK(O->getInteger("ranks") == llvm::Optional<int64_t>(4));
  CHECK(Json.find("{\"kind\":\"send\",\"peer\":3,\"buffer\":\"data\","
                  "\"blocks\":[[0,1]]}") != std::string::npos);
}

TEST_CASE("the format follows the file extension") {
  CHECK(formatForPath("a/b.yaml") == PlanFormat::Yaml);
  CHECK(formatForPath("b.YML") == PlanFormat::Yaml);
  CHECK(formatForPath("x.json") == PlanFormat::Json);
  CHECK(formatForPath("/tmp/p.cplan") == PlanFormat::Binary);
  CHECK(!formatForPath("plan.txt"));
  CHECK(!formatForPath("plan"));
  CHECK(formatName(PlanFormat::Binary) == "binary");
}

/// FNV-1a, written out here from its definition (Fowler, Noll, Vo).
static uint64_t fnv1a(llvm::StringRef Bytes) {
  uint64_t H = 14695981039346656037ULL;
  for (unsigned char C : Bytes)
    H = (H ^ C) * 1099511628211ULL;
  return H;
}

TEST_CASE("the plan hash is FNV-1a of the binary form and sees every field") {
  Plan P = handBuiltPlan();
  // The binary form stores the hash in the 8 bytes after the magic and the
  // version. It covers the magic, the version, the header and the table of
  // (offset, FNV-1a of the program's bytes) entries, so every program too;
  // the stamp (one 0 byte here, at 17) is left out.
  std::string Binary = encodePlan(P, PlanFormat::Binary);
  auto Read64 = [&](size_t At) {
    uint64_t V = 0;
    for (int I = 7; I >= 0; --I)
      V = V << 8 | uint8_t(Binary[At + I]);
    return V;
  };
  CHECK(planHash(P) == Read64(9));
  REQUIRE(Binary[17] == 0);
  // The table ends where rank 0's program starts, its first entry says
  // (offsets count from the header's first byte, 18).
  size_t Ranks = P.Programs.size(), TableEnd = 0;
  for (size_t End = 18 + 16 * Ranks; End < Binary.size() && !TableEnd; ++End)
    if (18 + Read64(End - 16 * Ranks) == End)
      TableEnd = End;
  REQUIRE(TableEnd != 0);
  for (size_t R = 0; R < Ranks; ++R) {
    size_t Begin = 18 + Read64(TableEnd - 16 * Ranks + 16 * R);
    size_t End = R + 1 < Ranks
                     ? 18 + Read64(TableEnd - 16 * Ranks + 16 * (R + 1))
                     : Binary.size();
    CHECK(Read64(TableEnd - 16 * Ranks + 16 * R + 8) ==
          fnv1a(Binary.substr(Begin, End - Begin)));
  }
  CHECK(planHash(P) ==
        fnv1a(Binary.substr(0, 9) + Binary.substr(18, TableEnd - 18)));
  Plan Stamped = handBuiltPlan();
  Stamped.Header.Stamp = VerificationStamp{123, true, true, "collplan test"};
  CHECK(planHash(Stamped) == planHash(P));
  CHECK(planHash(P) == planHash(handBuiltPlan()));
  uint64_t Base = planHash(P);
  auto Differs = [&](auto Mutate) {
    Plan Q = handBuiltPlan();
    Mutate(Q);
    return planHash(Q) != Base;
  };
  CHECK(Differs([](Plan &Q) { Q.Header.Kind = Collective::Broadcast; }));
  CHECK(Differs([](Plan &Q) { Q.Header.Algorithm = "other"; }));
  CHECK(Differs([](Plan &Q) { Q.Header.Params["segments"] = "5"; }));
  CHECK(Differs([](Plan &Q) { Q.Header.Weights[3] += 1; }));
  CHECK(Differs([](Plan &Q) { Q.Header.Root = 1; }));
  CHECK(Differs([](Plan &Q) { Q.Header.Buffers[1] = "tmq"; }));
  CHECK(Differs([](Plan &Q) { Q.Header.RequiresCommutative = true; }));
  CHECK(Differs([](Plan &Q) {
    Q.Header.Topo = Topology::torus({3, 2}, 2, RankMapping::RoundRobin);
  }));
  CHECK(Differs([](Plan &Q) { Q.Programs[5].Rounds[1].Ops[2].Peer ^= 1; }));
  CHECK(Differs([](Plan &Q) { Q.Programs[0].Rounds[2].Index += 1; }));
  CHECK(Differs(
      [](Plan &Q) { Q.Programs[7].Rounds[0].Ops[1].Mode = Combine::Replace; }));
  CHECK(Differs(
      [](Plan &Q) { Q.Programs[11].Rounds[1].Ops[0].Blocks.insert(23, 24); }));
}

TEST_CASE("the plan hash prints as 16 lowercase hex digits") {
  CHECK(planHashHex(0) == "0000000000000000");
  CHECK(planHashHex(0x1f) == "000000000000001f");
  CHECK(planHashHex(0xfedcba9876543210ULL) == "fedcba9876543210");
}

TEST_CASE("every format rejects a newer version by name") {
  Plan P = compiledPlan("ring", Collective::Allreduce, Topology::flat(2));
  std::string Yaml = encodePlan(P, PlanFormat::Yaml);
  std::string Json = encodePlan(P, PlanFormat::Json);
  std::string Binary = encodePlan(P, PlanFormat::Binary);
  auto Replace = [](std::string S, llvm::StringRef From, llvm::StringRef To) {
    size_t At = S.find(From.str());
    REQUIRE(At != std::string::npos);
    return S.replace(At, From.size(), To.str());
  };
  Yaml = Replace(Yaml, "version: 1", "version: 2");
  Json = Replace(Json, "\"version\": 1", "\"version\": 2");
  // The binary layout has a version of its own (3), after the 8-byte magic.
  REQUIRE(Binary[8] == 3);
  Binary[8] = 4;
  const std::pair<std::string, const char *> Cases[] = {
      {Yaml, "version 2 is newer than this collplan supports (1)"},
      {Json, "version 2 is newer than this collplan supports (1)"},
      {Binary, "version 4 is newer than this collplan supports (3)"}};
  for (const auto &[Bytes, Expect] : Cases) {
    llvm::Expected<Plan> Back = decodePlan(Bytes, "future.plan");
    REQUIRE(!Back);
    std::string Message = llvm::toString(Back.takeError());
    CHECK(llvm::StringRef(Message).startswith("future.plan: "));
    CHECK_MESSAGE(Message.find(Expect) != std::string::npos, Message);
  }
}

TEST_CASE("a version 1 binary plan is refused with a request to recompile") {
  Plan P = compiledPlan("ring", Collective::Allreduce, Topology::flat(2));
  std::string Binary = encodePlan(P, PlanFormat::Binary);
  Binary[8] = 1;
  llvm::Expected<Plan> Back = decodePlan(Binary, "old.cplan");
  REQUIRE(!Back);
  std::string Message = llvm::toString(Back.takeError());
  CHECK_MESSAGE(Message == "old.cplan: byte 8: field 'version': binary plan "
                           "format version 1 has no rank offset table; this "
                           "collplan reads version 3: recompile the plan "
                           "(collplan compile ... -o FILE.cplan) or convert "
                           "it from its YAML or JSON form",
                Message);
}

TEST_CASE("a stamp keeps both rounding verdicts in every format") {
  for (bool Identical : {false, true})
    for (bool Reproducible : {false, true})
      for (PlanFormat F : AllFormats) {
        CAPTURE(formatName(F));
        Plan P = handBuiltPlan();
        P.Header.Stamp = stampFor(P, Identical, Reproducible, "collplan test");
        Plan Back = roundTrip(P, F);
        REQUIRE(Back.Header.Stamp);
        CHECK(Back.Header.Stamp->IdenticalResults == Identical);
        CHECK(Back.Header.Stamp->Reproducible == Reproducible);
      }
}

TEST_CASE("a stamp written before the reproducible verdict promises none") {
  Plan P = handBuiltPlan();
  P.Header.Stamp = stampFor(P, true, true, "collplan test");
  for (PlanFormat F : {PlanFormat::Yaml, PlanFormat::Json}) {
    CAPTURE(formatName(F));
    std::string Text = encodePlan(P, F);
    // The field as the writers spell it, then the text an older collplan
    // wrote: the same stamp without it.
    std::string Field = F == PlanFormat::Yaml ? "reproducible: true, "
                                              : "\"reproducible\":true,";
    size_t At = Text.find(Field);
    REQUIRE(At != std::string::npos);
    Text.erase(At, Field.size());
    llvm::Expected<Plan> Old = decodePlan(Text, "old");
    REQUIRE_MESSAGE(bool(Old), llvm::toString(Old.takeError()));
    REQUIRE(Old->Header.Stamp);
    CHECK(Old->Header.Stamp->IdenticalResults);
    CHECK_FALSE(Old->Header.Stamp->Reproducible);
    // A value that is not a boolean is refused by name.
    std::string Bad = encodePlan(P, F);
    Bad.replace(Bad.find(Field), Field.size(),
                F == PlanFormat::Yaml ? "reproducible: 2, "
                                      : "\"reproducible\":2,");
    llvm::Expected<Plan> Refused = decodePlan(Bad, "bad");
    REQUIRE_FALSE(bool(Refused));
    CHECK(llvm::toString(Refused.takeError()).find("verified.reproducible") !=
          std::string::npos);
  }
}
