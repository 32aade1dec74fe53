//===- Circulant.cpp - Träff's circulant-graph collectives ----------------===//
//
// Lowers the schedules of CirculantSchedule.h to plans
// (docs/algorithms/circulant.md; Träff's papers, as restated there):
//
//   broadcast   n blocks from any root in n - 1 + q rounds, q = ceil(log2 P);
//   reduce      the broadcast run backwards (ReversedBroadcast.h): n blocks
//               to any root in the same n - 1 + q rounds;
//   allgather   one block per rank in q rounds, edges used backwards;
//   allgatherv  every rank the root of its own n-block broadcast, all P
//               broadcasts sharing the rounds;
//   allreduce   variant=census: the census algorithm for small vectors, q
//               rounds, by default (order=identical) in the canonical
//               combine tree (CirculantCensusTree.h), with order=
//               rank-dependent as printed; variant=reduce-broadcast: the
//               n-block reduce to rank 0, then the n-block broadcast from
//               it, 2(n - 1 + q) rounds.
//
// docs/algorithms/circulant.md ("Schedule arithmetic") explains each;
// the comments below cite its paragraphs.
//
// Broadcast, reduce, allgatherv and the reduce-broadcast allreduce cut each
// root's data into n blocks; without the `blocks` parameter n is the model
// optimum n* = sqrt((q-1) b m / a) for rounds of a + b m/n
// (docs/algorithms/circulant.md, "Block count"), rounded to the neighbour
// the cost model prefers.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/CirculantCensusTree.h"
#include "compiler/algorithms/CirculantSchedule.h"
#include "compiler/algorithms/ReversedBroadcast.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace collplan {
namespace {

using namespace circulant;
using llvm::createStringError;
using llvm::inconvertibleErrorCode;

/// Bounds on the block count: the plan holds P * (n + q) operations for a
/// broadcast or reduce and P * n blocks for allgatherv.
constexpr int64_t MaxBroadcastBlocks = int64_t(1) << 22;
constexpr uint64_t MaxAllgathervBlocks = uint64_t(1) << 24;
/// The tuner's n keeps a plan within about this many operations (each rank
/// sends and receives at most once a round, so 2P a round), which compile
/// and verify in about 4 s of CPU and 1.1 GiB (circulant.md, "Measured: the
/// n-block allreduce"). T(n) is flat near n*, so the cap costs little: at
/// P = 16384 it binds on the allreduce from about 43 MiB (n = 179 for
/// n* = 219 at 64 MiB: 0.2 % of the model's time; 2.4 % at 256 MiB).
constexpr uint64_t MaxTunedOperations = uint64_t(12) << 20;
// Census buffers ("Census allreduce").
constexpr uint16_t PartialBuffer = 1;  ///< W: the other ranks' sum so far.
constexpr uint16_t IncomingBuffer = 2; ///< A W received while ours is sent.
constexpr uint16_t OutgoingBuffer = 3; ///< V (+) W, sent in even rounds.

/// The two allreduces (docs/algorithms/circulant.md, "Census allreduce" and
/// "Allreduce, n blocks").
enum class AllreduceVariant { Census, ReduceBroadcast };

llvm::StringRef variantName(AllreduceVariant V) {
  return V == AllreduceVariant::Census ? "census" : "reduce-broadcast";
}

constexpr llvm::StringLiteral Identical = "identical";
constexpr llvm::StringLiteral RankDependent = "rank-dependent";

/// The most buffers the census in one tree may use, each the vector's size:
/// P = 64 needs 12 (circulant.md, "The census in one tree").
constexpr uint32_t MostCensusSlots = 64;
/// The largest P the census in one tree is built for: prepare() follows
/// every rank's pieces to count the buffers, O(P q^2 log P).
constexpr uint32_t MostCensusTreeRanks = 4096;

/// What prepare() resolved for an allreduce, read by buildRank.
struct AllreduceShape {
  AllreduceVariant Variant;
  /// The census in the canonical tree (order=identical).
  std::shared_ptr<const CensusTree> Tree;
};

/// Broadcast, reduce and the reduce-broadcast allreduce: one vector in n
/// blocks (allgatherv: every rank's own vector in n blocks).
bool fromOneRoot(Collective C) {
  return C == Collective::Broadcast || C == Collective::Reduce ||
         C == Collective::Allreduce;
}

/// A round of the n-block schedules costs PerRound + PerByte * m / n, so
/// that T(n) = (n - 1 + q)(PerRound + PerByte m / n) ("Block count").
struct BlockModel {
  double PerRound;
  double PerByte;
};

/// Broadcast and allgatherv move a block per round; the reduce also
/// combines it; the reduce-broadcast allreduce runs a reduce round and a
/// broadcast round for every round of one of them.
/// A round's latency is a message's: on a torus at least one hop more, the
/// whole of it where the platform puts its latency in the links (α = 0),
/// which would otherwise make every extra block look free.
BlockModel blockModel(const CompileRequest &Request) {
  const CostParams &C = Request.Cost;
  double Alpha = C.Alpha + C.Overhead +
                 (Request.Topo.kind() == TopologyKind::Torus ? C.AlphaHop : 0);
  switch (Request.Kind) {
  case Collective::Reduce:
    return {Alpha, C.Beta + C.Gamma};
  case Collective::Allreduce:
    return {2 * Alpha, 2 * C.Beta + C.Gamma};
  default:
    return {Alpha, C.Beta};
  }
}

/// The closed-form time of the n-block schedule of M bytes with q rounds per
/// phase.
double modelTime(unsigned Q, uint64_t N, uint64_t M, const BlockModel &B) {
  return double(N - 1 + Q) * (B.PerRound + B.PerByte * double(M) / double(N));
}

/// n* = sqrt((q - 1) PerByte m / PerRound), before rounding.
double optimalBlocks(unsigned Q, uint64_t M, const BlockModel &B) {
  if (Q <= 1)
    return 1;
  if (B.PerRound <= 0)
    return double(M);
  return std::sqrt(double(Q - 1) * B.PerByte * double(M) / B.PerRound);
}

/// The census's q rounds of the whole vector, each combined, and the final
/// combine of the rank's own value.
double censusTime(unsigned Q, uint64_t M, const CostParams &C) {
  return double(Q) * (C.Alpha + (C.Beta + C.Gamma) * double(M)) +
         C.Gamma * double(M);
}

/// The census in one tree: the same q rounds, each carrying as many whole
/// vectors as its busiest rank sends, each combined.
double censusTreeTime(const CensusTree &T, uint64_t M, const CostParams &C) {
  double Time = 0;
  for (uint32_t Vectors : T.mostSentPerRound())
    Time += C.Alpha + (C.Beta + C.Gamma) * double(Vectors) * double(M);
  return Time;
}

unsigned ceilLog2(uint32_t P) { return P <= 1 ? 0 : llvm::Log2_64_Ceil(P); }

/// Whether a census asked for is built in one tree: order=identical, or no
/// order up to MostCensusTreeRanks (past it the printed order).
bool censusInOneTree(const CompileRequest &Request) {
  auto It = Request.Params.find("order");
  if (It != Request.Params.end())
    return It->second == Identical;
  return Request.ranks() <= MostCensusTreeRanks;
}

class CirculantAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "circulant"; }
  llvm::StringRef summary() const override {
    return "Träff's circulant-graph schedules: n-block broadcast and "
           "reduce in n-1+ceil(log2 P) rounds, allgather(v), allreduce as "
           "the census (small vectors) or the n-block reduce then broadcast";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {
        Collective::Broadcast, Collective::Reduce, Collective::Allgather,
        Collective::Allgatherv, Collective::Allreduce};
    return Supported;
  }
  std::vector<ParamInfo> params() const override {
    return {{"blocks",
             "broadcast, reduce, allgatherv, allreduce (reduce-broadcast): "
             "blocks n each root's data is cut into",
             "chosen by the cost model",
             ParamDomain::integerFrom(1),
             /*Stage=*/false,
             /*Only=*/
             {Collective::Broadcast, Collective::Reduce, Collective::Allgatherv,
              Collective::Allreduce}},
            {"variant",
             "allreduce: census (q rounds of the whole vector) or "
             "reduce-broadcast (the n-block reduce to rank 0, then the "
             "n-block broadcast: 2(n-1+q) rounds of m/n)",
             "chosen by the cost model",
             ParamDomain::oneOf({"census", "reduce-broadcast"}),
             /*Stage=*/false,
             /*Only=*/{Collective::Allreduce}},
            {"order",
             "allreduce, variant=census: identical (every rank combines in "
             "the canonical tree for P, its partials as that tree's "
             "subtrees, several vectors a message) or rank-dependent (each "
             "rank sums in its own cyclic order, as printed)",
             "identical (rank-dependent past P = " +
                 std::to_string(MostCensusTreeRanks) + ")",
             ParamDomain::oneOf({Identical.str(), RankDependent.str()}),
             /*Stage=*/false,
             /*Only=*/{Collective::Allreduce}}};
  }
  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override;
  Program buildRank(const PlanHeader &H, uint32_t Rank) const override;
  std::string explain(const CompileRequest &Request,
                      const PlanHeader &Header) const override;
  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override;

