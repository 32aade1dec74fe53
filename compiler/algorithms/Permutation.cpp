//===- Permutation.cpp - Permutation-group allreduce (Kolmakov & Zhang) ---===//
//
// Kolmakov and Zhang, "A Generalization of the Allreduce Operation" §§5-9
// (docs/algorithms/permutation.md). The P blocks of
// the vector are P "distributed vectors" placed by an abelian group T_P acting
// regularly on the ranks; with h = identity, placement k on rank p is block
// p - k (cyclic group) or p XOR k (XOR group), so after
// the reduction phase rank p holds block p: PlanHeader::ownedBy with B = P.
//
// Reduction step i halves the N_i = ceil(P / 2^i) vectors a rank is responsible
// for by folding the upper floor(N_i / 2) onto the lower ones (the paper's §7).
// The hybrid with parameter r (§8) ends the reduction with J = N[L-r]
// complete vectors (the exact rule, not the paper's 2^r), so only the last
// L - r distribution steps remain: 2L - r rounds, r = L being latency-optimal.
// The "index 0" partial of each shifted copy (shape A, the paper's q*) and all
// other partials (shape B, q') differ after the first odd N_i, so from then on
// A stays in the data buffer and B moves to the scratch buffer "partial".
// Messages are received into the scratch buffer "recv" whenever their blocks
// overlap what the rank sends in the same round (Plan.h round semantics).
//
// With the XOR group and P = 2^L the copies coincide while N_i > J, giving
// recursive halving (r = 0), recursive doubling (r = L) and, between them,
// RH down to J blocks, RD on them, then the RH allgather: never more blocks
// sent or combined than the cyclic hybrid, strictly fewer for 0 < r < L
// (docs/algorithms/permutation.md, "XOR group"), so it is the default group for
// powers of two.
//
// order: with r >= 1 on the cyclic group at P not a power of two the J
// copies of a block follow shifted trees, so ranks end with different bits
// (order=rank-dependent, the paper's). order=identical, the default there,
// builds the reduction phase in one tree per block with the same rounds and
// peers (PermutationCommonTree.h); the distribution phase is unchanged.
//
// Choosing r: candidates() offers every r in 0..L and the tuner
// (compiler/select/Tuner.h) prices them with the cost model; every rank runs
// a congruent program (rotated or XOR-relabelled), so the family declares
// its plans rank symmetric and the tuner may price large P from rank 0.
// prepare() alone defaults to r = 0. Where the orders differ both are
// offered, and the verifier's identical-results verdict decides which may
// serve.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/PermutationCommonTree.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace collplan {
namespace {

using llvm::createStringError;
using llvm::inconvertibleErrorCode;

enum class Group : uint8_t { Cyclic, Xor };

llvm::StringRef groupName(Group G) {
  return G == Group::Xor ? "xor" : "cyclic";
}

/// The buffers a schedule refers to before they are given header indices.
enum class Buf : uint8_t { Data, Recv, Partial };

constexpr llvm::StringLiteral RecvName = "recv";
constexpr llvm::StringLiteral PartialName = "partial";

unsigned logRounds(uint32_t P) { return P <= 1 ? 0 : llvm::Log2_64_Ceil(P); }

/// N_i = ceil(P / 2^i): the vectors a rank is responsible for before
/// reduction step i (paper eq. 18).
uint64_t vectorsAt(uint32_t P, unsigned I) {
  return llvm::divideCeil(uint64_t(P), uint64_t(1) << I);
}

/// One operation of a step, with blocks given as placements [Lo, Hi).
struct StepOp {
  OpKind Kind;
  Combine Mode;
  Buf Dest;
  Buf Source; ///< Send: the buffer read; Local: the source.
  uint64_t Lo, Hi;
};

/// One round, the same at every rank up to the group action.
struct Step {
  bool Reduction;
  /// The group element applied: s_i.
  uint64_t Shift;
  llvm::SmallVector<StepOp, 4> Ops;
};

struct Shape {
  Collective Kind;
  uint32_t P;
  Group G;
  unsigned L;
  unsigned R;
  uint64_t J;
  /// order=identical where the copies' trees differ: the reduction phase in
  /// one tree per block (PermutationCommonTree.h).
  std::shared_ptr<const permutation::CommonTreeReduction> OneTree;
};

Shape shapeOf(Collective Kind, uint32_t P, Group G, unsigned R) {
  unsigned L = logRounds(P);
  return Shape{Kind, P, G, L, R, vectorsAt(P, L - R), nullptr};
}

/// Whether the J copies of a block follow different trees: r >= 1 on the
/// cyclic group at P not a power of two. At a power of two the cyclic
/// copies' tree (residues modulo 2^k, split from the top) is the same under
/// every shift, and the XOR group's copies coincide; r = 0 has one copy.
bool copiesDiffer(Collective Kind, uint32_t P, Group G, unsigned R) {
  return Kind == Collective::Allreduce && G == Group::Cyclic && R >= 1 &&
         !llvm::isPowerOf2_32(P);
}

/// The most partials of one block a rank of order=identical may hold at
/// once, each in a scratch buffer of the vector's size (as Swing-L's cap).
constexpr uint32_t MostPartialsAllowed = 32;

constexpr llvm::StringLiteral Identical = "identical";
constexpr llvm::StringLiteral RankDependent = "rank-dependent";

StepOp sendOp(Buf Source, uint64_t Lo, uint64_t Hi) {
  return {OpKind::Send, Combine::Replace, Source, Source, Lo, Hi};
}
StepOp recvOp(Buf Dest, Combine Mode, uint64_t Lo, uint64_t Hi) {
  return {OpKind::Recv, Mode, Dest, Dest, Lo, Hi};
}
StepOp localOp(Buf Source, Buf Dest, uint64_t Lo, uint64_t Hi) {
  return {OpKind::Local, Combine::Reduce, Dest, Source, Lo, Hi};
}

/// Cyclic reduction step i (the paper's §8, J = N[L-r];
/// docs/algorithms/permutation.md, "Hybrid r"). A holds placements [0, J), B
/// placements [1, J + N_i - 1). Split says whether they already live apart
/// (after the first odd N_j).
Step cyclicReduction(const Shape &S, unsigned I, bool &Split) {
  uint64_t N = vectorsAt(S.P, I), Sh = N / 2, H2 = N - Sh, J = S.J;
  Step St{true, Sh, {}};
  uint64_t RecvLo = H2 - Sh, RecvHi = J + H2 - 1;
  Buf BBuf = Split ? Buf::Partial : Buf::Data;
  St.Ops.push_back(sendOp(BBuf, H2, J + N - 1));
  if (J == 1) {
    // A (placement 0) and B (placements >= 1) never share a block, and what
    // arrives is disjoint from what leaves: reduce in place.
    St.Ops.push_back(recvOp(Buf::Data, Combine::Reduce, RecvLo, RecvHi));
    return St;
  }
  bool Even = N % 2 == 0, Last = H2 == 1;
  if (!Split && !Even) {
    // The first odd step: q* stays raw in data, q' moves to partial.
    Split = true;
    St.Ops.push_back(recvOp(Buf::Partial, Combine::Replace, RecvLo, RecvHi));
    St.Ops.push_back(localOp(Buf::Data, Buf::Partial, RecvLo, RecvHi));
    return St;
  }
  if (Split && Last) {
    St.Ops.push_back(recvOp(Buf::Data, Combine::Reduce, RecvLo, RecvHi));
    return St;
  }
  St.Ops.push_back(recvOp(Buf::Recv, Combine::Replace, RecvLo, RecvHi));
  if (!Split) {
    // A and B coincide: one combine per block of the union.
    St.Ops.push_back(localOp(Buf::Recv, Buf::Data, RecvLo, RecvHi));
    return St;
  }
  if (Even)
    St.Ops.push_back(localOp(Buf::Recv, Buf::Data, 0, J));
  St.Ops.push_back(localOp(Buf::Recv, Buf::Partial, 1, J + H2 - 1));
  return St;
}

/// XOR reduction step i for P = 2^L (docs/algorithms/permutation.md,
/// "XOR group"): recursive halving while
/// N_i > J, recursive doubling on the J-block window after.
Step xorReduction(const Shape &S, unsigned I) {
  uint64_t N = vectorsAt(S.P, I), Sh = N / 2;
  Step St{true, Sh, {}};
  if (N > S.J) {
    St.Ops.push_back(sendOp(Buf::Data, Sh, N));
    St.Ops.push_back(recvOp(Buf::Data, Combine::Reduce, 0, Sh));
    return St;
  }
  St.Ops.push_back(sendOp(Buf::Data, 0, S.J));
  St.Ops.push_back(recvOp(Buf::Recv, Combine::Replace, 0, S.J));
  St.Ops.push_back(localOp(Buf::Recv, Buf::Data, 0, S.J));
  return St;
}

/// Distribution step reversing reduction step i of the bandwidth-optimal
/// schedule (the paper's §7): pass on what was combined, receive what was sent.
Step distribution(const Shape &S, unsigned I) {
  uint64_t N = vectorsAt(S.P, I), Sh = N / 2, H2 = N - Sh;
  Step St{false, Sh, {}};
  St.Ops.push_back(sendOp(Buf::Data, N - 2 * Sh, H2));
  St.Ops.push_back(recvOp(Buf::Data, Combine::Replace, H2, N));
  return St;
}

/// The rank-independent schedule: one Step per round.
llvm::SmallVector<Step, 32> scheduleOf(const Shape &S) {
  llvm::SmallVector<Step, 32> Steps;
  unsigned Keep = S.L; // Distribution steps L-1 .. L-Keep are dropped.
  if (S.Kind != Collective::Allgather) {
    bool Split = false;
    for (unsigned I = 0; I < S.L; ++I)
      Steps.push_back(S.G == Group::Xor ? xorReduction(S, I)
                                        : cyclicReduction(S, I, Split));
    Keep = S.L - S.R;
  }
  if (S.Kind != Collective::ReduceScatter)
    for (unsigned I = Keep; I-- > 0;)
      Steps.push_back(distribution(S, I));
  return Steps;
}

/// The blocks at placements [Lo, Hi) of rank Rank.
BlockSet blocksAt(const Shape &S, uint32_t Rank, uint64_t Lo, uint64_t Hi) {
  if (Lo >= Hi)
    return {};
  uint64_t P = S.P, Count = Hi - Lo;
  if (S.G == Group::Cyclic) {
    if (Count >= P)
      return BlockSet::range(0, P);
    // Placement k is block Rank - k: the range ends at block Rank - Lo.
    uint64_t Start = (Rank + P - (Hi - 1) % P) % P;
    return BlockSet::wrapped(Start, Count, P);
  }
  // Split [Lo, Hi) into aligned power-of-two pieces; XOR maps each onto an
  // aligned piece of blocks.
  BlockSet Out;
  Hi = std::min<uint64_t>(Hi, P);
  while (Lo < Hi) {
    uint64_t Size = Lo == 0 ? llvm::PowerOf2Floor(Hi) : Lo & -Lo;
    while (Lo + Size > Hi)
      Size /= 2;
    uint64_t Base = (Rank ^ Lo) & ~(Size - 1);
    Out.insert(Base, Base + Size);
    Lo += Size;
  }
  return Out;
}

uint32_t sendPeer(const Shape &S, const Step &St, uint32_t Rank) {
  if (S.G == Group::Xor)
    return Rank ^ uint32_t(St.Shift);
  uint64_t Sh = St.Shift % S.P;
  return St.Reduction ? (Rank + S.P - Sh) % S.P : (Rank + Sh) % S.P;
}

uint32_t recvPeer(const Shape &S, const Step &St, uint32_t Rank) {
  if (S.G == Group::Xor)
    return Rank ^ uint32_t(St.Shift);
  uint64_t Sh = St.Shift % S.P;
  return St.Reduction ? (Rank + Sh) % S.P : (Rank + S.P - Sh) % S.P;
}

bool usesBuffer(llvm::ArrayRef<Step> Steps, Buf B) {
  return llvm::any_of(Steps, [B](const Step &St) {
    return llvm::any_of(
        St.Ops, [B](const StepOp &O) { return O.Dest == B || O.Source == B; });
  });
}

uint16_t bufferIndex(const PlanHeader &H, Buf B) {
  if (B == Buf::Data)
    return DataBuffer;
  llvm::StringRef Name = B == Buf::Recv ? RecvName : PartialName;
  for (size_t I = 0; I < H.Buffers.size(); ++I)
    if (H.Buffers[I] == Name)
      return uint16_t(I);
  llvm_unreachable("schedule uses a buffer its header does not declare");
}

Program programOf(const Shape &S, const PlanHeader &H, uint32_t Rank) {
  Program Prog;
  llvm::SmallVector<Step, 32> Steps = scheduleOf(S);
  uint32_t First = 0;
  if (S.OneTree) {
    S.OneTree->appendRounds(S.P, Rank, Prog);
    First = S.L;
  }
  for (uint32_t Round = First; Round < Steps.size(); ++Round) {
    const Step &St = Steps[Round];
    for (const StepOp &O : St.Ops) {
      BlockSet Blocks = blocksAt(S, Rank, O.Lo, O.Hi);
      switch (O.Kind) {
      case OpKind::Send:
        Prog.add(Round, Op::send(sendPeer(S, St, Rank), std::move(Blocks),
                                 bufferIndex(H, O.Source)));
        break;
      case OpKind::Recv:
        Prog.add(Round, Op::recv(recvPeer(S, St, Rank), std::move(Blocks),
                                 O.Mode, bufferIndex(H, O.Dest)));
        break;
      case OpKind::Local:
        Prog.add(Round,
                 Op::local(bufferIndex(H, O.Source), bufferIndex(H, O.Dest),
                           std::move(Blocks), O.Mode));
        break;
      }
    }
  }
  return Prog;
}

/// The paper's estimate for parameter r: eq. (36) for r < L (r = 0 is eq.
/// (25)) and eq. (44) for r = L, with u = m / P.
double paperEstimate(uint32_t P, unsigned R, double M, const CostParams &C) {
  unsigned L = logRounds(P);
  if (L == 0)
    return 0;
  double U = M / P, Extra = std::ldexp(1.0, int(R)) - 1;
  if (R == L)
    return L * C.Alpha + double(P) * L * U * C.Beta +
           double(P) * (2.0 * L - 2) * U * C.Gamma;
  return (2.0 * L - R) * C.Alpha +
         (2.0 * (P - 1) + Extra * (L - 1)) * U * C.Beta +
         ((P - 1) + Extra * (2.0 * L - 2)) * U * C.Gamma;
}

/// The paper's eq. (37): the continuous optimum of (36); NaN when undefined
/// (P <= 2, where log2 P - 1 <= 0).
double paperOptimum(uint32_t P, double M, const CostParams &C) {
  double LogP = std::log2(double(P));
  if (P <= 2 || M <= 0)
    return std::numeric_limits<double>::quiet_NaN();
  return std::log2(C.Alpha / (M * (C.Beta + 2 * C.Gamma))) +
         std::log2(P / ((LogP - 1) * std::log(2.0)));
}

llvm::Expected<Group> groupFor(const CompileRequest &Request);

class PermutationAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "permutation"; }
  llvm::StringRef summary() const override {
    return "permutation-group allreduce (Kolmakov & Zhang): any P, 2L - r "
           "rounds trading bandwidth (r = 0) for latency (r = L)";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {Collective::Allreduce,
                                               Collective::ReduceScatter,
                                               Collective::Allgather};
    return Supported;
  }
  std::vector<Restriction> restrictions() const override {
    return {{Requirement::Commutative},
            {Requirement::PowerOfTwoRanks, "group", "xor", "use group=cyclic"}};
  }
  std::vector<ParamInfo> params() const override {
    return {{"r",
             "allreduce: distribution steps removed, 0 (bandwidth-optimal, "
             "2L rounds) .. L = ceil(log2 P) (latency-optimal, L rounds)",
             "chosen by the cost model", ParamDomain::integerFrom(0)},
            {"group", "cyclic (any P) or xor (P a power of two)",
             "xor for powers of two, else cyclic",
             ParamDomain::oneOf({"cyclic", "xor"})},
            {"order",
             "allreduce with r >= 1 at P not a power of two: identical (one "
             "combine tree per block on every rank: a step carries the "
             "partials of its subtrees, several blocks a placement) or "
             "rank-dependent (the paper's: each of the J copies its own tree)",
             "identical",
             ParamDomain::oneOf({Identical.str(), RankDependent.str()})}};
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override;
  Program buildRank(const PlanHeader &H, uint32_t Rank) const override;
  std::string explain(const CompileRequest &Request,
                      const PlanHeader &H) const override;
  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override {
    // Both orders where they differ; the verifier's verdict decides which
    // may serve (the identical one by default).
    if (Request.Kind != Collective::Allreduce)
      return {{}};
    uint32_t P = Request.ranks();
    llvm::Expected<Group> G = groupFor(Request);
    if (!G) {
      llvm::consumeError(G.takeError());
      return {{}};
    }
    std::vector<std::string> Orders = {Identical.str(), RankDependent.str()};
    if (Request.Params.count("order"))
      Orders = {Request.Params.at("order")};
    std::vector<unsigned> Rs;
    if (Request.Params.count("r")) {
      llvm::Expected<int64_t> R =
          integerParam(Request.Params, "r", 0, 0, logRounds(P));
      if (!R) {
        llvm::consumeError(R.takeError());
        return {{}};
      }
      Rs = {unsigned(*R)};
    } else {
      for (unsigned R = 0; R <= logRounds(P); ++R)
        Rs.push_back(R);
    }
    std::vector<std::map<std::string, std::string>> Out;
    for (unsigned R : Rs) {
      if (!copiesDiffer(Request.Kind, P, *G, R)) {
        Out.push_back({{"r", std::to_string(R)}});
        continue;
      }
      for (const std::string &O : Orders)
        Out.push_back({{"r", std::to_string(R)}, {"order", O}});
    }
    return Out;
  }
  bool rankSymmetric(const PlanHeader &) const override { return true; }

private:
  /// The header for a resolved group, r and order.
  llvm::Expected<PlanHeader> headerWith(const CompileRequest &Request, Group G,
                                        unsigned R, bool OneTree) const;
};

