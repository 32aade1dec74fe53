//===- HostileInputTest.cpp - Readers trust nothing -----------------------===//
//
// Every malformed input gives an llvm::Error naming the file and where the
// problem is; none crashes, hangs, throws or allocates without bound.
//
//===----------------------------------------------------------------------===//

#include "PlanSamples.h"

#include "plan/serialize/PlanFile.h"
#include "plan/serialize/RankSlice.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <random>

using namespace collplan;
using namespace collplan::test;

/// The error decoding Bytes gives; fails the test if it decodes.
static std::string errorOf(llvm::StringRef Bytes,
                           llvm::StringRef Name = "bad.plan") {
  llvm::Expected<Plan> P = decodePlan(Bytes, Name);
  if (P) {
    FAIL_CHECK("decoded; expected an error");
    return "";
  }
  std::string Message = llvm::toString(P.takeError());
  CHECK_MESSAGE(llvm::StringRef(Message).startswith(Name.str() + ": "),
                Message);
  return Message;
}

static bool mentions(llvm::StringRef Message, llvm::StringRef Part) {
  return Message.contains(Part);
}

static std::string replaced(std::string S, llvm::StringRef From,
                            llvm::StringRef To) {
  size_t At = S.find(From.str());
  REQUIRE_MESSAGE(At != std::string::npos, "no '" << From.str() << "'");
  return S.replace(At, From.size(), To.str());
}

static Plan smallPlan() {
  return compiledPlan("ring", Collective::Allreduce, Topology::flat(4));
}

TEST_CASE("wrong types and missing fields are named, with their location") {
  std::string Yaml = encodePlan(smallPlan(), PlanFormat::Yaml);
  std::string Json = encodePlan(smallPlan(), PlanFormat::Json);
  struct Case {
    const char *From, *To, *Expect;
  };
  const Case YamlCases[] = {
      {"ranks: 4", "ranks: four",
       "field 'ranks': expected an integer, got "
       "a string"},
      {"ranks: 4", "ranks: [4]",
       "field 'ranks': expected an integer, got a "
       "list"},
      {"ranks: 4\n", "", "field 'ranks': missing"},
      {"collective: allreduce", "collective: allreduse",
       "unknown collective 'allreduse'"},
      {"requires_commutative: true", "requires_commutative: 1",
       "field 'requires_commutative': expected true or false"},
      {"buffers: [data]", "buffers: [scratch]",
       "the first buffer must be 'data'"},
      {"buffers: [data]", "buffers: [data, data]", "declared twice"},
      {"kind: flat", "kind: mesh", "expected flat or torus"},
      {"mapping: block", "mapping: blocked",
       "expected block, round-robin or explicit"},
      {"mapping: block", "mapping: explicit",
       "field 'node_of_rank': missing"},
      {"mapping: block", "mapping: block, node_of_rank: [0, 0, 0, 0]",
       "only an explicit mapping lists each rank's node"},
      {"{kind: send, peer: 3,", "{kind: send, peer: -1,",
       "rank 0, round 0, op 0: field 'peer': expected a non-negative "
       "integer, got -1"},
      {"{kind: send, peer: 3,", "{kind: send, peer: 4,",
       "rank 0, round 0, op 0: field 'peer': expected an integer in [0, 3], "
       "got 4"},
      {"{kind: send, peer: 3,", "{kind: sned, peer: 3,",
       "rank 0, round 0, op 0: field 'kind': expected send, recv or local"},
      {"{kind: send, peer: 3, buffer: data,", "{kind: send, buffer: data,",
       "rank 0, round 0, op 0: field 'peer': missing"},
      {"buffer: data, blocks: [[1, 2]]}", "buffer: tmp, blocks: [[1, 2]]}",
       "field 'buffer': 'tmp' is not a declared buffer"},
      {"blocks: [[1, 2]]}", "blocks: [[2, 1]]}",
       "field 'blocks[0]': the range [2, 1) is empty"},
      {"blocks: [[1, 2]]}", "blocks: [[1, 2], [0, 1]]}",
       "ranges must be sorted and disjoint"},
      {"blocks: [[1, 2]]}", "blocks: [[1, 5]]}",
       "field 'blocks[0]': expected an integer in [0, 4], got 5"},
      {"blocks: [[1, 2]]}", "blocks: [1, 2]}", "expected a [begin, end) pair"},
      {"blocks: [[1, 2]]}", "blocks: [[1, 2]], extra: 1}",
       "field 'extra': unknown field"},
      {"combine: reduce", "combine: add", "expected replace or reduce"},
      {"  - index: 1\n", "  - index: 0\n",
       "rank 0, round 0: field 'index': round 0 follows round 0"},
      {"- rank: 1\n", "- rank: 2\n", "program 1 is labelled rank 2"},
      {"ranks: 4", "ranks: 1000000000000",
       "field 'ranks': expected an integer in [1, 16777216], got "
       "1000000000000"},
      {"blocks: 4\n", "blocks: 1099511627777\n",
       "field 'blocks': expected an integer in [1, 1099511627776]"},
      {"blocks: 4\n", "blocks: 0\n", "field 'blocks': expected an integer"},
      {"blocks: 4\n", "blocks: 4\nweights: [1, 2]\n",
       "field 'weights': has 2 entries for 4 blocks"},
      {"blocks: 4\n", "blocks: 4\nroot: 9\n", "field 'root'"},
      {"ranks: 4", "ranks: 99999999999999999999999", "field 'ranks'"},
      {"format: collplan-plan", "format: other", "not a collplan plan"},
      {"version: 1", "version: 0", "field 'version'"},
      {"nodes: 4, ppn: 1", "nodes: 2, ppn: 1",
       "2 nodes of 1 ranks do not make the plan's 4 ranks"},
  };
  for (const Case &C : YamlCases) {
    CAPTURE(C.To);
    std::string Message = errorOf(replaced(Yaml, C.From, C.To), "p.yaml");
    CHECK_MESSAGE(mentions(Message, C.Expect), Message);
  }
  const Case JsonCases[] = {
      {"\"ranks\": 4", "\"ranks\": \"4\"",
       "field 'ranks': expected an integer, got a string"},
      {"\"ranks\": 4", "\"ranks\": 4.5", "field 'ranks'"},
      {"\"peer\":3", "\"peer\":-3", "rank 0, round 0, op 0: field 'peer'"},
      {"\"params\": {}", "\"params\": []",
       "field 'params': expected a map of strings, got a list"},
      {"\"version\": 1", "\"version\": null",
       "field 'version': expected an integer, got null"},
  };
  for (const Case &C : JsonCases) {
    CAPTURE(C.To);
    std::string Message = errorOf(replaced(Json, C.From, C.To), "p.json");
    CHECK_MESSAGE(mentions(Message, C.Expect), Message);
  }
}

