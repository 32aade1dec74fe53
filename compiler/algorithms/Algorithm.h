//===- Algorithm.h - What every family implements ---------------*- C++ -*-===//
//
// An algorithm turns a CompileRequest into a PlanHeader once (prepare), then
// builds any single rank's program from that header alone (buildRank). That
// split is the project's rule (ARCHITECTURE.md, "The flow"): a launcher
// compiles only its own rank, in O(log P) for the log-round families.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_ALGORITHMS_ALGORITHM_H
#define COLLPLAN_ALGORITHMS_ALGORITHM_H

#include "compiler/cost/CostParams.h"
#include "plan/ir/Plan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// What the user asked for: the job's shape, the collective and the
/// algorithm's parameters as given (unset parameters take defaults or are
/// tuned by the algorithm).
struct CompileRequest {
  Collective Kind = Collective::Allreduce;
  Topology Topo = Topology::flat(1);
  std::optional<uint32_t> Root;
  /// Message size in bytes: the whole vector of one rank (allgather: the
  /// gathered result).
  uint64_t Bytes = 1 << 20;
  CostParams Cost;
  std::map<std::string, std::string> Params;
  /// Allgatherv: per-rank element counts (weights); empty otherwise.
  std::vector<uint64_t> Weights;
  /// Whether the reduction operator is commutative. When it is not, plans
  /// that combine contributions out of rank order are refused.
  bool CommutativeOperator = true;
  /// Whether every rank must end with the same bits: when choosing among
  /// several candidates, the tuner passes over allreduce plans whose ranks
  /// the verifier finds combining a block in different orders (floating-point
  /// results could then differ in their last bits from rank to rank).
  bool IdenticalResults = true;
  /// Whether every element must be combined in the canonical tree for P, so
  /// that results are the same bits at every message size (--reproducible;
  /// docs/reproducibility.md): when choosing, the tuner passes over plans
  /// of reducing collectives the verifier finds leaving that tree.
  bool Reproducible = false;

  uint32_t ranks() const { return Topo.ranks(); }
};

/// The values a parameter takes, checked by checkRequest before any family
/// sees them (the typed catalog MPICH keeps in coll_algorithms.txt): one of
/// Choices, or, when Choices is empty, an integer of at least Min (a family
/// checks bounds that depend on the request, such as r <= ceil(log2 P)).
struct ParamDomain {
  std::vector<std::string> Choices;
  int64_t Min = 0;

  static ParamDomain oneOf(std::vector<std::string> Choices) {
    return {std::move(Choices), 0};
  }
  static ParamDomain integerFrom(int64_t Min) { return {{}, Min}; }
  /// "bandwidth|latency" or "integer >= 0", for `collplan list`.
  std::string str() const;
};

struct ParamInfo {
  std::string Name;
  std::string Help;
  /// Shown by `collplan list`: "0" or "chosen by the cost model".
  std::string Default;
  ParamDomain Domain;
  /// The value names the family of a stage of a composed plan, whose own
  /// parameters are given as "Name.param" (inter.ports=all).
  bool Stage = false;
  /// The collectives the parameter applies to; empty: every collective the
  /// family implements. checkRequest refuses it for the others.
  std::vector<Collective> Only = {};
};

/// What a family needs of the request, beyond its collectives and its
/// parameters' domains (MPICH's coll_algorithms.txt lists them as an
/// algorithm's `restrictions:`).
enum class Requirement : uint8_t {
  /// The reduction operator is commutative (checked for the collectives
  /// that reduce).
  Commutative,
  /// On a torus, one rank per node: the torus's nodes are the ranks.
  OneRankPerTorusNode,
  /// Every node holds the same number of ranks.
  RegularNodes,
  /// P is a power of two.
  PowerOfTwoRanks,
  /// The topology is a torus (a ring: torus:P), whose links give every node
  /// two ports per dimension; a flat topology promises one.
  Torus,
};