private:
  /// Sets Blocks and Weights of H for n blocks per root.
  void layBlocks(PlanHeader &H, const CompileRequest &Request,
                 uint64_t N) const;
  uint64_t maxBlocks(const CompileRequest &Request) const;
  /// The integers below and above n* ("Block count").
  std::pair<uint64_t, uint64_t>
  blocksAround(const CompileRequest &Request) const;
  /// The one of them the closed form T(n) prefers: prepare()'s default.
  uint64_t chooseBlocks(const CompileRequest &Request) const;
  /// The allreduce asked for, or, when neither variant nor blocks is given,
  /// the one whose closed form is faster.
  AllreduceVariant chooseVariant(const CompileRequest &Request) const;
  /// n given by `blocks` or chosen by the model.
  llvm::Expected<uint64_t> blockCount(const CompileRequest &Request) const;

  void buildBroadcast(const PlanHeader &H, uint32_t Rank, Program &Prog) const;
  void buildAllgather(const PlanHeader &H, uint32_t Rank, Program &Prog) const;
  void buildAllgatherv(const PlanHeader &H, uint32_t Rank, Program &Prog) const;
  void buildCensus(const PlanHeader &H, uint32_t Rank, Program &Prog) const;
  void buildReduceBroadcast(const PlanHeader &H, uint32_t Rank,
                            Program &Prog) const;
};

