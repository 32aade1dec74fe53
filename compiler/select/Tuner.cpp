//===- Tuner.cpp - One compile pipeline: candidates, prices, the best plan ===//

#include "compiler/select/Tuner.h"

#include "compiler/cost/CostModel.h"
#include "compiler/verify/Verifier.h"
#include "plan/ir/Error.h"
#include "plan/ir/Parallel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <mutex>
#include <optional>

namespace collplan {

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
      double Message =
          B > 0 ? C.alphaFor(false, B) + C.betaFor(false, B) * B : 0;
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

/// Every setting of Families (every family implementing the collective when
/// empty) for Request, as unpriced candidates. A family that cannot serve
/// the request at all is a skipped candidate, or the error when it is the
/// only one.
llvm::Error settingsOf(
    const CompileRequest &Request, llvm::ArrayRef<const Algorithm *> Families,
    std::vector<Candidate> &Settings, std::vector<Candidate> &Skipped,
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
      Candidate C;
      C.Algo = A;
      C.Params = Own.Params;
      C.Skipped = llvm::toString(std::move(E));
      C.Request = std::move(Own);
      Skipped.push_back(std::move(C));
      continue;
    }
    for (std::map<std::string, std::string> &Choice : A->candidates(Own)) {
      Candidate C;
      C.Algo = A;
      C.Request = Own;
      C.Request.Params.merge(Choice);
      C.Params = C.Request.Params;
      Settings.push_back(std::move(C));
    }
  }
  return llvm::Error::success();
}

/// Whether the request asks something of how a plan rounds that only the
/// verifier can tell: identical bits on every rank of an allreduce, or, with
/// --reproducible, the canonical tree for every collective that reduces.
bool asksRounding(const CompileRequest &Req) {
  return (Req.Reproducible && reduces(Req.Kind)) ||
         (Req.IdenticalResults && Req.Kind == Collective::Allreduce);
}

/// Why a built plan may not be chosen although it is valid: it rounds
/// otherwise than the request asks (asksRounding). Verdict receives the
/// verifier's result when it ran to the end (a valid plan that rounds as
/// asked), so the plan need not be verified again.
std::string roundingMiss(const Plan &P, const CompileRequest &Req,
                         std::optional<VerifyResult> &Verdict) {
  if (!asksRounding(Req))
    return "";
  VerifyOptions Options;
  Options.StopAtDifferentOrders = Req.IdenticalResults;
  Options.StopAtNonCanonicalTree = Req.Reproducible;
  VerifyResult V = verifyPlan(P, Options);
  if (Req.Reproducible && !V.Reproducible)
    return "not reproducible across message sizes (" + V.NonCanonical +
           "); --reproducible takes only plans that follow the canonical "
           "tree";
  if (Req.IdenticalResults && !V.IdenticalResults)
    return "results may differ in the last bits between ranks (" +
           V.DifferentOrders + "); --allow-rank-dependent-rounding allows it";
  if (V.Valid)
    Verdict = std::move(V);
  return "";
}

/// The plans a session keeps, at most MaxOpsToPrice operations in all: a
/// plan that does not fit displaces slower ones (at the first size), or is
/// dropped (and built again if it is needed).
class KeptPlans {
  static uint64_t opsOf(const Plan &P) {
    uint64_t Ops = 0;
    for (const Program &Prog : P.Programs)
      Ops += Prog.numOps();
    return Ops;
  }

public:
  /// Offers C's freshly built plan P: kept in C.Built or not.
  void offer(std::vector<Candidate> &All, size_t I, std::shared_ptr<Plan> P) {
    std::lock_guard<std::mutex> Guard(Lock);
    uint64_t Ops = opsOf(*P);
    double Time = All[I].Times.empty() ? 0 : All[I].Times.front();
    while (Kept + Ops > MaxOpsToPrice) {
      size_t Slowest = All.size();
      for (size_t J = 0; J < All.size(); ++J)
        if (All[J].Built && J != I &&
            (Slowest == All.size() ||
             All[J].Times.front() > All[Slowest].Times.front()))
          Slowest = J;
      if (Slowest == All.size() || All[Slowest].Times.front() <= Time)
        return;
      Kept -= opsOf(*All[Slowest].Built);
      All[Slowest].Built.reset();
    }
    Kept += Ops;
    All[I].Built = std::move(P);
  }

private:
  std::mutex Lock;
  uint64_t Kept = 0;
};

