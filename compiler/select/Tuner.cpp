//===- Tuner.cpp - One compile pipeline: candidates, prices, the best plan ===//

#include "compiler/select/Tuner.h"

#include "compiler/cost/CostModel.h"
#include "compiler/verify/Verifier.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

namespace collplan {

namespace {} // namespace

// Each round lasts as long as rank 0's slowest message, plus its
// reductions after what it receives.
double rankZeroTime(const PlanHeader &H, const Program &Rank0,
                    const CompileRequest &Request) {
  const CostParams &C = Request.Cost;
  MessageBytes Size(H, Request.Bytes, C.ElementBytes);
  double Time = 0;
  for (const Round &Rd : Rank0.Rounds) {
    double Received = 0, Sent = 0, Reduced = 0;
    for (const Op &O : Rd.Ops) {
      double B = Size.of(O.Blocks);
      // An empty transfer is skipped by both sides (CostModel.h).
      double Message = B > 0 ? C.Alpha + C.Beta * B : 0;
      if (O.Kind == OpKind::Send)
        Sent = std::max(Sent, Message);
      else if (O.Kind == OpKind::Recv)
        Received = std::max(Received, Message);
      if (O.Kind != OpKind::Send && O.Mode == Combine::Reduce)
        Reduced += B;
    }
    Time += std::max(Received + C.Gamma * Reduced, Sent);
  }
  return Time;
}

namespace {

bool flatOnePerNode(const Topology &T) {
  return T.kind() == TopologyKind::Flat && T.ranksPerNode() == 1;
}

/// The request's parameters that A knows: with several families, each
/// takes only its own.
CompileRequest requestFor(const Algorithm &A, const CompileRequest &Request) {
  CompileRequest Own = Request;
  std::erase_if(Own.Params,
                [&](const auto &KV) { return !knowsParam(A, KV.first); });
  return Own;
}

std::string formatTime(double Seconds) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  if (Seconds >= 1)
    OS << llvm::format("%.3f s", Seconds);
  else if (Seconds >= 1e-3)
    OS << llvm::format("%.3f ms", Seconds * 1e3);
  else
    OS << llvm::format("%.3f us", Seconds * 1e6);
  return OS.str();
}

std::string paramText(const std::map<std::string, std::string> &Params) {
  std::string Out;
  for (const auto &[Name, Value] : Params)
    Out += (Out.empty() ? "" : " ") + Name + "=" + Value;
  return Out;
}

} // namespace