uint64_t CirculantAlgorithm::maxBlocks(const CompileRequest &Request) const {
  if (fromOneRoot(Request.Kind))
    return MaxBroadcastBlocks;
  return std::max<uint64_t>(1, MaxAllgathervBlocks / Request.ranks());
}

void CirculantAlgorithm::layBlocks(PlanHeader &H, const CompileRequest &Request,
                                   uint64_t N) const {
  H.Params["blocks"] = std::to_string(N);
  if (fromOneRoot(H.Kind)) {
    H.Blocks = N;
    return;
  }
  // Allgatherv: rank j owns blocks [j n, (j+1) n), so PlanHeader::ownedBy
  // holds. Its w_j elements are split as evenly as integers allow: the first
  // w_j mod n blocks get one element more (circulant.md, "Errata and
  // decisions": block sizes).
  H.Blocks = uint64_t(H.Ranks) * N;
  H.Weights.assign(H.Blocks, 0);
  for (uint32_t J = 0; J < H.Ranks; ++J) {
    uint64_t W = Request.Weights[J];
    for (uint64_t I = 0; I < N; ++I)
      H.Weights[J * N + I] = W / N + (I < W % N ? 1 : 0);
  }
}

std::pair<uint64_t, uint64_t>
CirculantAlgorithm::blocksAround(const CompileRequest &Request) const {
  unsigned Q = ceilLog2(Request.ranks());
  // Empty blocks buy nothing: keep n <= m where m allows.
  uint64_t Cap =
      std::min(maxBlocks(Request), std::max<uint64_t>(1, Request.Bytes));
  // n - 1 + q rounds, twice for the allreduce, of 2P operations each.
  uint64_t MaxRounds =
      MaxTunedOperations / (2 * uint64_t(Request.ranks()) *
                            (Request.Kind == Collective::Allreduce ? 2 : 1));
  Cap = std::min(Cap, MaxRounds > Q ? MaxRounds + 1 - Q : 1);
  double Star = optimalBlocks(Q, Request.Bytes, blockModel(Request));
  auto Clamp = [&](double V) {
    return V < 1 ? uint64_t(1) : V >= double(Cap) ? Cap : uint64_t(V);
  };
  return {Clamp(std::floor(Star)), Clamp(std::ceil(Star))};
}