void price(Candidate &C, llvm::ArrayRef<uint64_t> Sizes,
           std::vector<Candidate> &All, size_t I, KeptPlans &Keep) {
  const Algorithm &A = *C.Algo;
  llvm::Expected<PlanHeader> H = A.prepare(C.Request);
  if (!H) {
    C.Skipped = llvm::toString(H.takeError());
    return;
  }
  C.Params = H->Params;
  C.Header = std::make_shared<const PlanHeader>(*H);
  // A candidate too large to ever build is refused from its estimate, in
  // bounded memory.
  uint64_t Limit = maxPlanOps();
  PlanSizeEstimate Size = estimatePlanOps(A, *H, Limit);
  uint64_t Ops = Size.Ops;
  if (Ops > Limit) {
    C.Skipped = "about " + std::to_string(Ops) + " operations: more than " +
                maxPlanOpsText();
    return;
  }
  C.RankZero = std::make_shared<const Program>(Size.First);
  if (Ops <= MaxOpsToPrice) {
    llvm::Expected<Plan> P = buildPlan(A, C.Request, *H, std::move(Size));
    if (!P) {
      C.Skipped = llvm::toString(P.takeError());
      return;
    }
    for (uint64_t Bytes : Sizes) {
      CostReport R = evaluateCost(*P, Bytes, C.Request.Cost);
      C.Times.push_back(R.Time);
      C.Rounds = R.Rounds.size();
      if (!C.Report)
        C.Report = std::move(R);
    }
    C.PredictedTime = C.Times.front();
    Keep.offer(All, I, std::make_shared<Plan>(std::move(*P)));
    return;
  }
  if (A.rankSymmetric(*H) && flatOnePerNode(H->Topo) &&
      (C.Request.CommutativeOperator || !H->RequiresCommutative)) {
    for (uint64_t Bytes : Sizes) {
      CompileRequest At = C.Request;
      At.Bytes = Bytes;
      C.Times.push_back(rankZeroTime(*H, *C.RankZero, At));
    }
    C.Rounds = C.RankZero->Rounds.size();
    C.FromRankZero = true;
    C.PredictedTime = C.Times.front();
    return;
  }
  C.Skipped =
      "about " + std::to_string(Ops) + " operations: too large to price";
}

std::string paramsKey(const Candidate &C) { return paramText(C.Params); }

size_t familyRank(const Algorithm *A) {
  llvm::ArrayRef<const Algorithm *> All = allAlgorithms();
  return size_t(llvm::find(All, A) - All.begin());
}

} // namespace

bool lessByTieRule(const Candidate &A, const Candidate &B) {
  if (A.Rounds != B.Rounds)
    return A.Rounds < B.Rounds;
  if (A.Algo != B.Algo)
    return familyRank(A.Algo) < familyRank(B.Algo);
  return paramsKey(A) < paramsKey(B);
}

std::vector<size_t> rankAtSize(llvm::ArrayRef<Candidate> Candidates, size_t K) {
  std::vector<size_t> Order;
  for (size_t I = 0; I < Candidates.size(); ++I)
    if (Candidates[I].Skipped.empty() && K < Candidates[I].Times.size())
      Order.push_back(I);
  auto Time = [&](size_t I) { return Candidates[I].Times[K]; };
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t A, size_t B) { return Time(A) < Time(B); });
  // Runs of times within the tolerance of the run's first are ties: the
  // run's first fixes the run, so the order is well defined (a tolerance
  // between neighbours alone would not be transitive).
  for (size_t From = 0; From < Order.size();) {
    size_t To = From + 1;
    while (To < Order.size() && Time(Order[To]) - Time(Order[From]) <=
                                    TieTolerance * std::abs(Time(Order[From])))
      ++To;
    std::stable_sort(Order.begin() + From, Order.begin() + To,
                     [&](size_t A, size_t B) {
                       return lessByTieRule(Candidates[A], Candidates[B]);
                     });
    From = To;
  }
  return Order;
}

