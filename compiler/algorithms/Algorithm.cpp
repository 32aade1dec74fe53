//===- Algorithm.cpp - What all algorithm families share ------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "plan/ir/Error.h"
#include "plan/ir/Hash.h"
#include "plan/ir/MemoryLimit.h"
#include "plan/ir/Parallel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace collplan {

bool Algorithm::supports(Collective C) const {
  return llvm::is_contained(collectives(), C);
}

PlanHeader headerFor(const Algorithm &A, const CompileRequest &Request) {
  PlanHeader H;
  H.Kind = Request.Kind;
  H.Ranks = Request.ranks();
  H.Topo = Request.Topo;
  H.Algorithm = A.name().str();
  if (hasRoot(Request.Kind))
    H.Root = Request.Root.value_or(0);
  return H;
}

bool knowsParam(const Algorithm &A, llvm::StringRef Name) {
  auto [Stage, Inner] = Name.split('.');
  return llvm::any_of(A.params(), [&](const ParamInfo &I) {
    return Inner.empty() ? I.Name == Name : I.Stage && I.Name == Stage;
  });
}

namespace {

/// "broadcast, reduce and allgatherv".
std::string collectiveNames(llvm::ArrayRef<Collective> Kinds) {
  std::string Out;
  for (size_t I = 0; I < Kinds.size(); ++I)
    Out += (I == 0                  ? ""
            : I + 1 == Kinds.size() ? " and "
                                    : ", ") +
           collectiveName(Kinds[I]).str();
  return Out;
}

/// Why Request breaks R, or success.
llvm::Error checkRestriction(const Algorithm &A, const Restriction &R,
                             const CompileRequest &Request) {
  std::string When;
  if (!R.WhenParam.empty()) {
    auto It = Request.Params.find(R.WhenParam);
    if (It == Request.Params.end() || It->second != R.WhenValue)
      return llvm::Error::success();
    When = " with " + R.WhenParam + "=" + R.WhenValue;
  }
  const Topology &T = Request.Topo;
  std::string Why;
  switch (R.Needs) {
  case Requirement::Commutative:
    if (Request.CommutativeOperator || !reduces(Request.Kind))
      return llvm::Error::success();
    Why = "combines contributions out of rank order and needs a commutative "
          "operator; this operator is not";
    break;
  case Requirement::OneRankPerTorusNode:
    if (T.kind() != TopologyKind::Torus || T.ranksPerNode() == 1)
      return llvm::Error::success();
    Why =
        "runs one rank per torus node, not " + std::to_string(T.ranksPerNode());
    break;
  case Requirement::RegularNodes:
    if (T.isRegular())
      return llvm::Error::success();
    Why = "needs the same number of ranks on every node (this job's nodes "
          "hold " +
          std::to_string(T.fewestRanksOnANode()) + " to " +
          std::to_string(T.ranksPerNode()) + ")";
    break;
  case Requirement::Torus:
    if (T.kind() == TopologyKind::Torus)
      return llvm::Error::success();
    Why = "runs on the two ports per dimension of a torus's nodes; " + T.str() +
          " promises one port per node";
    break;
  case Requirement::PowerOfTwoRanks:
    if (llvm::isPowerOf2_32(Request.ranks()))
      return llvm::Error::success();
    Why = "needs a power-of-two P, not P = " + std::to_string(Request.ranks());
    break;
  }
  std::string Message = A.name().str() + When + " " + Why + " (restriction " +
                        requirementName(R.Needs).str() + ")";
  if (!R.Instead.empty())
    Message += "; " + R.Instead;
  return makeError(ErrorKind::CannotCompile, "%s", Message.c_str());
}

} // namespace

