//===- CostParamsFile.cpp - Cost parameters in a YAML file ----------------===//

#include "compiler/cost/CostParamsFile.h"

#include "plan/ir/Error.h"
#include "plan/ir/FileIo.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using llvm::Error;
using llvm::StringRef;

namespace collplan {

const std::vector<std::string> &costParamKeys() {
  static const std::vector<std::string> Keys = {"alpha",
                                                "beta",
                                                "gamma",
                                                "alpha_intra",
                                                "beta_intra",
                                                "alpha_hop",
                                                "injection_bandwidth",
                                                "overhead",
                                                "overhead_per_byte",
                                                "medium_message_bytes",
                                                "alpha_medium",
                                                "beta_medium",
                                                "large_message_bytes",
                                                "alpha_large",
                                                "beta_large",
                                                "cores_per_node"};
  return Keys;
}

double *costParamField(CostParams &P, StringRef Key) {
  if (Key == "alpha")
    return &P.Alpha;
  if (Key == "beta")
    return &P.Beta;
  if (Key == "gamma")
    return &P.Gamma;
  if (Key == "alpha_intra")
    return &P.AlphaIntra;
  if (Key == "beta_intra")
    return &P.BetaIntra;
  if (Key == "alpha_hop")
    return &P.AlphaHop;
  if (Key == "injection_bandwidth")
    return &P.InjectionBandwidth;
  if (Key == "overhead")
    return &P.Overhead;
  if (Key == "overhead_per_byte")
    return &P.OverheadPerByte;
  if (Key == "medium_message_bytes")
    return &P.MediumMessageBytes;
  if (Key == "alpha_medium")
    return &P.AlphaMedium;
  if (Key == "beta_medium")
    return &P.BetaMedium;
  if (Key == "large_message_bytes")
    return &P.LargeMessageBytes;
  if (Key == "alpha_large")
    return &P.AlphaLarge;
  if (Key == "beta_large")
    return &P.BetaLarge;
  if (Key == "cores_per_node")
    return &P.CoresPerNode;
  return nullptr;
}

/// Whether Text is a plain decimal number, optionally in scientific
/// notation: digits with at most one '.', then an optional exponent. No
/// sign, hex ("0x10"), "inf" or "nan", which strtod would take.
static bool isPlainDecimal(StringRef Text) {
  size_t I = 0, Mantissa = 0;
  bool Dot = false;
  for (; I < Text.size(); ++I) {
    if (Text[I] == '.' && !Dot)
      Dot = true;
    else if (llvm::isDigit(Text[I]))
      ++Mantissa;
    else
      break;
  }
  if (Mantissa == 0)
    return false;
  if (I < Text.size() && (Text[I] == 'e' || Text[I] == 'E')) {
    ++I;
    if (I < Text.size() && (Text[I] == '+' || Text[I] == '-'))
      ++I;
    size_t Exponent = I;
    while (I < Text.size() && llvm::isDigit(Text[I]))
      ++I;
    if (I == Exponent)
      return false;
  }
  return I == Text.size();
}

std::optional<double> parseCostNumber(StringRef Text) {
  Text = Text.trim();
  if (!isPlainDecimal(Text))
    return std::nullopt;
  double V = std::strtod(Text.str().c_str(), nullptr);
  if (!std::isfinite(V) || V > MaxCostNumber)
    return std::nullopt;
  return V;
}

Error parseCostParams(StringRef Text, StringRef Name, CostParams &Into,
                      std::vector<std::string> *Set) {
  CostParams Result = Into;
  std::vector<std::string> Seen;
  llvm::SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    unsigned LineNo = unsigned(I + 1);
    StringRef Line = Lines[I].split('#').first.trim();
    if (Line.empty() || Line == "---" || Line == "...")
      continue;
    auto KV = Line.split(':');
    StringRef Key = KV.first.trim(), Value = KV.second.trim();
    auto Fail = [&](const std::string &Why) {
      return makeError(ErrorKind::Usage, "%s:%u: %s", Name.str().c_str(),
                       LineNo, Why.c_str());
    };
    if (Line.find(':') == StringRef::npos)
      return Fail("expected 'key: number', got '" + Line.str() + "'");
    double *Field = costParamField(Result, Key);
    if (!Field)
      return Fail("unknown key '" + Key.str() +
                  "' (known: " + llvm::join(costParamKeys(), ", ") + ")");
    if (std::find(Seen.begin(), Seen.end(), Key.str()) != Seen.end())
      return Fail("key '" + Key.str() + "' given twice");
    std::optional<double> D = parseCostNumber(Value);
    // A sign is not part of a number here: "-1e-6" is not non-negative.
    if (!D && !parseCostNumber(Value.drop_front(Value.startswith("-"))))
      return Fail("key '" + Key.str() +
                  "': expected a number (plain decimal such as 2e-6 or 0.5, "
                  "at most 1e30), got '" +
                  Value.str() + "'");
    // What the flags take: 0 too (a fit can find a cost negligible, and
    // its file must say so rather than fall back to the default).
    if (!D)
      return Fail("key '" + Key.str() +
                  "': expected a non-negative number, got '" + Value.str() +
                  "'");
    *Field = *D;
    Seen.push_back(Key.str());
  }
  Into = Result;
  if (Set)
    *Set = std::move(Seen);
  return Error::success();
}

Error readCostParamsFile(StringRef Path, CostParams &Into,
                         std::vector<std::string> *Set) {
  // One line a key: a few hundred bytes; a pipe may stand for the file.
  llvm::Expected<std::string> Text = readBoundedFile(
      Path, MaxCostParamsFileBytes, "parameters file", PipeInput::Allow);
  if (!Text)
    return Text.takeError();
  return parseCostParams(*Text, Path, Into, Set);
}

Error writeCostParamsFile(StringRef Path, const CostParams &P,
                          const std::vector<std::string> &Keys,
                          StringRef Comment) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  llvm::SmallVector<StringRef, 8> Lines;
  Comment.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines)
    OS << "# " << L << "\n";
  CostParams Copy = P;
  for (const std::string &Key : Keys) {
    double V = *costParamField(Copy, Key);
    if (V < 0) // unset (intra = -1)
      continue;
    // Enough digits that reading the file gives the same double back.
    char Buf[64];
    std::snprintf(Buf, sizeof(Buf), "%.17g", V);
    OS << Key << ": " << Buf << "\n";
  }
  OS.flush();
  return writeFileAtomically(Path, Text, "parameters file");
}

} // namespace collplan