TEST_CASE("a plan that decodes but is malformed fails readPlanFile's check") {
  Plan P = smallPlan();
  P.Programs[1].Rounds[0].Ops[0].Peer = 1; // Itself.
  std::string Path = "hostile-self-send.yaml";
  REQUIRE(!writePlanFile(P, Path, PlanFormat::Yaml));
  llvm::Expected<Plan> Back = readPlanFile(Path);
  REQUIRE(!Back);
  std::string Message = llvm::toString(Back.takeError());
  CHECK_MESSAGE(Message == "hostile-self-send.yaml: rank 1, round 0, op 0: a "
                           "rank cannot send to or receive from itself",
                Message);
  std::remove(Path.c_str());
}

TEST_CASE("readPlanFile refuses what is not a regular file") {
  for (const char *Path : {"/nonexistent/plan.yaml", "/dev/zero", "/tmp"}) {
    llvm::Expected<Plan> P = readPlanFile(Path);
    REQUIRE(!P);
    std::string Message = llvm::toString(P.takeError());
    CHECK_MESSAGE(mentions(Message, Path), Message);
  }
}

TEST_CASE("deep nesting is refused, never recursed into") {
  // A root that is not a map is refused at its first event.
  std::string Brackets(200000, '[');
  CHECK(mentions(errorOf(Brackets), "a plan must be a map, got a list"));
  std::string Dashes;
  for (int I = 0; I < 100000; ++I)
    Dashes += "- ";
  CHECK(mentions(errorOf(Dashes + "x\n"), "a plan must be a map, got a list"));
  // Within the plan's map, in flow and block style, YAML and JSON.
  CHECK(mentions(errorOf("format: " + Brackets),
                 "nesting deeper than 64 levels"));
  CHECK(mentions(errorOf("format:\n" + Dashes + "x\n"),
                 "nesting deeper than 64 levels"));
  std::string Braces;
  for (int I = 0; I < 100000; ++I)
    Braces += "{\"a\":";
  CHECK(mentions(errorOf(Braces), "nesting deeper than 64 levels"));
  std::string Indented;
  for (int I = 0; I < 2000; ++I)
    Indented += std::string(I, ' ') + "a:\n";
  CHECK(mentions(errorOf(Indented), "nesting deeper than 64 levels"));
  CHECK(mentions(errorOf("programs: " + std::string(100, '[')),
                 "nesting deeper"));
  // YAML the streaming parser declines (an anchor) is parsed whole, after
  // the same bound is checked by a scan.
  CHECK(mentions(errorOf("a: &x 1\nb: " + Brackets),
                 "nesting deeper than 64 levels"));
}

