//===- CalibrationReport.cpp - What calibration found, three ways ---------===//

#include "runtime/calibrate/CalibrationReport.h"

#include "compiler/cost/CostParamsFile.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

namespace collplan::runtime {

CostParams toCostParams(const Calibration &C) {
  CostParams P;
  const LinkFit &Main = C.Inter.Measured ? C.Inter : C.Intra;
  if (Main.Measured) {
    P.Alpha = Main.Alpha;
    P.Beta = Main.Beta;
  }
  if (C.Inter.Measured && C.Intra.Measured) {
    P.AlphaIntra = C.Intra.Alpha;
    P.BetaIntra = C.Intra.Beta;
  }
  if (C.Gamma > 0)
    P.Gamma = C.Gamma;
  return P;
}

static std::string scopeNote(const Calibration &C) {
  if (C.Nodes <= 1)
    return "all ranks on one node: only intra-node was measured (alpha and "
           "beta are the intra-node figures)";
  if (!C.Intra.Measured)
    return "one rank per node: only inter-node was measured";
  return "intra-node and inter-node measured separately";
}

void printCalibrationTable(llvm::raw_ostream &OS, const Calibration &C) {
  OS << "calibration over " << C.TransportName << ", " << C.Ranks
     << " ranks on " << C.Nodes << " node(s)\n";
  for (const LinkFit *F : {&C.Intra, &C.Inter}) {
    if (!F->Measured)
      continue;
    OS << "\n"
       << (F == &C.Intra ? "intra-node" : "inter-node") << " (ranks "
       << F->RankA << " and " << F->RankB << ")\n";
    OS << "         bytes       measured            fit   rel.err\n";
    for (const PingPongSample &S : F->Samples) {
      double Fit = F->Alpha + F->Beta * double(S.Bytes);
      OS << llvm::format("  %12llu %11.3f us %11.3f us %8.1f%%\n",
                         (unsigned long long)S.Bytes, S.Seconds * 1e6,
                         Fit * 1e6, 100 * (Fit - S.Seconds) / S.Seconds);
    }
    OS << llvm::format("  alpha %.4g s  beta %.4g s/B (%.3g GB/s)  R^2 %.5f  "
                       "rms relative residual %.1f%%\n",
                       F->Alpha, F->Beta, 1e-9 / F->Beta, F->R2,
                       100 * F->RmsRelativeResidual);
  }
  OS << llvm::format("\ngamma %.4g s/B (%.3g GB/s): ", C.Gamma, 1e-9 / C.Gamma)
     << datatypeName(C.Type) << " " << reduceOpName(C.Op) << " over "
     << C.GammaBytes << " B\n";
  OS << "note: " << scopeNote(C) << "\n";
}

void printCalibrationJson(llvm::raw_ostream &OS, const Calibration &C,
                          llvm::StringRef ParamsFile) {
  llvm::json::OStream J(OS, 2);
  CostParams P = toCostParams(C);
  J.object([&] {
    J.attribute("transport", C.TransportName);
    J.attribute("ranks", int64_t(C.Ranks));
    J.attribute("nodes", int64_t(C.Nodes));
    J.attribute("params_file", ParamsFile);
    J.attributeObject("params", [&] {
      J.attribute("alpha", P.Alpha);
      J.attribute("beta", P.Beta);
      J.attribute("gamma", P.Gamma);
      if (P.AlphaIntra >= 0) {
        J.attribute("alpha_intra", P.AlphaIntra);
        J.attribute("beta_intra", P.BetaIntra);
      }
    });
    for (const LinkFit *F : {&C.Intra, &C.Inter}) {
      if (!F->Measured)
        continue;
      J.attributeObject(F == &C.Intra ? "intra_node" : "inter_node", [&] {
        J.attribute("ranks", llvm::json::Array{F->RankA, F->RankB});
        J.attribute("alpha", F->Alpha);
        J.attribute("beta", F->Beta);
        J.attribute("r2", F->R2);
        J.attribute("rms_relative_residual", F->RmsRelativeResidual);
        J.attributeArray("samples", [&] {
          for (const PingPongSample &S : F->Samples)
            J.object([&] {
              J.attribute("bytes", int64_t(S.Bytes));
              J.attribute("seconds", S.Seconds);
            });
        });
      });
    }
    J.attributeObject("reduction", [&] {
      J.attribute("datatype", datatypeName(C.Type));
      J.attribute("op", reduceOpName(C.Op));
      J.attribute("bytes", int64_t(C.GammaBytes));
      J.attribute("gamma", C.Gamma);
    });
    J.attribute("note", scopeNote(C));
  });
  OS << "\n";
}

llvm::Error writeCalibration(llvm::StringRef Path, const Calibration &C) {
  std::string Comment;
  llvm::raw_string_ostream OS(Comment);
  OS << "collplan cost parameters, measured by collplan calibrate over "
     << C.TransportName << " (" << C.Ranks << " ranks, " << C.Nodes
     << " node(s)).\n"
     << "alpha: s per message; beta: s per byte; gamma: s per reduced byte ("
     << datatypeName(C.Type) << " " << reduceOpName(C.Op) << ").\n"
     << scopeNote(C) << ".\n";
  for (const LinkFit *F : {&C.Intra, &C.Inter})
    if (F->Measured)
      OS << (F == &C.Intra ? "intra" : "inter") << "-node fit: R^2 "
         << llvm::format("%.5f", F->R2) << ", rms relative residual "
         << llvm::format("%.1f%%", 100 * F->RmsRelativeResidual) << ".\n";
  OS.flush();
  // Only what was measured: the torus and injection terms keep their
  // defaults (or flags) when the file is read.
  return writeCostParamsFile(
      Path, toCostParams(C),
      {"alpha", "beta", "gamma", "alpha_intra", "beta_intra"}, Comment);
}

} // namespace collplan::runtime
