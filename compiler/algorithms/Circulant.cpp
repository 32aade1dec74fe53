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
//   allreduce   the census algorithm for small vectors, q rounds.
//
// docs/algorithms/circulant.md ("Schedule arithmetic") explains each;
// the comments below cite its paragraphs.
//
// Broadcast, reduce and allgatherv cut each root's data into n blocks;
// without the `blocks` parameter n is the model optimum
// n* = sqrt((q-1) beta m / alpha) (docs/algorithms/circulant.md), rounded to
// the neighbour the cost model prefers.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/algorithms/CirculantSchedule.h"
#include "compiler/algorithms/ReversedBroadcast.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

namespace collplan {
namespace {

using namespace circulant;
using llvm::createStringError;
using llvm::inconvertibleErrorCode;

/// Bounds on the block count: the plan holds P * (n + q) operations for a
/// broadcast or reduce and P * n blocks for allgatherv.
constexpr int64_t MaxBroadcastBlocks = int64_t(1) << 22;
constexpr uint64_t MaxAllgathervBlocks = uint64_t(1) << 24;
// Census buffers ("Census allreduce").
constexpr uint16_t PartialBuffer = 1;  ///< W: the other ranks' sum so far.
constexpr uint16_t IncomingBuffer = 2; ///< A W received while ours is sent.
constexpr uint16_t OutgoingBuffer = 3; ///< V (+) W, sent in even rounds.

bool usesBlocks(Collective C) {
  return C == Collective::Broadcast || C == Collective::Reduce ||
         C == Collective::Allgatherv;
}

/// Broadcast and reduce: one root's data in n blocks.
bool fromOneRoot(Collective C) {
  return C == Collective::Broadcast || C == Collective::Reduce;
}

/// The closed-form time of an n-block broadcast of M bytes on P ranks.
double modelTime(unsigned Q, uint64_t N, uint64_t M, const CostParams &C) {
  return double(N - 1 + Q) * (C.Alpha + C.Beta * double(M) / double(N));
}

/// n* = sqrt((q - 1) beta m / alpha), before rounding.
double optimalBlocks(unsigned Q, uint64_t M, const CostParams &C) {
  if (Q <= 1)
    return 1;
  if (C.Alpha <= 0)
    return double(M);
  return std::sqrt(double(Q - 1) * C.Beta * double(M) / C.Alpha);
}

class CirculantAlgorithm final : public Algorithm {
public:
  llvm::StringRef name() const override { return "circulant"; }
  llvm::StringRef summary() const override {
    return "Träff's circulant-graph schedules: n-block broadcast and "
           "reduce in n-1+ceil(log2 P) rounds, allgather(v), census "
           "allreduce for small vectors";
  }
  llvm::ArrayRef<Collective> collectives() const override {
    static constexpr Collective Supported[] = {
        Collective::Broadcast, Collective::Reduce, Collective::Allgather,
        Collective::Allgatherv, Collective::Allreduce};
    return Supported;
  }
  std::vector<ParamInfo> params() const override {
    return {
        {"blocks",
         "broadcast, reduce, allgatherv: blocks n each root's data is "
         "cut into",
         "chosen by the cost model",
         ParamDomain::integerFrom(1),
         /*Stage=*/false,
         /*Only=*/
         {Collective::Broadcast, Collective::Reduce, Collective::Allgatherv}}};
  }

  llvm::Expected<PlanHeader>
  prepare(const CompileRequest &Request) const override;
  Program buildRank(const PlanHeader &H, uint32_t Rank) const override;
  std::string explain(const CompileRequest &Request,
                      const PlanHeader &Header) const override;
  std::vector<std::map<std::string, std::string>>
  candidates(const CompileRequest &Request) const override {
    if (!usesBlocks(Request.Kind) || Request.Params.count("blocks"))
      return {{}};
    auto [Lo, Hi] = blocksAround(Request);
    if (Lo == Hi)
      return {{{"blocks", std::to_string(Lo)}}};
    return {{{"blocks", std::to_string(Lo)}}, {{"blocks", std::to_string(Hi)}}};
  }

private:
  /// Sets Blocks and Weights of H for n blocks per root.
  void layBlocks(PlanHeader &H, const CompileRequest &Request,
                 uint64_t N) const;
  uint64_t maxBlocks(const CompileRequest &Request) const;
  /// The integers below and above n* = sqrt((q - 1) beta m / alpha).
  std::pair<uint64_t, uint64_t>
  blocksAround(const CompileRequest &Request) const;
  /// The one of them the closed form (n - 1 + q)(alpha + beta m / n)
  /// prefers: prepare()'s default.
  uint64_t chooseBlocks(const CompileRequest &Request) const;

