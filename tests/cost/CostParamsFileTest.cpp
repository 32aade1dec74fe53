//===- CostParamsFileTest.cpp - The --params file, written and read -------===//
//
// What calibrate writes reads back as the same doubles, zeros included (a
// fit may find a term negligible, and the file must say 0 rather than let
// the default stand in); the file refuses exactly what the cost flags
// refuse (parseCostNumber): a sign, hex, inf, nan, past 1e30.
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostParamsFile.h"

#include <doctest/doctest.h>

#include "llvm/Support/FileSystem.h"

#include <string>

using namespace collplan;

TEST_CASE("the parameters file round-trips every key, zeros included") {
  CostParams P;
  P.Alpha = 5.374112233445566e-06;
  P.Beta = 2.1146512345678e-10;
  P.Gamma = 0; // fitted negligible
  P.AlphaIntra = 1.25e-6;
  P.BetaIntra = 3e-11;
  P.AlphaHop = 4e-7;
  P.InjectionBandwidth = 2.5e10;
  P.Overhead = 3.3333333333333335e-06;
  P.OverheadPerByte = 1.7e-10;
  P.MediumMessageBytes = 4096;
  P.AlphaMedium = 1.1e-5;
  P.BetaMedium = 1.6e-10;
  P.LargeMessageBytes = 1048576;
  P.AlphaLarge = 1.5e-5;
  P.BetaLarge = 6.6e-10;
  P.CoresPerNode = 2;
  llvm::SmallString<128> Path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("params", "yaml", Path));
  REQUIRE(!writeCostParamsFile(Path, P, costParamKeys(), "a comment\nline 2"));
  CostParams Q;
  std::vector<std::string> Set;
  REQUIRE(!readCostParamsFile(Path, Q, &Set));
  llvm::sys::fs::remove(Path);
  CHECK(Set == costParamKeys());
  for (const std::string &Key : costParamKeys())
    CHECK_MESSAGE(*costParamField(Q, Key) == *costParamField(P, Key), Key);
}

TEST_CASE("an unset intra-node or large-message field is left out, and "
          "stays unset") {
  CostParams P; // the intra-node and size ranges' alpha and beta are -1
  llvm::SmallString<128> Path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("params", "yaml", Path));
  REQUIRE(!writeCostParamsFile(Path, P, costParamKeys(), ""));
  CostParams Q;
  std::vector<std::string> Set;
  REQUIRE(!readCostParamsFile(Path, Q, &Set));
  llvm::sys::fs::remove(Path);
  CHECK(Q.AlphaIntra < 0);
  CHECK(Q.BetaIntra < 0);
  CHECK(std::find(Set.begin(), Set.end(), "alpha_intra") == Set.end());
  CHECK(Q.AlphaMedium < 0);
  CHECK(Q.AlphaLarge < 0);
  CHECK(Q.BetaLarge < 0);
  CHECK(Q.LargeMessageBytes == 0); // written as 0: off
  CHECK(std::find(Set.begin(), Set.end(), "beta_large") == Set.end());
}

TEST_CASE("the file takes what the flags take, and refuses what they refuse") {
  for (const char *Value : {"0", "0.0", "2e-6", "1e30", "5", "1E-9"}) {
    CostParams Q;
    std::string Text = std::string("overhead: ") + Value + "\n";
    CHECK_MESSAGE(!parseCostParams(Text, "t", Q, nullptr), Value);
    CHECK(parseCostNumber(Value).has_value());
  }
  for (const char *Value :
       {"-1e-6", "0x10", "inf", "nan", "1e308", "1e-6s", "", "+1"}) {
    CostParams Q;
    std::string Text = std::string("overhead_per_byte: ") + Value + "\n";
    llvm::Error E = parseCostParams(Text, "t", Q, nullptr);
    CHECK_MESSAGE(bool(E), Value);
    llvm::consumeError(std::move(E));
    CHECK_MESSAGE(!parseCostNumber(Value).has_value(), Value);
  }
}

TEST_CASE("the size-range keys take and refuse what their flags do") {
  CostParams Q;
  REQUIRE(!parseCostParams("large_message_bytes: 4096\nalpha_large: 1e-5\n"
                           "beta_large: 0\n",
                           "t", Q, nullptr));
  CHECK(Q.LargeMessageBytes == 4096);
  CHECK(Q.AlphaLarge == 1e-5);
  CHECK(Q.BetaLarge == 0);
  // A size with a unit, hex, a sign or past 1e30 is not a number here, as
  // --large-message-bytes refuses it (parseCostNumber).
  for (const char *Line :
       {"large_message_bytes: 4KiB", "large_message_bytes: 0x1000",
        "large_message_bytes: -1", "alpha_large: 1e308", "beta_large: nan",
        "medium_message_bytes: 1e31", "alpha_medium: inf", "beta_medium: -0"}) {
    CostParams R;
    llvm::Error E = parseCostParams(Line, "t", R, nullptr);
    CHECK_MESSAGE(bool(E), Line);
    llvm::consumeError(std::move(E));
  }
}

TEST_CASE("cores_per_node takes and refuses what --cores-per-node does") {
  CostParams Q;
  REQUIRE(!parseCostParams("cores_per_node: 64\n", "t", Q, nullptr));
  CHECK(Q.CoresPerNode == 64);
  REQUIRE(!parseCostParams("cores_per_node: 0\n", "t", Q, nullptr));
  CHECK(Q.CoresPerNode == 0); // off
  for (const char *Line : {"cores_per_node: -2", "cores_per_node: 0x10",
                           "cores_per_node: 1e308", "cores_per_node: inf",
                           "cores_per_node: 2 cores"}) {
    CostParams R;
    llvm::Error E = parseCostParams(Line, "t", R, nullptr);
    CHECK_MESSAGE(bool(E), Line);
    llvm::consumeError(std::move(E));
  }
}