namespace {

/// One (family, parameter setting) to price: the request it is built from.
struct Setting {
  const Algorithm *Algo;
  CompileRequest Req;
};

/// Every setting of Families (every family implementing the collective when
/// empty) for Request. A family that cannot serve the request at all is
/// returned as a skipped candidate, or as the error when it is the only one.
llvm::Error settingsOf(
    const CompileRequest &Request, llvm::ArrayRef<const Algorithm *> Families,
    std::vector<Setting> &Settings, std::vector<Candidate> &Skipped,
    std::map<std::string, std::vector<std::string>> *ParamTakers = nullptr) {
  bool Auto = Families.empty();
  std::vector<const Algorithm *> Tried;
  for (const Algorithm *A : Auto ? allAlgorithms() : Families)
    if (!Auto || A->supports(Request.Kind))
      Tried.push_back(A);
  // With auto, each family takes the parameters it knows; one that none of
  // them knows would be silently ignored, so it is refused.
  if (Auto)
    for (const auto &[Name, Value] : Request.Params) {
      std::vector<std::string> Takers;
      for (const Algorithm *A : Tried)
        if (knowsParam(*A, Name))
          Takers.push_back(A->name().str());
      if (Takers.empty())
        return makeError(ErrorKind::Usage,
                         "--param %s: no algorithm implementing %s has a "
                         "parameter '%s' (see 'collplan list'); name the "
                         "algorithm with --algorithm or drop it",
                         Name.c_str(),
                         collectiveName(Request.Kind).str().c_str(),
                         Name.c_str());
      if (ParamTakers)
        (*ParamTakers)[Name] = std::move(Takers);
    }
  for (const Algorithm *A : Tried) {
    CompileRequest Own = Auto ? requestFor(*A, Request) : Request;
    if (llvm::Error E = checkRequest(*A, Own)) {
      if (Tried.size() == 1)
        return E;
      Skipped.push_back(
          {A, Own.Params, 0, 0, false, llvm::toString(std::move(E))});
      continue;
    }
    for (std::map<std::string, std::string> &Choice : A->candidates(Own)) {
      CompileRequest Try = Own;
      Try.Params.merge(Choice);
      Settings.push_back({A, std::move(Try)});
    }
  }
  return llvm::Error::success();
}

/// A setting priced at several message sizes.
struct Priced {
  Candidate C;
  std::vector<double> Times; ///< One per size; empty when skipped.
};

/// Why a built plan may not be chosen although it is valid: its ranks end
/// with different bits when the request asks for identical results. Verdict
/// receives the verifier's result when it ran to the end (a valid plan with
/// identical results), so the plan need not be verified again.
std::string rankDependence(const Plan &P, const CompileRequest &Req,
                           std::optional<VerifyResult> &Verdict) {
  if (!Req.IdenticalResults || P.Header.Kind != Collective::Allreduce)
    return "";
  VerifyOptions Options;
  Options.StopAtDifferentOrders = true;
  VerifyResult V = verifyPlan(P, Options);
  if (V.IdenticalResults) {
    if (V.Valid)
      Verdict = std::move(V);
    return "";
  }
  return "results may differ in the last bits between ranks (" +
         V.DifferentOrders + "); --allow-rank-dependent-rounding allows it";
}

Priced price(const Setting &S, llvm::ArrayRef<uint64_t> Sizes) {
  const Algorithm &A = *S.Algo;
  Priced Out{{&A, S.Req.Params, 0, 0, false, ""}, {}};
  llvm::Expected<PlanHeader> H = A.prepare(S.Req);
  if (!H) {
    Out.C.Skipped = llvm::toString(H.takeError());
    return Out;
  }
  Out.C.Params = H->Params;
  // A candidate too large to ever build is refused from its estimate, in
  // bounded memory.
  uint64_t Limit = maxPlanOps();
  PlanSizeEstimate Size = estimatePlanOps(A, *H, Limit);
  uint64_t Ops = Size.Ops;
  const Program &First = Size.First;
  if (Ops > Limit) {
    Out.C.Skipped = "about " + std::to_string(Ops) + " operations: more than " +
                    maxPlanOpsText();
    return Out;
  }
  if (Ops <= MaxOpsToPrice) {
    llvm::Expected<Plan> P = compilePlan(A, S.Req);
    if (!P) {
      Out.C.Skipped = llvm::toString(P.takeError());
      return Out;
    }
    for (uint64_t Bytes : Sizes) {
      CostReport R = evaluateCost(*P, Bytes, S.Req.Cost);
      Out.Times.push_back(R.Time);
      Out.C.Rounds = R.Rounds.size();
    }
  } else if (A.rankSymmetric(*H) && flatOnePerNode(H->Topo) &&
             (S.Req.CommutativeOperator || !H->RequiresCommutative)) {
    for (uint64_t Bytes : Sizes) {
      CompileRequest At = S.Req;
      At.Bytes = Bytes;
      Out.Times.push_back(rankZeroTime(*H, First, At));
    }
    Out.C.Rounds = First.Rounds.size();
    Out.C.FromRankZero = true;
  } else {
    Out.C.Skipped =
        "about " + std::to_string(Ops) + " operations: too large to price";
    return Out;
  }
  Out.C.PredictedTime = Out.Times.front();
  return Out;
}

/// Prices every setting, on one thread per core: settings are independent
/// and building their plans is most of a tuner's time at large P. Progress
/// is reported in completion order, one call at a time.
std::vector<Priced>
priceAll(llvm::ArrayRef<Setting> Settings, llvm::ArrayRef<uint64_t> Sizes,
         llvm::function_ref<void(uint32_t, uint32_t)> Pricing) {
  std::vector<Priced> All(Settings.size());
  std::atomic<size_t> Next{0};
  uint32_t Done = 0;
  std::mutex Lock;
  auto Work = [&] {
    for (size_t I; (I = Next++) < Settings.size();) {
      All[I] = price(Settings[I], Sizes);
      std::lock_guard<std::mutex> Guard(Lock);
      ++Done;
      if (Pricing)
        Pricing(Done, Settings.size());
    }
  };
  unsigned Threads =
      std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, 8);
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < std::min<size_t>(Threads, Settings.size()); ++T)
    Pool.emplace_back(Work);
  Work();
  for (std::thread &T : Pool)
    T.join();
  return All;
}

} // namespace