llvm::Expected<Plan *>
Compilation::plan(size_t I,
                  llvm::function_ref<void(uint32_t, uint32_t)> Progress) {
  Candidate &C = Candidates[I];
  if (!C.Built) {
    llvm::Expected<Plan> P =
        C.Header
            ? buildPlan(*C.Algo, C.Request, *C.Header, std::nullopt, Progress)
            : compilePlan(*C.Algo, C.Request, Progress);
    if (!P)
      return P.takeError();
    C.Built = std::make_shared<Plan>(std::move(*P));
  }
  return C.Built.get();
}

bool Compilation::mayChoose(size_t I, bool CheckUnbuilt) {
  Candidate &C = Candidates[I];
  if (!C.Skipped.empty())
    return false;
  if (C.Choosable)
    return *C.Choosable;
  if (!asksRounding(C.Request))
    return *(C.Choosable = true);
  // A plan priced from rank 0 is too large to verify just to draw a table;
  // the verification before it is written judges it. Its ranks' agreement
  // shows there; its tree would not (a reproducible directory's plan is
  // refused by the interposer, not by the writer): unchecked, it is not
  // taken for a reproducible table.
  if (C.FromRankZero && !CheckUnbuilt)
    return !C.Request.Reproducible;
  llvm::Expected<Plan *> P = plan(I);
  if (!P) {
    llvm::consumeError(P.takeError());
    return true;
  }
  C.WhyNotChoosable = roundingMiss(**P, C.Request, C.Verdict);
  return *(C.Choosable = C.WhyNotChoosable.empty());
}

void Compilation::keepOnlyChosen() {
  for (size_t I = 0; I < Candidates.size(); ++I)
    if (I != ChosenIndex || !Chosen)
      Candidates[I].Built.reset();
}

llvm::Expected<Compilation>
priceCandidates(const CompileRequest &Request,
                llvm::ArrayRef<const Algorithm *> Families,
                llvm::ArrayRef<uint64_t> Sizes,
                llvm::function_ref<void(uint32_t, uint32_t)> Pricing) {
  Compilation Out;
  Out.Request = Request;
  Out.Sizes.assign(Sizes.begin(), Sizes.end());
  std::vector<Candidate> Skipped;
  if (llvm::Error E = settingsOf(Request, Families, Out.Candidates, Skipped,
                                 &Out.ParamTakers))
    return E;
  // Settings are independent and building their plans is most of a tuner's
  // time at large P: they are priced on the worker threads (Parallel.h),
  // progress reported in completion order, one call at a time.
  KeptPlans Keep;
  std::mutex Lock;
  uint32_t Done = 0, Total = Out.Candidates.size();
  parallelFor(Out.Candidates.size(), [&](size_t I) {
    price(Out.Candidates[I], Sizes, Out.Candidates, I, Keep);
    std::lock_guard<std::mutex> Guard(Lock);
    ++Done;
    if (Pricing)
      Pricing(Done, Total);
  });
  // Those a family refused outright come first, as they were found.
  Out.Candidates.insert(Out.Candidates.begin(),
                        std::make_move_iterator(Skipped.begin()),
                        std::make_move_iterator(Skipped.end()));
  return Out;
}

