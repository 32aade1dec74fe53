//===- CostParamsFile.cpp - Cost parameters in a YAML file ----------------===//

#include "compiler/cost/CostParamsFile.h"

#include "plan/ir/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
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
                                                "injection_bandwidth"};
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
  return nullptr;
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
                  "' (known: alpha, beta, "
                  "gamma, alpha_intra, beta_intra, alpha_hop, "
                  "injection_bandwidth)");
    if (std::find(Seen.begin(), Seen.end(), Key.str()) != Seen.end())
      return Fail("key '" + Key.str() + "' given twice");
    // strtod over the whole value: "1e-6" yes; "abc", "1e-6s", "" no.
    std::string V = Value.str();
    char *End = nullptr;
    double D = V.empty() ? NAN : std::strtod(V.c_str(), &End);
    if (V.empty() || End != V.c_str() + V.size() || !std::isfinite(D))
      return Fail("key '" + Key.str() + "': expected a number, got '" + V +
                  "'");
    if (D <= 0)
      return Fail("key '" + Key.str() + "': expected a positive number, got '" +
                  V + "'");
    *Field = D;
    Seen.push_back(Key.str());
  }
  Into = Result;
  if (Set)
    *Set = std::move(Seen);
  return Error::success();
}

Error readCostParamsFile(StringRef Path, CostParams &Into,
                         std::vector<std::string> *Set) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return makeError(ErrorKind::Usage, "cannot read parameters file '%s': %s",
                     Path.str().c_str(), Buf.getError().message().c_str());
  return parseCostParams((*Buf)->getBuffer(), Path, Into, Set);
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
    if (V <= 0) // unset (intra = -1) or off (injection bandwidth 0)
      continue;
    char Buf[64];
    std::snprintf(Buf, sizeof(Buf), "%.6g", V);
    OS << Key << ": " << Buf << "\n";
  }
  OS.flush();
  // The temporary lives beside the target so that rename() is atomic.
  llvm::SmallString<256> Model(Path);
  Model += ".tmp%%%%%%";
  int FD = -1;
  llvm::SmallString<256> Temp;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Temp))
    return makeError(ErrorKind::Io, "cannot write parameters file '%s': %s",
                     Path.str().c_str(), EC.message().c_str());
  {
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Text;
    Out.close();
    if (Out.has_error()) {
      Out.clear_error();
      llvm::sys::fs::remove(Temp);
      return makeError(ErrorKind::Io, "cannot write parameters file '%s'",
                       Path.str().c_str());
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Path)) {
    llvm::sys::fs::remove(Temp);
    return makeError(ErrorKind::Io, "cannot write parameters file '%s': %s",
                     Path.str().c_str(), EC.message().c_str());
  }
  return Error::success();
}

} // namespace collplan