llvm::Error checkRequest(const Algorithm &A, const CompileRequest &Request) {
  if (!A.supports(Request.Kind))
    return makeError(ErrorKind::CannotCompile,
                     "algorithm '%s' does not implement %s (see "
                     "'collplan list')",
                     A.name().str().c_str(),
                     collectiveName(Request.Kind).str().c_str());
  uint32_t P = Request.ranks();
  if (P == 0)
    return makeError(ErrorKind::CannotCompile, "P must be at least 1");
  if (Request.Root && !hasRoot(Request.Kind))
    return makeError(ErrorKind::CannotCompile, "%s has no root; drop --root",
                     collectiveName(Request.Kind).str().c_str());
  if (Request.Root && *Request.Root >= P)
    return makeError(ErrorKind::CannotCompile,
                     "root %u is not a rank of P = %u", *Request.Root, P);
  uint64_t Parts = weightCount(Request.Kind, P);
  bool Weighted = Parts != 0;
  const char *Part = "rank";
  if (Request.Kind == Collective::Alltoallv)
    Part = "(sender, receiver) pair";
  if (Weighted && Request.Weights.size() != Parts)
    return makeError(ErrorKind::CannotCompile,
                     "%s needs one weight per %s, %llu: %zu weights for "
                     "P = %u",
                     collectiveName(Request.Kind).str().c_str(), Part,
                     (unsigned long long)Parts, Request.Weights.size(), P);
  if (!Weighted && !Request.Weights.empty())
    return makeError(ErrorKind::CannotCompile,
                     "--weights applies to allgatherv and alltoallv only");
  if (!Request.Weights.empty() &&
      llvm::all_of(Request.Weights, [](uint64_t W) { return W == 0; }))
    return makeError(ErrorKind::CannotCompile,
                     "every weight is 0: the %s moves no data",
                     collectiveName(Request.Kind).str().c_str());
  for (size_t R = 0; R < Request.Weights.size(); ++R)
    if (Request.Weights[R] > maxBlockWeight(Parts))
      return makeError(ErrorKind::CannotCompile,
                       "weight %llu of %s %zu is too large: at "
                       "most %llu for P = %u",
                       (unsigned long long)Request.Weights[R], Part, R,
                       (unsigned long long)maxBlockWeight(Parts), P);
  std::vector<ParamInfo> Known = A.params();
  for (const auto &[Name, Value] : Request.Params) {
    auto Info = llvm::find_if(
        Known, [&](const ParamInfo &I) { return I.Name == Name; });
    // A stage's parameter is checked by the stage's own family.
    if (Info == Known.end() && knowsParam(A, Name))
      continue;
    if (Info == Known.end())
      return makeError(ErrorKind::CannotCompile,
                       "algorithm '%s' has no parameter '%s' (see "
                       "'collplan list')",
                       A.name().str().c_str(), Name.c_str());
    const ParamDomain &D = Info->Domain;
    int64_t Number = 0;
    bool Fits = D.Choices.empty()
                    ? !llvm::StringRef(Value).getAsInteger(10, Number) &&
                          Number >= D.Min
                    : llvm::is_contained(D.Choices, Value);
    if (!Fits)
      return makeError(ErrorKind::CannotCompile,
                       "parameter %s=%s of '%s': expected %s", Name.c_str(),
                       Value.c_str(), A.name().str().c_str(), D.str().c_str());
    if (!Info->Only.empty() && !llvm::is_contained(Info->Only, Request.Kind))
      return makeError(ErrorKind::CannotCompile,
                       "parameter %s of '%s' applies to %s only, not %s",
                       Name.c_str(), A.name().str().c_str(),
                       collectiveNames(Info->Only).c_str(),
                       collectiveName(Request.Kind).str().c_str());
  }
  for (const Restriction &R : A.restrictions())
    if (llvm::Error E = checkRestriction(A, R, Request))
      return E;
  return llvm::Error::success();
}

llvm::StringRef requirementName(Requirement R) {
  switch (R) {
  case Requirement::Commutative:
    return "commutative";
  case Requirement::OneRankPerTorusNode:
    return "one-rank-per-torus-node";
  case Requirement::RegularNodes:
    return "regular-nodes";
  case Requirement::PowerOfTwoRanks:
    return "power-of-two-ranks";
  case Requirement::Torus:
    return "torus";
  }
  llvm_unreachable("unknown requirement");
}

std::string Restriction::str() const {
  std::string Out = requirementName(Needs).str();
  if (!WhenParam.empty())
    Out += " (when " + WhenParam + "=" + WhenValue + ")";
  return Out;
}

Topology rankTorus(const Topology &T) {
  if (T.kind() == TopologyKind::Torus && T.ranksPerNode() == 1)
    return Topology::torus(T.dims(), 1);
  uint32_t Ring[] = {T.ranks()};
  return Topology::torus(Ring, 1);
}

std::string ParamDomain::str() const {
  if (Choices.empty())
    return "an integer >= " + std::to_string(Min);
  return llvm::join(Choices, "|");
}

llvm::Expected<int64_t>
integerParam(const std::map<std::string, std::string> &Params,
             llvm::StringRef Name, int64_t Default, int64_t Min, int64_t Max) {
  auto It = Params.find(Name.str());
  if (It == Params.end())
    return Default;
  int64_t V = 0;
  if (llvm::StringRef(It->second).getAsInteger(10, V) || V < Min || V > Max)
    return makeError(ErrorKind::CannotCompile,
                     "parameter %s=%s: expected an integer in "
                     "[%lld, %lld]",
                     Name.str().c_str(), It->second.c_str(), (long long)Min,
                     (long long)Max);
  return V;
}

uint64_t maxPlanOps() {
  static const uint64_t Limit = std::min<uint64_t>(
      uint64_t(1) << 28, memoryLimit().Bytes / 8 * 7 / BytesPerPlanOp);
  return Limit;
}

std::string maxPlanOpsText() {
  return "the limit of " + std::to_string(maxPlanOps()) + " operations (for " +
         memoryLimit().str() + ")";
}