/// One entry of a family's catalog of restrictions: declared beside its
/// params(), checked by checkRequest before prepare() (so the tuner learns
/// "cannot serve" without preparing) and shown by `collplan list`.
struct Restriction {
  Requirement Needs;
  /// Applies only when the request sets parameter WhenParam to WhenValue
  /// ("group=xor"); always when WhenParam is empty.
  std::string WhenParam = "";
  std::string WhenValue = "";
  /// What to use instead, appended to the refusal.
  std::string Instead = "";

  /// "power-of-two-ranks (when group=xor)", for `collplan list`.
  std::string str() const;
};

/// "commutative", "one-rank-per-torus-node", "regular-nodes",
/// "power-of-two-ranks".
llvm::StringRef requirementName(Requirement R);

class Algorithm {
public:
  virtual ~Algorithm() = default;

  /// The name used on the command line and in plan files, e.g. "ring".
  virtual llvm::StringRef name() const = 0;
  /// One line for `collplan list`.
  virtual llvm::StringRef summary() const = 0;
  virtual llvm::ArrayRef<Collective> collectives() const = 0;
  virtual std::vector<ParamInfo> params() const { return {}; }
  /// What the family needs of the request (see Restriction).
  virtual std::vector<Restriction> restrictions() const { return {}; }

  bool supports(Collective C) const;

  /// Resolves everything rank-independent for a request that passed
  /// checkRequest (so the restrictions hold): block count, weights, buffers,
  /// every parameter's value. Fails with a message naming the offending
  /// input. A family with parameters parses them here, once, into
  /// Header.Prepared (setPrepared), and writes their resolved strings to
  /// Header.Params, their serialised form.
  virtual llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const = 0;

  /// Rank's program under Header, which this family's prepare() produced:
  /// it reads the parameters from Header.Prepared (preparedAs), never from
  /// the strings of Header.Params.
  virtual Program buildRank(const PlanHeader &Header, uint32_t Rank) const = 0;

  /// The settings of the parameters the request leaves open that the tuner
  /// (compiler/select/Tuner.h) should price, one map per candidate, e.g.
  /// {r=0}, {r=1}, ... Each is merged into the request's parameters before
  /// prepare(). The default, one empty map, means "prepare()'s defaults".
  /// Families only enumerate; the one cost model judges.
  virtual std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const {
    return {{}};
  }

  /// Whether every rank's program under Header is rank 0's up to a
  /// relabelling of ranks (rotation, XOR) with the same block sizes, so that
  /// on a flat topology the plan's critical path is rank 0's rounds priced
  /// one after another. Lets the tuner price plans too large to build.
  virtual bool rankSymmetric(const PlanHeader &Header) const { return false; }

  /// Why prepare() chose what it chose (tuned parameters, estimates beside
  /// the cost model's figures), for `collplan compile --explain`. Empty when
  /// there is nothing to say.
  virtual std::string explain(const CompileRequest &Request,
                              const PlanHeader &Header) const {
    return "";
  }
};

/// Every algorithm, in the order `collplan list` shows them.
llvm::ArrayRef<const Algorithm *> allAlgorithms();
/// Whether A takes a parameter called Name: one of its own, or one of a
/// stage's ("inter.ports") when A composes stages.
bool knowsParam(const Algorithm &A, llvm::StringRef Name);

/// The algorithm called Name, or null.
const Algorithm *findAlgorithm(llvm::StringRef Name);

/// Plans with more operations than this are refused before they are built:
/// about 72 bytes each in memory (measured: ring allreduce at P = 8192 with
/// 2^28 operations peaks at 19 GB, verification included), so the limit is
/// seven eighths of the memory this process may use (MemoryLimit.h) at 72
/// bytes an operation, and never more than 2^28 (ring allreduce, 4P(P-1)
/// operations, reaches it past P = 8192).
uint64_t maxPlanOps();
constexpr uint64_t BytesPerPlanOp = 72;
/// "the limit of N operations (for 16.0 GiB (RLIMIT_AS (ulimit -v)))".
std::string maxPlanOpsText();