uint64_t CirculantAlgorithm::chooseBlocks(const CompileRequest &Request) const {
  // The paper's closed form picks between the neighbours of n*; the tuner
  // prices both with the cost model (candidates()).
  auto [Lo, Hi] = blocksAround(Request);
  unsigned Q = ceilLog2(Request.ranks());
  BlockModel B = blockModel(Request);
  return modelTime(Q, Hi, Request.Bytes, B) < modelTime(Q, Lo, Request.Bytes, B)
             ? Hi
             : Lo;
}

AllreduceVariant
CirculantAlgorithm::chooseVariant(const CompileRequest &Request) const {
  auto It = Request.Params.find("variant");
  if (It != Request.Params.end())
    return It->second == "census" ? AllreduceVariant::Census
                                  : AllreduceVariant::ReduceBroadcast;
  if (Request.Params.count("blocks"))
    return AllreduceVariant::ReduceBroadcast;
  unsigned Q = ceilLog2(Request.ranks());
  double Pipelined =
      modelTime(Q, chooseBlocks(Request), Request.Bytes, blockModel(Request));
  double Census = censusInOneTree(Request)
                      ? censusTreeTime(CensusTree(Request.ranks()),
                                       Request.Bytes, Request.Cost)
                      : censusTime(Q, Request.Bytes, Request.Cost);
  return Census <= Pipelined ? AllreduceVariant::Census
                             : AllreduceVariant::ReduceBroadcast;
}

llvm::Expected<uint64_t>
CirculantAlgorithm::blockCount(const CompileRequest &Request) const {
  if (!Request.Params.count("blocks"))
    return chooseBlocks(Request);
  llvm::Expected<int64_t> Given =
      integerParam(Request.Params, "blocks", 1, 1, int64_t(maxBlocks(Request)));
  if (!Given)
    return Given.takeError();
  return uint64_t(*Given);
}

std::vector<std::map<std::string, std::string>>
CirculantAlgorithm::candidates(const CompileRequest &Request) const {
  if (Request.Kind == Collective::Allgather)
    return {{}};
  bool Census = Request.Kind == Collective::Allreduce &&
                Request.Params.count("variant") &&
                Request.Params.at("variant") == "census";
  // The census's orders both compete where one tree is built; the
  // verifier's verdict decides which a request may take.
  std::vector<std::map<std::string, std::string>> Censuses;
  if (Request.Params.count("order"))
    Censuses.push_back({});
  else {
    if (Request.ranks() <= MostCensusTreeRanks)
      Censuses.push_back({{"order", Identical.str()}});
    Censuses.push_back({{"order", RankDependent.str()}});
  }
  if (Census)
    return Censuses;
  if (Request.Params.count("blocks"))
    return {{}};
  std::vector<std::map<std::string, std::string>> Out;
  // Both allreduces compete unless one is asked for.
  bool OpenVariant =
      Request.Kind == Collective::Allreduce && !Request.Params.count("variant");
  if (OpenVariant)
    for (auto &C : Censuses) {
      C["variant"] = "census";
      Out.push_back(std::move(C));
    }
  auto [Lo, Hi] = blocksAround(Request);
  llvm::SmallVector<uint64_t, 2> Counts = {Lo};
  if (Hi != Lo)
    Counts.push_back(Hi);
  for (uint64_t N : Counts) {
    std::map<std::string, std::string> C = {{"blocks", std::to_string(N)}};
    if (OpenVariant)
      C["variant"] = "reduce-broadcast";
    Out.push_back(std::move(C));
  }
  return Out;
}