PlanSizeEstimate estimatePlanOps(const Algorithm &A, const PlanHeader &H,
                                 uint64_t Limit) {
  PlanSizeEstimate Out;
  uint64_t P = std::max<uint32_t>(H.Ranks, 1);
  {
    OpBudget Budget(Limit / P);
    Out.First = A.buildRank(H, 0);
    Out.Ops = Budget.added();
    if (Budget.exceeded()) {
      Out.Ops = std::max(Out.Ops * P, Limit + 1);
      return Out;
    }
  }
  if (P == 1)
    return Out;
  // Every rank when there are few; else ranks picked by a hash, since a
  // stride could fall on every node's leader (smp) or on every even rank
  // (the ranks that fold in).
  constexpr uint64_t Samples = 64;
  uint64_t Sampled = std::min(P - 1, Samples);
  OpBudget Budget(Limit / P * Sampled);
  uint64_t Built = 0;
  for (; Built < Sampled && !Budget.exceeded(); ++Built)
    A.buildRank(H,
                uint32_t(P - 1 <= Samples ? 1 + Built
                                          : 1 + splitmix64(Built) % (P - 1)));
  Out.Ops += Budget.added() * (P - 1) / Built;
  if (Budget.exceeded())
    Out.Ops = std::max(Out.Ops, Limit + 1);
  return Out;
}

llvm::Expected<Plan>
compilePlan(const Algorithm &A, const CompileRequest &Request,
            llvm::function_ref<void(uint32_t Built, uint32_t Total)> Progress) {
  if (llvm::Error E = checkRequest(A, Request))
    return E;
  llvm::Expected<PlanHeader> Header = A.prepare(Request);
  // A family's own errors are untyped: whatever it refuses, it cannot compile.
  if (!Header)
    return withDefaultKind(Header.takeError(), ErrorKind::CannotCompile);
  return buildPlan(A, Request, std::move(*Header), std::nullopt, Progress);
}

llvm::Expected<Plan>
buildPlan(const Algorithm &A, const CompileRequest &Request, PlanHeader Header,
          std::optional<PlanSizeEstimate> Estimate,
          llvm::function_ref<void(uint32_t Built, uint32_t Total)> Progress) {
  Plan Result;
  Result.Header = std::move(Header);
  uint32_t P = Result.Header.Ranks;
  // An algorithm that cuts a rank's weight into several blocks may round a
  // block up past what a plan file can hold (checkRequest bounds the ranks'
  // weights, not the blocks').
  for (uint64_t W : Result.Header.Weights)
    if (W > maxBlockWeight(Result.Header.Blocks))
      return makeError(ErrorKind::CannotCompile,
                       "the weights are too large: a block of the %s "
                       "plan would weigh %llu, more than the %llu a "
                       "plan of %llu blocks allows",
                       A.name().str().c_str(), (unsigned long long)W,
                       (unsigned long long)maxBlockWeight(Result.Header.Blocks),
                       (unsigned long long)Result.Header.Blocks);
  if (!Request.CommutativeOperator && Result.Header.RequiresCommutative)
    return makeError(ErrorKind::CannotCompile,
                     "the %s plan combines contributions out of rank "
                     "order and needs a commutative operator; this "
                     "operator is not",
                     A.name().str().c_str());
  uint64_t Limit = maxPlanOps();
  PlanSizeEstimate Size = Estimate ? std::move(*Estimate)
                                   : estimatePlanOps(A, Result.Header, Limit);
  if (Size.Ops > Limit)
    return makeError(ErrorKind::CannotCompile,
                     "the %s plan for P = %u would hold about %llu operations "
                     "or more: more than %s; choose an algorithm with fewer "
                     "rounds (see 'collplan list')",
                     A.name().str().c_str(), P, (unsigned long long)Size.Ops,
                     maxPlanOpsText().c_str());
  // Ranks are built independently, on the process's worker threads
  // (Parallel.h). The estimate is a sample's: the ranks built so far are
  // counted too, so a plan larger than its sample showed stops at the limit.
  Result.Programs.resize(P);
  std::atomic<uint64_t> Ops{Size.First.numOps()};
  Result.Programs[0] = std::move(Size.First);
  std::atomic<uint32_t> Built{1};
  std::atomic<bool> TooLarge{false};
  std::mutex Reporting;
  parallelFor(P > 0 ? P - 1 : 0, [&](size_t I) {
    if (TooLarge)
      return;
    uint32_t R = uint32_t(I + 1);
    Result.Programs[R] = A.buildRank(Result.Header, R);
    if ((Ops += Result.Programs[R].numOps()) > Limit) {
      TooLarge = true;
      Result.Programs[R] = {};
    }
    uint32_t Done = ++Built;
    if (Progress) {
      std::lock_guard<std::mutex> Guard(Reporting);
      Progress(Done, P);
    }
  });
  if (TooLarge)
    return makeError(ErrorKind::CannotCompile,
                     "the %s plan for P = %u holds more operations than %s; "
                     "choose an algorithm with fewer rounds (see 'collplan "
                     "list')",
                     A.name().str().c_str(), P, maxPlanOpsText().c_str());
  return Result;
}

} // namespace collplan