  void buildBroadcast(const PlanHeader &H, uint32_t Rank, Program &Prog) const;
  void buildAllgather(const PlanHeader &H, uint32_t Rank, Program &Prog) const;
  void buildAllgatherv(const PlanHeader &H, uint32_t Rank, Program &Prog) const;
  void buildAllreduce(const PlanHeader &H, uint32_t Rank, Program &Prog) const;
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
  uint32_t P = Request.ranks();
  unsigned Q = P <= 1 ? 0 : llvm::Log2_64_Ceil(P);
  // Empty blocks buy nothing: keep n <= m where m allows.
  uint64_t Cap =
      std::min(maxBlocks(Request), std::max<uint64_t>(1, Request.Bytes));
  double Star = optimalBlocks(Q, Request.Bytes, Request.Cost);
  auto Clamp = [&](double V) {
    return V < 1 ? uint64_t(1) : V >= double(Cap) ? Cap : uint64_t(V);
  };
  return {Clamp(std::floor(Star)), Clamp(std::ceil(Star))};
}

uint64_t CirculantAlgorithm::chooseBlocks(const CompileRequest &Request) const {
  // The paper's closed form picks between the neighbours of n*; the tuner
  // prices both with the cost model (candidates()).
  auto [Lo, Hi] = blocksAround(Request);
  unsigned Q = Request.ranks() <= 1 ? 0 : llvm::Log2_64_Ceil(Request.ranks());
  return modelTime(Q, Hi, Request.Bytes, Request.Cost) <
                 modelTime(Q, Lo, Request.Bytes, Request.Cost)
             ? Hi
             : Lo;
}

llvm::Expected<PlanHeader>
CirculantAlgorithm::prepare(const CompileRequest &Request) const {
  if (llvm::Error E = checkRequest(*this, Request))
    return E;
  PlanHeader H = headerFor(*this, Request);
  // The census and the reduce combine in their trees' orders; the other
  // collectives move data unchanged.
  H.RequiresCommutative =
      H.Kind == Collective::Allreduce || H.Kind == Collective::Reduce;
  // The catalog (params()) limits blocks to the collectives that use it.
  bool GivenBlocks = Request.Params.count("blocks");
  switch (H.Kind) {
  case Collective::Broadcast:
  case Collective::Reduce:
  case Collective::Allgatherv: {
    uint64_t N = 0;
    if (GivenBlocks) {
      llvm::Expected<int64_t> Given = integerParam(
          Request.Params, "blocks", 1, 1, int64_t(maxBlocks(Request)));
      if (!Given)
        return Given.takeError();
      N = uint64_t(*Given);
    } else {
      N = chooseBlocks(Request);
    }
    layBlocks(H, Request, N);
    break;
  }
  case Collective::Allgather:
    H.Blocks = H.Ranks;
    break;
  case Collective::Allreduce:
    // Every rank sums in its own cyclic order ("Census allreduce"):
    // correct only for commutative operators, and floating-point results may
    // differ between ranks in the last bits.
    H.Blocks = 1;
    H.Buffers = {"data", "partial", "incoming", "outgoing"};
    break;
  default:
    break;
  }
  return H;
}

std::string CirculantAlgorithm::explain(const CompileRequest &Request,
                                        const PlanHeader &H) const {
  unsigned Q = H.Ranks <= 1 ? 0 : llvm::Log2_64_Ceil(H.Ranks);
  std::string Text;
  llvm::raw_string_ostream Out(Text);
  if (H.Kind == Collective::Allgather) {
    Out << "circulant allgather: q = " << Q << " rounds; in round k a rank "
        << "receives skip[k+1] - skip[k] blocks";
    return Out.str();
  }
  if (H.Kind == Collective::Allreduce) {
    Out << "census allreduce: q = " << Q << " rounds of whole-vector "
        << "messages; each rank sums in its own cyclic order, so "
        << "floating-point results may differ between ranks in the last bits";
    return Out.str();
  }
  uint64_t N = fromOneRoot(H.Kind) ? H.Blocks : H.Blocks / H.Ranks;
  Out << "n = " << N << " blocks per root, " << (Q == 0 ? 0 : N - 1 + Q)
      << " rounds (n - 1 + q, q = " << Q << ")";
  if (H.Kind == Collective::Reduce)
    Out << ", the broadcast schedule run backwards";
  if (Request.Params.count("blocks")) {
    Out << "; n given by parameter blocks";
    return Out.str();
  }
  Out << "; model optimum n* = sqrt((q-1) beta m / alpha) = "
      << llvm::format("%.2f", optimalBlocks(Q, Request.Bytes, Request.Cost))
      << ", rounded to the neighbour with the smaller predicted time; "
      << "T(n) = (n-1+q)(alpha + beta m/n) = "
      << llvm::format("%.4g", modelTime(Q, N, Request.Bytes, Request.Cost))
      << " s";
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
    buildAllreduce(H, Rank, Prog);
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
void CirculantAlgorithm::buildAllreduce(const PlanHeader &H, uint32_t Rank,
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

} // namespace

const Algorithm &circulantAlgorithm() {
  static const CirculantAlgorithm Instance;
  return Instance;
}

} // namespace collplan