llvm::Expected<Compilation>
compile(const CompileRequest &Request,
        llvm::ArrayRef<const Algorithm *> Families,
        llvm::function_ref<void(uint32_t, uint32_t)> Progress,
        llvm::function_ref<void(uint32_t, uint32_t)> Pricing) {
  Compilation Out;
  std::vector<Setting> Settings;
  if (llvm::Error E = settingsOf(Request, Families, Settings, Out.Candidates,
                                 &Out.ParamTakers))
    return E;
  // One setting: nothing to choose, build it (with progress).
  if (Settings.size() == 1 && Out.Candidates.empty()) {
    llvm::Expected<Plan> P =
        compilePlan(*Settings[0].Algo, Settings[0].Req, Progress);
    if (!P)
      return P.takeError();
    Out.Chosen = Settings[0].Algo;
    Out.Candidates.push_back(
        {Out.Chosen, P->Header.Params,
         evaluateCost(*P, Request.Bytes, Request.Cost).Time, 0, false, ""});
    Out.Best = std::move(*P);
    return Out;
  }

  size_t Base = Out.Candidates.size(); // Settings[I] is Candidates[Base + I].
  for (Priced &Each : priceAll(Settings, Request.Bytes, Pricing))
    Out.Candidates.push_back(std::move(Each.C));
  // Fastest first; a plan is built (again) only when it is the next choice,
  // and passed over when its ranks would end with different bits.
  std::vector<size_t> Order;
  for (size_t I = 0; I < Settings.size(); ++I)
    if (Out.Candidates[Base + I].Skipped.empty())
      Order.push_back(I);
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Out.Candidates[Base + A].PredictedTime <
           Out.Candidates[Base + B].PredictedTime;
  });
  for (size_t I : Order) {
    llvm::Expected<Plan> P =
        compilePlan(*Settings[I].Algo, Settings[I].Req, Progress);
    if (!P)
      return P.takeError();
    std::string Why = rankDependence(*P, Settings[I].Req, Out.Verified);
    if (!Why.empty()) {
      Out.Candidates[Base + I].Skipped = std::move(Why);
      continue;
    }
    Out.Chosen = Settings[I].Algo;
    Out.Best = std::move(*P);
    break;
  }
  if (!Out.Chosen) {
    std::string Reasons;
    for (const Candidate &C : Out.Candidates)
      Reasons += "\n  " + C.Algo->name().str() + ": " + C.Skipped;
    return makeError(ErrorKind::CannotCompile,
                     "no algorithm can compile %s for P = %u%s",
                     collectiveName(Request.Kind).str().c_str(),
                     Request.ranks(), Reasons.c_str());
  }
  std::stable_sort(Out.Candidates.begin(), Out.Candidates.end(),
                   [](const Candidate &A, const Candidate &B) {
                     if (A.Skipped.empty() != B.Skipped.empty())
                       return A.Skipped.empty();
                     return A.PredictedTime < B.PredictedTime;
                   });
  return Out;
}

llvm::Expected<std::vector<SizeRange>> choiceBySize(
    const CompileRequest &Request, llvm::ArrayRef<const Algorithm *> Families,
    llvm::ArrayRef<uint64_t> Sizes,
    llvm::function_ref<void(uint32_t, uint32_t)> Pricing, VerifiedFn Verified) {
  std::vector<Setting> Settings;
  std::vector<Candidate> Skipped;
  if (llvm::Error E = settingsOf(Request, Families, Settings, Skipped))
    return E;
  std::vector<Priced> All = priceAll(Settings, Sizes, Pricing);
  // Whether a candidate may be chosen (see compile()), decided on first need.
  std::vector<std::optional<bool>> Allowed(All.size());
  auto MayChoose = [&](size_t I) {
    if (!Allowed[I]) {
      Allowed[I] = true;
      if (!All[I].C.FromRankZero) {
        if (llvm::Expected<Plan> P =
                compilePlan(*Settings[I].Algo, Settings[I].Req)) {
          std::optional<VerifyResult> Verdict;
          Allowed[I] = rankDependence(*P, Settings[I].Req, Verdict).empty();
          if (Verdict && Verified)
            Verified(*P, *Verdict);
        } else
          llvm::consumeError(P.takeError());
      }
    }
    return *Allowed[I];
  };
  std::vector<SizeRange> Out;
  for (size_t K = 0; K < Sizes.size(); ++K) {
    std::vector<size_t> Order;
    for (size_t I = 0; I < All.size(); ++I)
      if (!All[I].Times.empty())
        Order.push_back(I);
    std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
      return All[A].Times[K] < All[B].Times[K];
    });
    const Priced *Best = nullptr;
    for (size_t I : Order)
      if (MayChoose(I)) {
        Best = &All[I];
        break;
      }
    if (!Best)
      continue;
    if (!Out.empty() && Out.back().Algo == Best->C.Algo &&
        Out.back().Params == Best->C.Params) {
      Out.back().To = Sizes[K];
      continue;
    }
    Out.push_back({Sizes[K], Sizes[K], Best->C.Algo, Best->C.Params});
  }
  return Out;
}

std::string candidateTable(llvm::ArrayRef<Candidate> Candidates) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "candidates, fastest first:\n";
  for (const Candidate &K : Candidates) {
    OS << "  " << llvm::left_justify(K.Algo->name(), 20);
    if (!K.Skipped.empty()) {
      std::string Params = paramText(K.Params);
      OS << "skipped" << (Params.empty() ? "" : " (" + Params + ")") << ": "
         << K.Skipped << "\n";
      continue;
    }
    OS << llvm::right_justify(formatTime(K.PredictedTime), 12) << "  "
       << llvm::format("%4u", K.Rounds) << " rounds  " << paramText(K.Params)
       << (K.FromRankZero ? "  (priced from rank 0)" : "") << "\n";
  }
  return OS.str();
}

} // namespace collplan