TEST_CASE("YAML aliases cannot expand a small file into a huge tree") {
  std::string Laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int I = 1; I < 12; ++I)
    Laughs += "a" + std::to_string(I) + ": &a" + std::to_string(I) + " [*a" +
              std::to_string(I - 1) + ", *a" + std::to_string(I - 1) + ", *a" +
              std::to_string(I - 1) + ", *a" + std::to_string(I - 1) + "]\n";
  CHECK(mentions(errorOf(Laughs), "more nodes than its size allows"));
}

TEST_CASE("garbage, duplicates and several documents are refused") {
  CHECK(mentions(errorOf(llvm::StringRef("\xff\xfe\x00\x01garbage", 11)),
                 "neither UTF-8 text nor a binary plan"));
  CHECK(mentions(errorOf(""), "the file is empty"));
  CHECK(mentions(errorOf("   \n"), "the file is empty"));
  CHECK(mentions(errorOf("just words"), "a plan must be a map"));
  CHECK(mentions(errorOf("a: [1, 2"), "invalid YAML"));
  CHECK(mentions(errorOf("{\"a\": 1,"), "invalid JSON"));
  CHECK(mentions(errorOf("format: x\nformat: y\n"), "duplicate key"));
  CHECK(mentions(errorOf("a: 1\n---\nb: 2\n"), "holds 2 YAML documents"));
  // A lone surrogate escape: yaml-cpp or our UTF-8 check refuses it.
  CHECK(mentions(errorOf("a: \"\\ud800\"\n"), "line 1, column"));
  CHECK(mentions(errorOf("\x89"
                         "CPL"),
                 "bad magic"));
}

/// The binary header of a 2-rank flat plan, written out from the layout in
/// BinaryPlan.cpp, up to (not including) the parameter count.
static std::string binaryPrefix() {
  std::string S("\x89"
                "CPLAN\r\n",
                8);
  // version 3, the hash (filled in by withPrograms), no stamp, allreduce,
  // 2 ranks, flat, 2 nodes, ppn 1, block, "x".
  S += std::string("\x03", 1) + std::string(9, '\0');
  S += std::string("\x00\x02\x00\x02\x01\x00\x01x", 8);
  return S;
}

static std::string uleb(uint64_t V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::encodeULEB128(V, OS);
  return OS.str();
}

static std::string le64(uint64_t V) {
  std::string S;
  for (int I = 0; I < 8; ++I)
    S += char(V >> (8 * I));
  return S;
}

/// The header of binaryPrefix's plan, complete up to the program count:
/// 2 blocks, one buffer "data".
static std::string binaryHeader() {
  return binaryPrefix() + uleb(0) + uleb(2) + uleb(0) + uleb(0) + uleb(1) +
         uleb(4) + "data" + uleb(1);
}

/// FNV-1a (64-bit), written out from its definition.
static uint64_t fnv1a(llvm::StringRef Bytes) {
  uint64_t H = 14695981039346656037ULL;
  for (unsigned char C : Bytes)
    H = (H ^ C) * 1099511628211ULL;
  return H;
}