/// The operations of A's plan under Header, estimated without building it:
/// rank 0 and a sample of other ranks stand for all P. Rank 0 alone does not
/// (at P = 2^k - 1 recursive doubling's rank 0 only folds in). The sample is
/// built under a budget, so a plan far past Limit costs bounded time and
/// memory; past Limit, Ops is only known to exceed it.
struct PlanSizeEstimate {
  uint64_t Ops = 0;
  /// Rank 0's program, whole when Ops <= Limit.
  Program First;
};
PlanSizeEstimate estimatePlanOps(const Algorithm &A, const PlanHeader &Header,
                                 uint64_t Limit);

/// prepare() then buildRank() for every rank: the whole plan. Progress, if
/// given, is told how many ranks are built after each rank. Fails, before
/// building the others, when estimatePlanOps exceeds maxPlanOps(), and stops
/// building when the ranks built so far do.
llvm::Expected<Plan>
compilePlan(const Algorithm &A, const CompileRequest &Request,
            llvm::function_ref<void(uint32_t Built, uint32_t Total)> Progress =
                nullptr);

/// compilePlan after prepare(): the whole plan under Header, prepare()'s
/// result for Request. Estimate, when the caller has sized the plan already
/// (estimatePlanOps under maxPlanOps()), gives rank 0's program, which is
/// then not built again.
llvm::Expected<Plan>
buildPlan(const Algorithm &A, const CompileRequest &Request, PlanHeader Header,
          std::optional<PlanSizeEstimate> Estimate = std::nullopt,
          llvm::function_ref<void(uint32_t Built, uint32_t Total)> Progress =
              nullptr);

/// A header with the request's collective, ranks, topology and root filled in
/// and Algorithm = A.name(): the start of every prepare(). Weights are left to
/// the algorithm, which maps the request's per-rank weights onto its blocks.
PlanHeader headerFor(const Algorithm &A, const CompileRequest &Request);

/// Rejects a request the algorithm cannot serve: an unsupported collective, a
/// missing or out-of-range root, parameters the algorithm does not know or
/// with values outside their domains or given for a collective they do not
/// apply to, and requests that break one of A.restrictions().
llvm::Error checkRequest(const Algorithm &A, const CompileRequest &Request);

/// A family's typed parameters, held by PlanHeader::Prepared.
template <typename T> struct PreparedValue final : PreparedParams {
  explicit PreparedValue(T Value) : Value(std::move(Value)) {}
  T Value;
};

/// Stores what prepare() derived (typed parameters, shape) in H.
template <typename T> void setPrepared(PlanHeader &H, T Value) {
  H.Prepared = std::make_shared<const PreparedValue<T>>(std::move(Value));
}

/// What setPrepared<T> stored in H. H must come from the same family's
/// prepare(): a header read from a plan file carries Params only.
template <typename T> const T &preparedAs(const PlanHeader &H) {
  if (!H.Prepared)
    llvm::report_fatal_error("a family built a rank from a header that its "
                             "prepare() did not make");
  return static_cast<const PreparedValue<T> &>(*H.Prepared).Value;
}

/// The torus whose nodes are T's ranks, for the families that run on one
/// (swing, bucket): T itself on a torus of one rank per node, else a ring
/// of the P ranks.
Topology rankTorus(const Topology &T);

/// Reads integer parameter Name from Params: Default when absent, an error
/// naming the parameter when it is not an integer in [Min, Max].
llvm::Expected<int64_t>
integerParam(const std::map<std::string, std::string> &Params,
             llvm::StringRef Name, int64_t Default, int64_t Min, int64_t Max);

} // namespace collplan

#endif // COLLPLAN_ALGORITHMS_ALGORITHM_H