llvm::Expected<PlanHeader>
CirculantAlgorithm::prepare(const CompileRequest &Request) const {
  if (llvm::Error E = checkRequest(*this, Request))
    return E;
  PlanHeader H = headerFor(*this, Request);
  // The census, the reduce and the reduce-broadcast allreduce combine in
  // their trees' orders, which keep rank order only on two ranks with the
  // root at rank 0 (docs/algorithms/circulant.md, "Errata and decisions":
  // rank order); the census never does. The other collectives move data
  // unchanged.
  bool InRankOrder = H.Ranks <= 2 && H.Root.value_or(0) == 0;
  H.RequiresCommutative =
      (H.Kind == Collective::Allreduce || H.Kind == Collective::Reduce) &&
      !InRankOrder;
  // The catalog (params()) limits blocks to the collectives that use it.
  switch (H.Kind) {
  case Collective::Broadcast:
  case Collective::Reduce:
  case Collective::Allgatherv: {
    llvm::Expected<uint64_t> N = blockCount(Request);
    if (!N)
      return N.takeError();
    layBlocks(H, Request, *N);
    break;
  }
  case Collective::Allgather:
    H.Blocks = H.Ranks;
    break;
  case Collective::Allreduce: {
    AllreduceVariant V = chooseVariant(Request);
    H.Params["variant"] = variantName(V).str();
    if (V == AllreduceVariant::ReduceBroadcast) {
      if (Request.Params.count("order"))
        return createStringError(
            inconvertibleErrorCode(),
            "parameter order of 'circulant' applies to the allreduce with "
            "variant=census only: the reduce-broadcast is identical on every "
            "rank already");
      setPrepared(H, AllreduceShape{V, nullptr});
      llvm::Expected<uint64_t> N = blockCount(Request);
      if (!N)
        return N.takeError();
      layBlocks(H, Request, *N);
      break;
    }
    H.RequiresCommutative = true;
    if (Request.Params.count("blocks"))
      return createStringError(
          inconvertibleErrorCode(),
          "parameter blocks of 'circulant' applies to the allreduce with "
          "variant=reduce-broadcast only: the census sends the whole vector");
    H.Blocks = 1;
    bool OneTree = censusInOneTree(Request);
    H.Params["order"] = (OneTree ? Identical : RankDependent).str();
    if (!OneTree) {
      // Every rank sums in its own cyclic order ("Census allreduce"):
      // correct only for commutative operators, and floating-point results
      // may differ between ranks in the last bits.
      H.Buffers = {"data", "partial", "incoming", "outgoing"};
      setPrepared(H, AllreduceShape{V, nullptr});
      break;
    }
    if (H.Ranks > MostCensusTreeRanks)
      return createStringError(
          inconvertibleErrorCode(),
          "circulant: variant=census order=identical is built up to P = %u "
          "(P = %u); order=rank-dependent or variant=reduce-broadcast serve "
          "larger P",
          MostCensusTreeRanks, H.Ranks);
    auto Tree = std::make_shared<const CensusTree>(H.Ranks);
    uint32_t Slots = Tree->slots();
    if (Slots > MostCensusSlots)
      return createStringError(
          inconvertibleErrorCode(),
          "circulant: variant=census order=identical would hold %u partials "
          "at once at P = %u (at most %u)",
          Slots, H.Ranks, MostCensusSlots);
    H.Buffers = {"data"};
    for (uint32_t J = 1; J < Slots; ++J)
      H.Buffers.push_back("partial" + std::to_string(J));
    setPrepared(H, AllreduceShape{V, std::move(Tree)});
    break;
  }
  default:
    break;
  }
  return H;
}

