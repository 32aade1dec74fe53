//===- CalibrationReport.cpp - What calibration found, three ways ---------===//

#include "runtime/calibrate/CalibrationReport.h"

#include "compiler/cost/CostParamsFile.h"
#include "plan/ir/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <map>

namespace collplan::runtime {
namespace {

std::string planName(const Plan &P) {
  return P.Header.Algorithm + " " + collectiveName(P.Header.Kind).str();
}

std::string scopeNote(const Calibration &C) {
  if (C.Nodes <= 1)
    return "all ranks on one node: alpha and beta are what its ranks pay "
           "between each other";
  return "ranks on several nodes: alpha and beta between nodes, alpha_intra "
         "and beta_intra within one";
}

/// Each plan's residuals: root mean square and largest |pred/meas - 1|.
struct PlanResidual {
  double Rms = 0, Max = 0;
};

std::vector<PlanResidual> residualsByPlan(const Calibration &C) {
  std::vector<PlanResidual> Out(C.Plans.size());
  std::vector<size_t> N(C.Plans.size(), 0);
  for (size_t I = 0; I < C.Timings.size(); ++I) {
    const PlanTiming &T = C.Timings[I];
    if (T.Seconds <= 0)
      continue;
    double R = C.Fit.Predicted[I] / T.Seconds - 1;
    Out[T.Plan].Rms += R * R;
    Out[T.Plan].Max = std::max(Out[T.Plan].Max, std::fabs(R));
    ++N[T.Plan];
  }
  for (size_t P = 0; P < Out.size(); ++P)
    Out[P].Rms = N[P] ? std::sqrt(Out[P].Rms / double(N[P])) : 0;
  return Out;
}

} // namespace

CostParams toCostParams(const Calibration &C) { return C.Params; }

void printCalibrationTable(llvm::raw_ostream &OS, const Calibration &C) {
  OS << "calibration over " << C.TransportName << ", " << C.Ranks
     << " ranks on " << C.Nodes << " node(s): " << C.Plans.size() << " plans, "
     << C.Timings.size() << " timings, "
     << (C.Fitted ? "parameters fitted" : "parameters given") << "\n\n";
  OS << "  plan                           P     bytes     measured    "
        "predicted pred/meas\n";
  for (size_t I = 0; I < C.Timings.size(); ++I) {
    const PlanTiming &T = C.Timings[I];
    const Plan &P = C.Plans[T.Plan];
    OS << llvm::format("  %-28s %3u %9llu %9.2f us %9.2f us %9.3f\n",
                       planName(P).c_str(), P.Header.Ranks,
                       (unsigned long long)T.Bytes, T.Seconds * 1e6,
                       C.Fit.Predicted[I] * 1e6,
                       T.Seconds > 0 ? C.Fit.Predicted[I] / T.Seconds : 0.0);
  }
  OS << "\n  relative residual |pred/meas - 1| per plan:\n";
  std::vector<PlanResidual> R = residualsByPlan(C);
  for (size_t P = 0; P < C.Plans.size(); ++P)
    OS << llvm::format("  %-28s %3u   rms %6.1f%%   max %6.1f%%\n",
                       planName(C.Plans[P]).c_str(), C.Plans[P].Header.Ranks,
                       100 * R[P].Rms, 100 * R[P].Max);
  OS << llvm::format("  all timings                        rms %6.1f%%   max "
                     "%6.1f%%\n\n",
                     100 * C.Fit.RmsRelativeResidual,
                     100 * C.Fit.MaxRelativeResidual);
  if (!C.Fit.Thresholds.empty()) {
    OS << "  size ranges tried (medium_message_bytes, large_message_bytes; "
          "0: off), |pred/meas - 1|:\n";
    for (const ThresholdTrial &T : C.Fit.Thresholds)
      OS << llvm::format("  %9.0f B %9.0f B   median %6.1f%%   rms %6.1f%%   "
                         "max %6.1f%%%s\n",
                         T.Medium, T.Large, 100 * T.Median, 100 * T.Rms,
                         100 * T.Max,
                         T.Medium == C.Params.MediumMessageBytes &&
                                 T.Large == C.Params.LargeMessageBytes
                             ? "   (chosen)"
                             : "");
    OS << "\n";
  }
  const CostParams &P = C.Params;
  OS << llvm::format("alpha %.4g s  beta %.4g s/B (%.3g GB/s)  gamma %.4g s/B",
                     P.Alpha, P.Beta, P.Beta > 0 ? 1e-9 / P.Beta : INFINITY,
                     P.Gamma);
  if (P.AlphaIntra >= 0)
    OS << llvm::format("  alpha_intra %.4g s  beta_intra %.4g s/B",
                       P.AlphaIntra, P.BetaIntra);
  OS << llvm::format("\noverhead %.4g s  overhead_per_byte %.4g s/B\n",
                     P.Overhead, P.OverheadPerByte);
  if (P.CoresPerNode > 0)
    OS << llvm::format("cores per node %.0f (counted, not fitted)\n",
                       P.CoresPerNode);
  if (P.MediumMessageBytes > 0)
    OS << llvm::format("above %.0f B: alpha_medium %.4g s  beta_medium %.4g "
                       "s/B\n",
                       P.MediumMessageBytes,
                       P.alphaFor(false, P.MediumMessageBytes + 1),
                       P.betaFor(false, P.MediumMessageBytes + 1));
  if (P.LargeMessageBytes > 0)
    OS << llvm::format("above %.0f B: alpha_large %.4g s  beta_large %.4g s/B "
                       "(%.3g GB/s)\n",
                       P.LargeMessageBytes, P.alphaFor(false, INFINITY),
                       P.betaFor(false, INFINITY),
                       P.betaFor(false, INFINITY) > 0
                           ? 1e-9 / P.betaFor(false, INFINITY)
                           : INFINITY);
  if (C.Fitted)
    OS << "fitted in " << C.Fit.Iterations << " iteration(s)\n";
  OS << llvm::format("reduction kernel alone: gamma %.4g s/B (", C.KernelGamma)
     << datatypeName(C.Type) << " " << reduceOpName(C.Op) << " over "
     << C.KernelGammaBytes << " B)\n";
  OS << "note: " << scopeNote(C) << "\n";
}

void printCalibrationJson(llvm::raw_ostream &OS, const Calibration &C,
                          llvm::StringRef ParamsFile) {
  llvm::json::OStream J(OS, 2);
  const CostParams &P = C.Params;
  J.object([&] {
    J.attribute("transport", C.TransportName);
    J.attribute("ranks", int64_t(C.Ranks));
    J.attribute("nodes", int64_t(C.Nodes));
    J.attribute("cores_per_node", C.CoresPerNode);
    J.attribute("mode", C.Fitted ? "fit" : "evaluate");
    J.attribute("params_file", ParamsFile);
    J.attributeObject("params", [&] {
      J.attribute("alpha", P.Alpha);
      J.attribute("beta", P.Beta);
      J.attribute("gamma", P.Gamma);
      if (P.AlphaIntra >= 0)
        J.attribute("alpha_intra", P.AlphaIntra);
      if (P.BetaIntra >= 0)
        J.attribute("beta_intra", P.BetaIntra);
      J.attribute("overhead", P.Overhead);
      J.attribute("overhead_per_byte", P.OverheadPerByte);
      if (P.CoresPerNode > 0)
        J.attribute("cores_per_node", P.CoresPerNode);
      if (P.MediumMessageBytes > 0) {
        J.attribute("medium_message_bytes", P.MediumMessageBytes);
        J.attribute("alpha_medium",
                    P.alphaFor(false, P.MediumMessageBytes + 1));
        J.attribute("beta_medium", P.betaFor(false, P.MediumMessageBytes + 1));
      }
      if (P.LargeMessageBytes > 0) {
        J.attribute("large_message_bytes", P.LargeMessageBytes);
        J.attribute("alpha_large", P.alphaFor(false, INFINITY));
        J.attribute("beta_large", P.betaFor(false, INFINITY));
      }
    });
    J.attributeArray("fitted_keys", [&] {
      if (C.Fitted)
        for (const std::string &K : C.Keys)
          J.value(K);
    });
    J.attribute("iterations", int64_t(C.Fit.Iterations));
    J.attribute("rms_relative_residual", C.Fit.RmsRelativeResidual);
    J.attribute("max_relative_residual", C.Fit.MaxRelativeResidual);
    if (!C.Fit.Thresholds.empty())
      J.attributeArray("size_ranges_tried", [&] {
        for (const ThresholdTrial &T : C.Fit.Thresholds)
          J.object([&] {
            J.attribute("medium_message_bytes", T.Medium);
            J.attribute("large_message_bytes", T.Large);
            J.attribute("median_relative_residual", T.Median);
            J.attribute("rms_relative_residual", T.Rms);
            J.attribute("max_relative_residual", T.Max);
          });
      });
    J.attributeArray("samples", [&] {
      for (size_t I = 0; I < C.Timings.size(); ++I) {
        const PlanTiming &T = C.Timings[I];
        const PlanHeader &H = C.Plans[T.Plan].Header;
        J.object([&] {
          J.attribute("algorithm", H.Algorithm);
          J.attribute("collective", collectiveName(H.Kind));
          J.attribute("ranks", int64_t(H.Ranks));
          J.attribute("bytes", int64_t(T.Bytes));
          J.attribute("measured", T.Seconds);
          J.attribute("predicted", C.Fit.Predicted[I]);
        });
      }
    });
    std::vector<PlanResidual> R = residualsByPlan(C);
    J.attributeArray("plans", [&] {
      for (size_t I = 0; I < C.Plans.size(); ++I)
        J.object([&] {
          const PlanHeader &H = C.Plans[I].Header;
          J.attribute("algorithm", H.Algorithm);
          J.attribute("collective", collectiveName(H.Kind));
          J.attribute("ranks", int64_t(H.Ranks));
          J.attribute("rms_relative_residual", R[I].Rms);
          J.attribute("max_relative_residual", R[I].Max);
        });
    });
    J.attributeObject("reduction", [&] {
      J.attribute("datatype", datatypeName(C.Type));
      J.attribute("op", reduceOpName(C.Op));
      J.attribute("bytes", int64_t(C.KernelGammaBytes));
      J.attribute("kernel_gamma", C.KernelGamma);
    });
    J.attribute("note", scopeNote(C));
  });
  OS << "\n";
}

llvm::Expected<Calibration> readCalibrationTimings(llvm::StringRef Json,
                                                   llvm::StringRef Name,
                                                   const PlanSource &Plans) {
  auto Bad = [&](const std::string &Why) {
    return makeError(ErrorKind::Usage, "%s: %s", Name.str().c_str(),
                     Why.c_str());
  };
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Json);
  if (!V)
    return Bad("not JSON: " + llvm::toString(V.takeError()));
  const llvm::json::Object *O = V->getAsObject();
  const llvm::json::Array *Samples = O ? O->getArray("samples") : nullptr;
  if (!Samples)
    return Bad("no \"samples\" (expected calibrate --format json output)");
  if (O->getInteger("nodes").getValueOr(1) != 1)
    return Bad("timings from several nodes cannot be re-fitted (their node "
               "map is not saved)");
  Calibration C;
  C.TransportName = O->getString("transport").getValueOr("saved").str();
  C.Nodes = 1;
  C.CoresPerNode = O->getNumber("cores_per_node").getValueOr(0);
  if (!(C.CoresPerNode >= 0 && C.CoresPerNode <= 1e6))
    return Bad("cores_per_node must be a count of cores");
  std::map<std::pair<uint32_t, std::string>, uint32_t> Index;
  for (const llvm::json::Value &SV : *Samples) {
    const llvm::json::Object *S = SV.getAsObject();
    if (!S)
      return Bad("a sample is not an object");
    llvm::Optional<int64_t> Ranks = S->getInteger("ranks");
    llvm::Optional<int64_t> Bytes = S->getInteger("bytes");
    llvm::Optional<double> Seconds = S->getNumber("measured");
    llvm::Optional<llvm::StringRef> Family = S->getString("algorithm");
    llvm::Optional<llvm::StringRef> Kind = S->getString("collective");
    if (!Ranks || *Ranks < 2 || *Ranks > 1024 || !Bytes || *Bytes < 0 ||
        !Seconds || !Family || !Kind)
      return Bad("a sample lacks ranks, bytes, measured, algorithm or "
                 "collective");
    uint32_t P = uint32_t(*Ranks);
    C.Ranks = std::max(C.Ranks, P);
    std::string Key = Family->str() + " " + Kind->str();
    if (!Index.count({P, Key})) {
      llvm::Expected<std::vector<Plan>> Built = Plans(Topology::nodes(1, P));
      if (!Built)
        return Built.takeError();
      for (Plan &Pl : *Built) {
        std::string K = planName(Pl);
        Index[{P, K}] = uint32_t(C.Plans.size());
        C.Plans.push_back(std::move(Pl));
      }
      if (!Index.count({P, Key}))
        return Bad("no calibration plan '" + Key + "'");
    }
    C.Timings.push_back({Index[{P, Key}], uint64_t(*Bytes), *Seconds});
  }
  return C;
}