llvm::Expected<Group> groupFor(const CompileRequest &Request) {
  uint32_t P = Request.ranks();
  auto It = Request.Params.find("group");
  if (It == Request.Params.end())
    return P >= 2 && llvm::isPowerOf2_32(P) ? Group::Xor : Group::Cyclic;
  if (It->second == "cyclic")
    return Group::Cyclic;
  // A power-of-two P for xor is the catalog's restriction (checkRequest).
  if (It->second != "xor")
    return createStringError(inconvertibleErrorCode(),
                             "parameter group=%s: expected cyclic or xor",
                             It->second.c_str());
  return Group::Xor;
}

/// The shape prepare() resolved into H (group and, for allreduce, r).
const Shape &shapeOf(const PlanHeader &H) { return preparedAs<Shape>(H); }

llvm::Expected<PlanHeader>
PermutationAlgorithm::headerWith(const CompileRequest &Request, Group G,
                                 unsigned R, bool OneTree) const {
  PlanHeader H = headerFor(*this, Request);
  H.Blocks = H.Ranks;
  H.RequiresCommutative = true;
  H.Params["group"] = groupName(G).str();
  if (H.Kind == Collective::Allreduce)
    H.Params["r"] = std::to_string(R);
  Shape S = shapeOf(H.Kind, H.Ranks, G, R);
  if (copiesDiffer(H.Kind, H.Ranks, G, R)) {
    H.Params["order"] = (OneTree ? Identical : RankDependent).str();
    if (OneTree) {
      llvm::Expected<permutation::CommonTreeReduction> Reduction =
          permutation::commonTreeReduction(S.P, S.J, MostPartialsAllowed);
      if (!Reduction)
        return createStringError(
            inconvertibleErrorCode(),
            "%s (r = %u); r = 0 is identical on every rank",
            llvm::toString(Reduction.takeError()).c_str(), R);
      S.OneTree = std::make_shared<const permutation::CommonTreeReduction>(
          std::move(*Reduction));
      for (uint32_t K = 1; K < S.OneTree->Slots; ++K)
        H.Buffers.push_back(PartialName.str() + std::to_string(K));
      setPrepared(H, std::move(S));
      return H;
    }
  }
  setPrepared(H, std::move(S));
  llvm::SmallVector<Step, 32> Steps = scheduleOf(shapeOf(H));
  if (usesBuffer(Steps, Buf::Recv))
    H.Buffers.push_back(RecvName.str());
  if (usesBuffer(Steps, Buf::Partial))
    H.Buffers.push_back(PartialName.str());
  return H;
}