std::string CirculantAlgorithm::explain(const CompileRequest &Request,
                                        const PlanHeader &H) const {
  unsigned Q = ceilLog2(H.Ranks);
  std::string Text;
  llvm::raw_string_ostream Out(Text);
  if (H.Kind == Collective::Allgather) {
    Out << "circulant allgather: q = " << Q << " rounds; in round k a rank "
        << "receives skip[k+1] - skip[k] blocks";
    return Out.str();
  }
  bool Allreduce = H.Kind == Collective::Allreduce;
  if (Allreduce && H.Params.at("variant") == "census") {
    Out << "census allreduce: q = " << Q << " rounds of whole-vector "
        << "messages; ";
    if (H.Params.at("order") == RankDependent) {
      Out << "each rank sums in its own cyclic order, so floating-point "
          << "results may differ between ranks in the last bits";
      return Out.str();
    }
    const CensusTree &T = *preparedAs<AllreduceShape>(H).Tree;
    uint32_t Sent = 0;
    Out << "order=identical: every rank combines in the canonical tree for P, "
        << "carrying what it holds as that tree's maximal subtrees, at most ";
    llvm::ListSeparator Sep(", ");
    for (uint32_t V : T.mostSentPerRound()) {
      Out << Sep << V;
      Sent += V;
    }
    Out << " vectors a round (" << Sent << " in all, against " << Q
        << " in the printed order), " << H.Buffers.size() - 1
        << " scratch buffers";
    return Out.str();
  }
  uint64_t N = fromOneRoot(H.Kind) ? H.Blocks : H.Blocks / H.Ranks;
  uint64_t Rounds = Q == 0 ? 0 : N - 1 + Q;
  if (Allreduce)
    Out << "reduce-broadcast allreduce: n = " << N << " blocks, " << 2 * Rounds
        << " rounds (2(n - 1 + q), q = " << Q
        << "): the n-block reduce to rank 0, the broadcast schedule run "
        << "backwards, then the n-block broadcast from rank 0, so every rank "
        << "ends with rank 0's bits";
  else
    Out << "n = " << N << " blocks per root, " << Rounds
        << " rounds (n - 1 + q, q = " << Q << ")";
  if (H.Kind == Collective::Reduce)
    Out << ", the broadcast schedule run backwards";
  if (Request.Params.count("blocks")) {
    Out << "; n given by parameter blocks";
    return Out.str();
  }
  BlockModel B = blockModel(Request);
  Out << "; model optimum n* = sqrt((q-1) b m / a) = "
      << llvm::format("%.2f", optimalBlocks(Q, Request.Bytes, B))
      << ", rounded to the neighbour with the smaller predicted time; "
      << "T(n) = (n-1+q)(a + b m/n) = "
      << llvm::format("%.4g", modelTime(Q, N, Request.Bytes, B)) << " s";
  if (Allreduce)
    Out << " (a = 2 alpha, b = 2 beta + gamma)";
  else if (H.Kind == Collective::Reduce)
    Out << " (a = alpha, b = beta + gamma)";
  else
    Out << " (a = alpha, b = beta)";
  if (Request.Topo.kind() == TopologyKind::Torus)
    Out << "; on a torus alpha counts one hop more";
  return Out.str();
}

Program CirculantAlgorithm::buildRank(const PlanHeader &H,
                                      uint32_t Rank) const {
  Program Prog;
  if (H.Ranks <= 1)
    return Prog;
  switch (H.Kind) {
  case Collective::Broadcast:
    buildBroadcast(H, Rank, Prog);
    break;
  case Collective::Reduce: {
    Program Broadcast;
    buildBroadcast(H, Rank, Broadcast);
    unsigned Q = llvm::Log2_64_Ceil(H.Ranks);
    Prog = reversedBroadcast(Broadcast, uint32_t(H.Blocks - 1 + Q));
    break;
  }
  case Collective::Allgather:
    buildAllgather(H, Rank, Prog);
    break;
  case Collective::Allgatherv:
    buildAllgatherv(H, Rank, Prog);
    break;
  case Collective::Allreduce:
    if (const AllreduceShape &A = preparedAs<AllreduceShape>(H); A.Tree)
      A.Tree->appendRank(Rank, Prog);
    else if (A.Variant == AllreduceVariant::Census)
      buildCensus(H, Rank, Prog);
    else
      buildReduceBroadcast(H, Rank, Prog);
    break;
  default:
    break;
  }
  return Prog;
}