llvm::Expected<Compilation>
compile(const CompileRequest &Request,
        llvm::ArrayRef<const Algorithm *> Families,
        llvm::function_ref<void(uint32_t, uint32_t)> Progress,
        llvm::function_ref<void(uint32_t, uint32_t)> Pricing,
        llvm::ArrayRef<uint64_t> MoreSizes) {
  std::vector<uint64_t> Sizes = {Request.Bytes};
  Sizes.insert(Sizes.end(), MoreSizes.begin(), MoreSizes.end());
  // One setting: nothing to choose, build it (with progress), then price it.
  {
    std::vector<Candidate> Settings, Skipped;
    std::map<std::string, std::vector<std::string>> Takers;
    if (llvm::Error E =
            settingsOf(Request, Families, Settings, Skipped, &Takers))
      return E;
    if (Settings.size() == 1 && Skipped.empty()) {
      Compilation Out;
      Out.Request = Request;
      Out.Sizes = Sizes;
      Out.ParamTakers = std::move(Takers);
      Candidate &C = Out.Candidates.emplace_back(std::move(Settings[0]));
      llvm::Expected<Plan> P = compilePlan(*C.Algo, C.Request, Progress);
      if (!P)
        return P.takeError();
      C.Params = P->Header.Params;
      for (uint64_t Bytes : Sizes) {
        CostReport R = evaluateCost(*P, Bytes, Request.Cost);
        C.Times.push_back(R.Time);
        C.Rounds = R.Rounds.size();
        if (!C.Report)
          C.Report = std::move(R);
      }
      C.PredictedTime = C.Times.front();
      C.Built = std::make_shared<Plan>(std::move(*P));
      Out.Chosen = C.Algo;
      return Out;
    }
  }

  llvm::Expected<Compilation> Priced =
      priceCandidates(Request, Families, Sizes, Pricing);
  if (!Priced)
    return Priced.takeError();
  Compilation &Out = *Priced;
  // Fastest first (ties by the tie rule), skipped last; the first that may
  // be chosen is, its plan built now only if pricing did not keep it.
  std::vector<size_t> Order = rankAtSize(Out.Candidates, 0);
  for (size_t I = 0; I < Out.Candidates.size(); ++I)
    if (!Out.Candidates[I].Skipped.empty())
      Order.push_back(I);
  std::vector<Candidate> Sorted;
  for (size_t I : Order)
    Sorted.push_back(std::move(Out.Candidates[I]));
  Out.Candidates = std::move(Sorted);
  for (size_t I = 0; I < Out.Candidates.size(); ++I) {
    Candidate &C = Out.Candidates[I];
    if (!C.Skipped.empty())
      continue;
    if (!Out.mayChoose(I, /*CheckUnbuilt=*/true)) {
      C.Skipped = C.WhyNotChoosable;
      continue;
    }
    llvm::Expected<Plan *> P = Out.plan(I, Progress);
    if (!P)
      return P.takeError();
    Out.Chosen = Out.Candidates[I].Algo;
    Out.ChosenIndex = I;
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
  // Candidates passed over for rank-dependent rounding join the skipped,
  // by their price.
  std::vector<size_t> Index(Out.Candidates.size());
  for (size_t I = 0; I < Index.size(); ++I)
    Index[I] = I;
  std::stable_sort(Index.begin(), Index.end(), [&](size_t A, size_t B) {
    const Candidate &X = Out.Candidates[A], &Y = Out.Candidates[B];
    if (X.Skipped.empty() != Y.Skipped.empty())
      return X.Skipped.empty();
    return !X.Skipped.empty() && X.PredictedTime < Y.PredictedTime;
  });
  std::vector<Candidate> Final;
  size_t Chosen = Out.ChosenIndex;
  for (size_t I : Index) {
    if (I == Chosen)
      Out.ChosenIndex = Final.size();
    Final.push_back(std::move(Out.Candidates[I]));
  }
  Out.Candidates = std::move(Final);
  return std::move(Out);
}

std::vector<SizeRange> choiceBySize(Compilation &C,
                                    llvm::ArrayRef<uint64_t> Sizes) {
  std::vector<SizeRange> Out;
  for (uint64_t Size : Sizes) {
    size_t K = size_t(llvm::find(C.Sizes, Size) - C.Sizes.begin());
    assert(K < C.Sizes.size() && "choiceBySize: a size the session did not "
                                 "price");
    std::optional<size_t> Best;
    for (size_t I : rankAtSize(C.Candidates, K))
      if (C.mayChoose(I)) {
        Best = I;
        break;
      }
    if (!Best)
      continue;
    const Candidate &B = C.Candidates[*Best];
    if (!Out.empty() && Out.back().Index == *Best) {
      Out.back().To = Size;
      continue;
    }
    Out.push_back({Size, Size, B.Algo, B.Params, *Best});
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