llvm::Expected<PlanHeader>
PermutationAlgorithm::prepare(const CompileRequest &Request) const {
  uint32_t P = Request.ranks();
  unsigned L = logRounds(P);
  llvm::Expected<Group> G = groupFor(Request);
  if (!G)
    return G.takeError();
  bool OneTree = true;
  if (auto It = Request.Params.find("order"); It != Request.Params.end()) {
    if (It->second != Identical && It->second != RankDependent)
      return createStringError(inconvertibleErrorCode(),
                               "parameter order=%s: expected identical or "
                               "rank-dependent",
                               It->second.c_str());
    OneTree = It->second == Identical;
  }
  if (Request.Kind != Collective::Allreduce) {
    // Reduce-scatter is the reduction phase alone, allgather the
    // distribution phase alone: there is no phase to shorten, so r = 0 is
    // the one value that applies.
    llvm::Expected<int64_t> R = integerParam(Request.Params, "r", 0, 0, 0);
    if (!R) {
      llvm::consumeError(R.takeError());
      return createStringError(inconvertibleErrorCode(),
                               "parameter r applies to allreduce only "
                               "(%s is one phase of it, r = 0)",
                               collectiveName(Request.Kind).str().c_str());
    }
    return headerWith(Request, *G, 0, OneTree);
  }
  if (Request.Params.count("r")) {
    llvm::Expected<int64_t> R = integerParam(Request.Params, "r", 0, 0, L);
    if (!R)
      return R.takeError();
    return headerWith(Request, *G, unsigned(*R), OneTree);
  }
  // Without r, the bandwidth-optimal end; the tuner prices the others.
  return headerWith(Request, *G, 0, OneTree);
}