// "Phase rounds": real round t is round k of a phase whose entries are
// shifted by the phase offset. Negative blocks are virtual (nothing moves),
// blocks past n - 1 are capped, and nothing is sent to the root.
void CirculantAlgorithm::buildBroadcast(const PlanHeader &H, uint32_t Rank,
                                        Program &Prog) const {
  uint32_t P = H.Ranks, Root = H.Root.value_or(0);
  uint64_t N = H.Blocks;
  Skips S(P);
  unsigned Q = S.q();
  uint64_t Rel = (uint64_t(Rank) + P - Root) % P;
  PhaseSchedule Recv = receiveSchedule(S, Rel);
  PhaseSchedule Send = sendSchedule(S, Rel);
  for (uint64_t T = 0; T < N - 1 + Q; ++T) {
    PhaseRound PR = phaseRound(Q, N, T);
    uint32_t To = uint32_t(S.to(Rank, PR.K));
    uint32_t From = uint32_t(S.from(Rank, PR.K));
    int64_t Out = blockAt(Send[PR.K], PR.Offset, N);
    if (Out >= 0 && To != Root)
      Prog.add(uint32_t(T), Op::send(To, BlockSet::single(uint64_t(Out))));
    int64_t In = blockAt(Recv[PR.K], PR.Offset, N);
    if (In >= 0 && Rank != Root)
      Prog.add(uint32_t(T), Op::recv(From, BlockSet::single(uint64_t(In)),
                                     Combine::Replace));
  }
}

// "Allgather": after round k rank r holds the blocks of ranks
// r .. r + skip[k+1] - 1; it passes the first skip[k+1] - skip[k] of them
// backwards along edge k.
void CirculantAlgorithm::buildAllgather(const PlanHeader &H, uint32_t Rank,
                                        Program &Prog) const {
  uint32_t P = H.Ranks;
  Skips S(P);
  for (unsigned K = 0; K < S.q(); ++K) {
    uint64_t Count = S[K + 1] - S[K];
    uint64_t Ahead = S.to(Rank, K);
    Prog.add(K, Op::send(uint32_t(S.from(Rank, K)),
                         BlockSet::wrapped(Rank, Count, P)));
    Prog.add(K, Op::recv(uint32_t(Ahead), BlockSet::wrapped(Ahead, Count, P),
                         Combine::Replace));
  }
}

// "Allgatherv": each rank j broadcasts its n blocks with the
// schedules of the virtual ranks (r - j) mod P. The schedule table is the same
// for every root, so it is computed once per rank build: O(P log P).
void CirculantAlgorithm::buildAllgatherv(const PlanHeader &H, uint32_t Rank,
                                         Program &Prog) const {
  uint32_t P = H.Ranks;
  uint64_t N = H.Blocks / P;
  Skips S(P);
  unsigned Q = S.q();
  std::vector<int32_t> RecvTable(uint64_t(P) * Q);
  for (uint64_t V = 0; V < P; ++V) {
    PhaseSchedule R = receiveSchedule(S, V);
    std::copy(R.begin(), R.end(), RecvTable.begin() + V * Q);
  }
  // A sender's entry is what its receiver expects ("Send schedule");
  // the root (virtual rank 0) sends block k in round k.
  auto SendEntry = [&](uint64_t V, unsigned K) {
    return V == 0 ? int32_t(K) : RecvTable[S.to(V, K) * Q + K];
  };
  for (uint64_t T = 0; T < N - 1 + Q; ++T) {
    PhaseRound PR = phaseRound(Q, N, T);
    uint32_t To = uint32_t(S.to(Rank, PR.K));
    uint32_t From = uint32_t(S.from(Rank, PR.K));
    BlockSet Out, In;
    for (uint32_t J = 0; J < P; ++J) {
      uint64_t V = (uint64_t(Rank) + P - J) % P;
      if (J != To) {
        int64_t B = blockAt(SendEntry(V, PR.K), PR.Offset, N);
        if (B >= 0)
          Out.insert(J * N + uint64_t(B), J * N + uint64_t(B) + 1);
      }
      if (J != Rank) {
        int64_t B = blockAt(RecvTable[V * Q + PR.K], PR.Offset, N);
        if (B >= 0)
          In.insert(J * N + uint64_t(B), J * N + uint64_t(B) + 1);
      }
    }
    if (!Out.empty())
      Prog.add(uint32_t(T), Op::send(To, std::move(Out)));
    if (!In.empty())
      Prog.add(uint32_t(T), Op::recv(From, std::move(In), Combine::Replace));
  }
}