/// Header, the program count, the table (file offsets Offsets, or those of
/// Programs laid end to end, stored from the header's first byte, 18, each
/// with its program's FNV-1a) and Programs, with the stored hash made
/// right: FNV-1a of the magic, the version, the header and the table.
static std::string withPrograms(const std::string &Header,
                                const std::vector<std::string> &Programs,
                                std::vector<uint64_t> Offsets = {}) {
  std::string S = Header + uleb(Programs.size());
  if (Offsets.empty()) {
    uint64_t At = S.size() + 16 * Programs.size();
    for (const std::string &Prog : Programs) {
      Offsets.push_back(At);
      At += Prog.size();
    }
  }
  for (size_t R = 0; R < Offsets.size(); ++R)
    S += le64(Offsets[R] - 18) + le64(fnv1a(Programs[R]));
  uint64_t H = fnv1a(S.substr(0, 9) + S.substr(18));
  for (const std::string &Prog : Programs)
    S += Prog;
  return S.replace(9, 8, le64(H));
}

TEST_CASE("binary counts are checked against the bytes present") {
  std::string Header = binaryHeader();
  std::string Valid = withPrograms(Header, {uleb(0), uleb(0)});
  // The hand-written bytes are a valid (empty) plan: the layout is as read.
  llvm::Expected<Plan> P = decodePlan(Valid, "hand.cplan");
  REQUIRE_MESSAGE(bool(P), llvm::toString(P.takeError()));
  CHECK(P->Header.Ranks == 2);
  CHECK(P->Header.Blocks == 2);
  CHECK(P->Programs.size() == 2);

  CHECK(mentions(errorOf(binaryPrefix() + uleb(1000000000)),
                 "field 'params': claims 1000000000 elements"));
  CHECK(mentions(errorOf(binaryPrefix() + uleb(0) + uleb(2) + uleb(1000000000)),
                 "field 'weights': claims 1000000000 elements"));
  // A count is checked against its program's bytes, not the file's.
  CHECK(mentions(
      errorOf(withPrograms(Header, {uleb(1000000000), std::string(40, '\0')})),
      "rank 0: field 'rounds': claims 1000000000 elements but only 0 bytes "
      "remain"));
  CHECK(mentions(errorOf(withPrograms(
                     Header, {uleb(0), uleb(1) + uleb(0) + uleb(1000000000)})),
                 "rank 1, round 0: field 'ops': claims 1000000000"));
  CHECK(mentions(errorOf(Header + uleb(3) + std::string(51, '\0')),
                 "has 3 programs for 2 ranks"));
  CHECK(mentions(errorOf(Header + uleb(2) + std::string(33, '\0')),
                 "field 'programs': claims 2 elements but only 33 bytes"));
  CHECK(mentions(errorOf(withPrograms(Header, {uleb(0), uleb(0) + "x"})),
                 "1 bytes follow the last program"));
  CHECK(mentions(errorOf(binaryPrefix() + uleb(0) + uleb(uint64_t(1) << 41)),
                 "field 'blocks': expected an integer in [1, 1099511627776]"));
  std::string HugeRanks = Valid;
  HugeRanks.replace(19, 1, uleb(1000000000000ULL));
  CHECK(mentions(errorOf(HugeRanks),
                 "field 'ranks': expected an integer in [1, 16777216]"));
  std::string Overlong = binaryPrefix() + std::string(11, '\xff');
  CHECK(mentions(errorOf(Overlong), "field 'params'"));
  // A send to rank 5 of 2, and a block range past the end.
  std::string Round = uleb(1) + uleb(0) + uleb(1);
  auto RoundError = [&](const std::string &Op) {
    return errorOf(withPrograms(Header, {Round + Op, uleb(0)}));
  };
  CHECK(mentions(RoundError(std::string(1, '\0') + uleb(2 * 2 + 5) + uleb(1) +
                            uleb(0) + uleb(0)),
                 "rank 0, round 0, op 0: field 'peer': peer 5 is not a rank"));
  CHECK(mentions(
      RoundError(std::string(1, '\0') + uleb(1) + uleb(1) + uleb(1) + uleb(1)),
      "rank 0, round 0, op 0: field 'blocks[0]'"));
  CHECK(mentions(RoundError(std::string("\x03\0\0", 3)),
                 "unknown operation kind 3"));
  CHECK(mentions(RoundError(std::string("\x08\0\0", 3)),
                 "previous operation's peer"));
}