Program PermutationAlgorithm::buildRank(const PlanHeader &H,
                                        uint32_t Rank) const {
  return programOf(shapeOf(H), H, Rank);
}

std::string PermutationAlgorithm::explain(const CompileRequest &Request,
                                          const PlanHeader &H) const {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  const Shape &S = shapeOf(H);
  if (H.Kind != Collective::Allreduce) {
    OS << "permutation " << collectiveName(H.Kind) << ": the "
       << (H.Kind == Collective::Allgather ? "distribution" : "reduction")
       << " phase alone, " << S.L << " rounds, group " << groupName(S.G)
       << "\n";
    return OS.str();
  }
  double M = double(Request.Bytes);
  OS << "permutation allreduce, P = " << S.P << ", L = " << S.L << ", group "
     << groupName(S.G) << ", m = " << Request.Bytes << " B, r = " << S.R
     << "\n";
  if (S.OneTree)
    OS << "order=identical: one tree per block (copy 0's); the reduction "
          "sends "
       << S.OneTree->BlocksSent << " blocks and combines "
       << S.OneTree->BlocksCombined << " per rank, in " << S.OneTree->Slots - 1
       << " scratch buffer(s) besides data\n";
  else if (copiesDiffer(H.Kind, S.P, S.G, S.R))
    OS << "order=rank-dependent: the J copies of a block follow shifted "
          "trees, so ranks may end with different bits\n";
  OS << "the paper's estimates, (36) for r < L and (44) for r = L "
        "(Kolmakov and Zhang, §§5-6), beside the plan's r:\n";
  OS << "   r   J  rounds  paper (36)/(44) [ms]\n";
  for (unsigned R = 0; R <= S.L; ++R)
    OS << llvm::format("%4u %3llu %7u %21.4f", R,
                       (unsigned long long)vectorsAt(S.P, S.L - R), 2 * S.L - R,
                       paperEstimate(S.P, R, M, Request.Cost) * 1e3)
       << (R == S.R ? "  <- this plan" : "") << "\n";
  if (S.P == 2)
    OS << "paper (44) has no gamma term at P = 2; the plan combines m bytes "
          "(spec §7.4)\n";
  double Star = paperOptimum(S.P, M, Request.Cost);
  if (std::isnan(Star))
    OS << "paper (37): undefined for P <= 2\n";
  else
    OS << llvm::format("paper (37), the continuous optimum of (36): r* = %.2f "
                       "(the plan's r lies in [0, %u])\n",
                       Star, S.L);
  return OS.str();
}

} // namespace

const Algorithm &permutationAlgorithm() {
  static const PermutationAlgorithm Instance;
  return Instance;
}

} // namespace collplan