// "Census allreduce" (Bar-Noy, Kipnis and Schieber): after round k,
// partial W holds the sum of ranks r+1 .. r+skip[k+1]-1. When skip[k+1] is
// even, W (+) V goes to r - skip[k]; when odd, W alone goes to
// r - skip[k] + 1. A Recv may not land in a buffer sent in the same round,
// hence the incoming and outgoing buffers.
void CirculantAlgorithm::buildCensus(const PlanHeader &H, uint32_t Rank,
                                     Program &Prog) const {
  uint32_t P = H.Ranks;
  Skips S(P);
  unsigned Q = S.q();
  BlockSet All = BlockSet::single(0);
  auto Even = [&](unsigned K) { return S[K + 1] == 2 * S[K]; };
  for (unsigned K = 0; K < Q; ++K) {
    if (Even(K)) {
      // Round 0 is always even (skip[1] = 2) and W is still empty.
      Prog.add(K, Op::send(uint32_t(S.from(Rank, K)), All,
                           K == 0 ? DataBuffer : OutgoingBuffer));
      Prog.add(K, Op::recv(uint32_t(S.to(Rank, K)), All,
                           K == 0 ? Combine::Replace : Combine::Reduce,
                           PartialBuffer));
    } else {
      uint32_t Back = uint32_t((uint64_t(Rank) + P - S[K] + 1) % P);
      uint32_t Ahead = uint32_t((uint64_t(Rank) + S[K] - 1) % P);
      Prog.add(K, Op::send(Back, All, PartialBuffer));
      Prog.add(K, Op::recv(Ahead, All, Combine::Replace, IncomingBuffer));
      Prog.add(K,
               Op::local(IncomingBuffer, PartialBuffer, All, Combine::Reduce));
    }
    if (K + 1 < Q && Even(K + 1)) {
      Prog.add(K, Op::local(DataBuffer, OutgoingBuffer, All, Combine::Replace));
      Prog.add(K,
               Op::local(PartialBuffer, OutgoingBuffer, All, Combine::Reduce));
    }
  }
  Prog.add(Q - 1, Op::local(PartialBuffer, DataBuffer, All, Combine::Reduce));
}

// "Allreduce, n blocks": the reduce to rank 0 (the broadcast from rank 0 run
// backwards, ReversedBroadcast.h) in rounds 0 .. n - 2 + q, then that
// broadcast in rounds n - 1 + q .. 2(n - 1 + q) - 1. Rank 0 combines each
// block once, in its reduce tree; every other rank's copy is replaced by
// rank 0's, so all ranks end with the same bits.
void CirculantAlgorithm::buildReduceBroadcast(const PlanHeader &H,
                                              uint32_t Rank,
                                              Program &Prog) const {
  Program Broadcast;
  buildBroadcast(H, Rank, Broadcast);
  uint32_t Rounds = uint32_t(H.Blocks - 1 + llvm::Log2_64_Ceil(H.Ranks));
  // Room for both halves at once: growing the vector copies every round.
  Prog = reversedBroadcast(Broadcast, Rounds, Broadcast.Rounds.size());
  for (Round &Rd : Broadcast.Rounds)
    for (Op &O : Rd.Ops)
      Prog.add(Rounds + Rd.Index, std::move(O));
}

} // namespace

const Algorithm &circulantAlgorithm() {
  static const CirculantAlgorithm Instance;
  return Instance;
}

} // namespace collplan