TEST_CASE("a hostile offset table is refused before any program is read") {
  std::string Header = binaryHeader();
  // Header, count, two offsets: rank 0's program follows the table there.
  uint64_t First = Header.size() + 1 + 32;
  std::vector<std::string> Two = {uleb(0), uleb(0)};
  struct Case {
    std::vector<uint64_t> Offsets;
    const char *Expect;
  };
  const Case Cases[] = {
      {{First, First + 100},
       "field 'offsets[1]': rank 1's program starts at byte 170, past the "
       "end of the file (72 bytes)"},
      {{First, UINT64_MAX},
       "field 'offsets[1]': rank 1's program starts at byte "
       "18446744073709551615, past the end"},
      {{First + 1, First + 1},
       "field 'offsets[0]': rank 0's program starts at byte 71; it must "
       "follow the table, at byte 70"},
      {{First - 16, First + 1},
       "field 'offsets[0]': rank 0's program starts at byte 54; it must "
       "follow the table"},
      {{First, First},
       "field 'offsets[1]': rank 1's program starts at byte 70, not after "
       "rank 0's at byte 70: offsets must increase, programs cannot overlap"},
  };
  for (const Case &C : Cases) {
    CAPTURE(C.Expect);
    std::string Bytes = withPrograms(Header, Two, C.Offsets);
    REQUIRE(Bytes.size() == First + 2);
    std::string Message = errorOf(Bytes, "t.cplan");
    CHECK_MESSAGE(mentions(Message, C.Expect), Message);
    // The field's own bytes: the table starts after the count.
    CHECK_MESSAGE(mentions(Message, "t.cplan: byte "), Message);
    // A one-rank reader checks the whole table too.
    for (uint32_t Rank : {0u, 1u}) {
      llvm::Expected<RankSlice> S = decodeRankSlice(Bytes, "t.cplan", Rank);
      REQUIRE(!S);
      std::string SliceMessage = llvm::toString(S.takeError());
      CHECK_MESSAGE(SliceMessage == Message, SliceMessage);
    }
  }
  // Programs must fill their bytes exactly: no gap, no running on into the
  // next rank's bytes.
  CHECK(mentions(errorOf(withPrograms(Header, {uleb(0) + "\x07", uleb(0)})),
                 "field 'offsets[1]': 1 bytes follow rank 0's program before "
                 "the next starts"));
  // One round of one send to rank 1 whose block count lies in rank 1's bytes.
  std::string Send =
      uleb(1) + uleb(0) + uleb(1) + std::string(1, '\0') + uleb(2);
  std::string RunsOn =
      errorOf(withPrograms(Header, {Send, uleb(1) + uleb(0) + uleb(0)}));
  CHECK_MESSAGE(mentions(RunsOn, "rank 0, round 0, op 0: field 'blocks': "
                                 "rank 0's program ends here, where "
                                 "offsets[1] starts the next"),
                RunsOn);
}

TEST_CASE("a binary plan whose stored hash does not match is corrupt") {
  std::string Valid = withPrograms(binaryHeader(), {uleb(0), uleb(0)});
  REQUIRE(bool(decodePlan(Valid, "ok.cplan")));
  std::string Flipped = Valid;
  Flipped[12] ^= 0x10;
  CHECK(mentions(errorOf(Flipped, "h.cplan"),
                 "h.cplan: byte 9: field 'hash': the stored plan hash "));
  // An edit anywhere else that still decodes: requires_commutative 1 -> 0.
  std::string Edited = Valid;
  size_t At = binaryHeader().size() - 1;
  REQUIRE(Edited[At] == 1);
  Edited[At] = 0;
  std::string Message = errorOf(Edited, "e.cplan");
  CHECK_MESSAGE(
      mentions(Message, "does not match the file's header and program table ("),
      Message);
  CHECK_MESSAGE(mentions(Message, "): the file is corrupt or was edited"),
                Message);
  // An edit in rank 1's program (the last bytes of the file) is caught by
  // its hash in the table: by a whole read and by rank 1's slice, while
  // rank 0's slice, which never reads those bytes, stays readable.
  Plan Ring = compiledPlan("ring", Collective::Allreduce, Topology::flat(2));
  std::string InProgram = encodePlan(Ring, PlanFormat::Binary);
  InProgram.back() ^= 0x01;
  CHECK(mentions(errorOf(InProgram, "p.cplan"),
                 "rank 1's program does not match its hash in the table"));
  llvm::Expected<RankSlice> Rank1 = decodeRankSlice(InProgram, "p.cplan", 1);
  REQUIRE(!Rank1);
  CHECK(mentions(llvm::toString(Rank1.takeError()),
                 "rank 1's program does not match its hash"));
  llvm::Expected<RankSlice> Rank0 = decodeRankSlice(InProgram, "p.cplan", 0);
  REQUIRE_MESSAGE(bool(Rank0), llvm::toString(Rank0.takeError()));
  CHECK(Rank0->Hash == planHash(Ring));
}

