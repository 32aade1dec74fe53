//===- MeasuredOpenMpiRulesTest.cpp - Open MPI rules from measurements ---===//
//
// Hand-worked: four measured sizes of an allreduce on 4 ranks, Open MPI's
// own decision against three forced algorithms, noise band 5 %. The
// expected rules are worked out here from the times, not by the code.
//
//===----------------------------------------------------------------------===//

#include "compiler/tuning/TuningFiles.h"

#include <doctest/doctest.h>

using namespace collplan;

namespace {

SizeMeasurement size(uint64_t Bytes, double Own,
                     std::vector<std::pair<std::string, double>> Forced) {
  SizeMeasurement M;
  M.Bytes = Bytes;
  M.LibrarySeconds = Own;
  for (auto &[Name, Seconds] : Forced) {
    DispatchRule R;
    R.File = Name;
    M.Plans.emplace_back(R, Seconds);
  }
  return M;
}

const std::vector<LibraryAlgorithm> Algorithms = {
    {3, "recursive_doubling"}, {4, "ring"}, {6, "rabenseifner"}};

} // namespace

TEST_CASE("each size keeps Open MPI's own decision unless an algorithm "
          "beats it by more than the noise band") {
  std::vector<SizeMeasurement> Sizes = {
      // 10 us against 9.8 us: 2 % faster, inside the band: 0.
      size(1024, 10e-6,
           {{"recursive_doubling", 9.8e-6},
            {"ring", 30e-6},
            {"rabenseifner", 12e-6}}),
      // Ring 80 us against 100 us: ring (4).
      size(65536, 100e-6,
           {{"recursive_doubling", 150e-6},
            {"ring", 80e-6},
            {"rabenseifner", 90e-6}}),
      // Ring again at 256 KiB: merges with the rule above.
      size(262144, 400e-6,
           {{"recursive_doubling", 600e-6},
            {"ring", 300e-6},
            {"rabenseifner", 350e-6}}),
      // Rabenseifner 0.8 ms against 1 ms: 6.
      size(1048576, 1e-3,
           {{"recursive_doubling", 2e-3},
            {"ring", 0.9e-3},
            {"rabenseifner", 0.8e-3}}),
  };
  OpenMpiRuleTable T =
      measuredOpenMpiRules(Collective::Allreduce, 4, Sizes, Algorithms, 0.05);
  CHECK(T.Kind == Collective::Allreduce);
  CHECK(T.Ranks == 4);
  // Boundaries: the geometric middles sqrt(1024 * 65536) = 8192 and
  // sqrt(262144 * 1048576) = 524288; 65536 and 262144 merged.
  REQUIRE(T.Rules.size() == 3);
  CHECK(T.Rules[0].MinBytes == 0);
  CHECK(T.Rules[0].Algorithm == 0);
  CHECK(T.Rules[1].MinBytes == 8192);
  CHECK(T.Rules[1].Algorithm == 4);
  CHECK(T.Rules[2].MinBytes == 524288);
  CHECK(T.Rules[2].Algorithm == 6);
  // The merged rule keeps both sizes' evidence.
  CHECK(T.Rules[1].Why.find("64 KiB") != std::string::npos);
  CHECK(T.Rules[1].Why.find("256 KiB") != std::string::npos);
}

TEST_CASE("the rules file: counts, ids and one line per rule") {
  OpenMpiRuleTable A{
      Collective::Allreduce, 4, {{0, 0, "own"}, {8192, 4, "ring"}}};
  OpenMpiRuleTable R{Collective::ReduceScatter, 4, {{0, 3, "halving"}}};
  std::string Text = openMpiRulesText({A, R}, "made by hand");
  // Comments dropped, the numbers Open MPI 4.1 reads, in order: 2
  // collectives; allreduce (2), one communicator size, 4 ranks, 2 rules;
  // reduce_scatter_block (13), one size, 4 ranks, 1 rule.
  std::string Numbers;
  size_t Begin = 0;
  while (Begin < Text.size()) {
    size_t End = Text.find('\n', Begin);
    std::string Line = Text.substr(Begin, End - Begin);
    Begin = End + 1;
    Line = Line.substr(0, Line.find('#'));
    while (!Line.empty() && Line.back() == ' ')
      Line.pop_back();
    if (!Line.empty())
      Numbers += Line + "|";
  }
  CHECK(Numbers == "2|2|1|4|2|0 0 0 0|8192 4 0 0|13|1|4|1|0 3 0 0|");
  CHECK(Text.rfind("# made by hand", 0) == 0);
}