llvm::Error writeCalibration(llvm::StringRef Path, const Calibration &C) {
  std::string Comment;
  llvm::raw_string_ostream OS(Comment);
  OS << "collplan cost parameters, fitted by collplan calibrate over "
     << C.TransportName << " (" << C.Ranks << " ranks, " << C.Nodes
     << " node(s)) to the times of " << C.Plans.size() << " plans at "
     << C.Timings.size() << " points.\n"
     << "alpha: s per message; beta: s per byte; gamma: s per reduced byte ("
     << datatypeName(C.Type) << " " << reduceOpName(C.Op) << ").\n"
     << scopeNote(C) << ".\n"
     << llvm::format("relative residual: rms %.1f%%, max %.1f%%.\n",
                     100 * C.Fit.RmsRelativeResidual,
                     100 * C.Fit.MaxRelativeResidual);
  OS.flush();
  // Only what was fitted: the torus and injection terms keep their
  // defaults (or flags) when the file is read.
  // The cores the fit priced the plans with go with what it fitted.
  std::vector<std::string> Keys = C.Keys;
  if (C.Params.CoresPerNode > 0)
    Keys.push_back("cores_per_node");
  return writeCostParamsFile(Path, toCostParams(C), Keys, Comment);
}

} // namespace collplan::runtime