TEST_CASE("every truncation of a valid file is an error, never a crash") {
  Plan P = handBuiltPlan();
  for (PlanFormat F :
       {PlanFormat::Binary, PlanFormat::Json, PlanFormat::Yaml}) {
    CAPTURE(formatName(F));
    std::string Bytes = encodePlan(P, F);
    size_t Step = F == PlanFormat::Binary ? 1 : 7;
    for (size_t N = 0; N < Bytes.size(); N += Step) {
      llvm::Expected<Plan> Q = decodePlan(Bytes.substr(0, N), "cut");
      if (F == PlanFormat::Binary || N < Bytes.size() / 2)
        CHECK_MESSAGE(!Q, "prefix of " << N << " bytes decoded");
      if (!Q)
        llvm::consumeError(Q.takeError());
    }
  }
}

/// Random edits of a valid file: flips, insertions, deletions, splices and
/// interesting values. Whatever comes out must be a plan or an error.
TEST_CASE("random mutations never crash the readers") {
  Plan P = compiledPlan("ring", Collective::Allreduce,
                        Topology::nodes(2, 3, RankMapping::Block));
  P.Header.Root = 1;
  P.Header.Buffers.push_back("tmp");
  std::mt19937_64 Rng(20240601);
  const unsigned char Interesting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, '[',  '{',
                                       '-',  ':',  '"',  '&',  '*',  '\n', '9'};
  for (PlanFormat F :
       {PlanFormat::Binary, PlanFormat::Json, PlanFormat::Yaml}) {
    CAPTURE(formatName(F));
    const std::string Valid = encodePlan(P, F);
    unsigned Decoded = 0, Sliced = 0;
    for (int Iteration = 0; Iteration < 3000; ++Iteration) {
      std::string S = Valid;
      int Edits = 1 + int(Rng() % 4);
      for (int E = 0; E < Edits && !S.empty(); ++E) {
        size_t At = Rng() % S.size();
        switch (Rng() % 6) {
        case 0:
          S[At] ^= char(1u << (Rng() % 8));
          break;
        case 1:
          S[At] = char(Interesting[Rng() % sizeof(Interesting)]);
          break;
        case 2:
          S.insert(At, 1, char(Rng()));
          break;
        case 3:
          S.erase(At, 1 + Rng() % 8);
          break;
        case 4: {
          size_t From = Rng() % S.size();
          S.insert(At, S.substr(From, 1 + Rng() % 32));
          break;
        }
        case 5:
          S.resize(At);
          break;
        }
      }
      // The stored hash refuses most binary mutants whole; a one-rank read
      // does not check it, so the program decoder still meets them.
      if (F == PlanFormat::Binary)
        for (uint32_t Rank : {0u, uint32_t(Rng() % P.Header.Ranks)}) {
          llvm::Expected<RankSlice> Slice = decodeRankSlice(S, "fuzz", Rank);
          if (Slice)
            ++Sliced;
          else
            llvm::consumeError(Slice.takeError());
        }
      llvm::Expected<Plan> Q = decodePlan(S, "fuzz");
      if (Q) {
        ++Decoded;
        (void)checkStructure(*Q);
        (void)encodePlan(*Q, F);
      } else {
        llvm::consumeError(Q.takeError());
      }
    }
    MESSAGE(formatName(F).str()
            << ": " << Decoded << " of 3000 mutants decoded, " << Sliced
            << " rank slices");
  }
}
