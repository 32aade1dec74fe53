//===- Plan.h - The plan IR: per-rank programs of rounds --------*- C++ -*-===//
//
// The one IR every part of collplan reads (ARCHITECTURE.md, "What a plan
// means", and its rule 1). Algorithms produce Plans; the verifier, the cost
// model, the serializers, the exporters and the runtime consume them without
// knowing which algorithm made them.
//
// Semantics of one round at one rank:
//   1. every Send reads its blocks as they were when the round began;
//   2. every Recv lands (Replace) or is combined into the destination
//      (Reduce: destination = destination (+) incoming);
//   3. Local operations then run in the order listed.
// Within a round a rank's Recv destinations may not overlap each other or its
// Send sources (the runtime receives in place). The i-th Send from A to B in a
// round matches the i-th Recv at B from A in the same round, carrying the same
// blocks.
//
// Operand order: a Reduce computes destination (+) incoming, the destination
// on the left (Recv: incoming = the message; Local: incoming = Source). A
// plan with RequiresCommutative == false promises x_0 (+) x_1 (+) ... (+)
// x_{P-1} for every block, so each partial must hold a run of consecutive
// ranks and every Reduce must combine a destination holding ranks a..b with
// an incoming partial holding b+1..c. That is what lets such a plan run with
// a non-commutative (associative) operator.
//
// The rules a valid plan keeps. checkStructure (below; every reader runs it)
// enforces the first group, the verifier (compiler/verify) the rest:
//   - peers and buffers exist, rounds strictly increase, blocks lie in
//     [0, Blocks), weights and root fit the header, and the weights, if any,
//     are not all 0 (such a plan moves nothing);
//   - no empty transfer: every operation moves at least one block;
//   - no self-message: a rank never sends to or receives from itself;
//   - no Local operation from a buffer into itself;
//   - every Send pairs with one Recv, per the rule above; receives overlap
//     neither each other nor the round's sends;
//   - a collective that does not reduce contains no Reduce;
//   - no Send, copy or Reduce reads a block that holds no data, and no Reduce
//     writes into one;
//   - no double counting: no contribution is combined twice into a value
//     that reaches a promised block (a doubled value overwritten before
//     then changes no result, and the verifier's exact and hashed modes
//     both accept it);
//   - operand order as above when RequiresCommutative is false;
//   - at the end every rank holds what the collective promises
//     (CollectiveContract.h).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_PLAN_H
#define COLLPLAN_IR_PLAN_H

#include "plan/ir/BlockSet.h"
#include "plan/ir/CollectiveContract.h"
#include "plan/ir/Topology.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

enum class OpKind : uint8_t {
  Send,  ///< Send Blocks of Buffer to Peer.
  Recv,  ///< Receive Blocks from Peer into Buffer, combined per Mode.
  Local, ///< Combine Blocks of buffer Source into Buffer per Mode.
};

enum class Combine : uint8_t {
  Replace, ///< The destination takes the incoming data.
  Reduce,  ///< destination = destination (+) incoming.
};

/// The data buffer: initialised with the rank's contribution, holds the
/// result at the end. Further buffers are scratch space of the same shape.
constexpr uint16_t DataBuffer = 0;

struct Op {
  OpKind Kind = OpKind::Send;
  Combine Mode = Combine::Replace; ///< Recv and Local only.
  uint16_t Buffer = DataBuffer;    ///< Send: source; Recv, Local: destination.
  uint16_t Source = DataBuffer;    ///< Local only: the source buffer.
  uint32_t Peer = 0;               ///< Send and Recv only.
  BlockSet Blocks;

  static Op send(uint32_t Peer, BlockSet Blocks, uint16_t Buffer = DataBuffer);
  static Op recv(uint32_t Peer, BlockSet Blocks, Combine Mode,
                 uint16_t Buffer = DataBuffer);
  static Op local(uint16_t Source, uint16_t Destination, BlockSet Blocks,
                  Combine Mode);

  friend bool operator==(const Op &A, const Op &B) {
    return A.Kind == B.Kind && A.Mode == B.Mode && A.Buffer == B.Buffer &&
           A.Source == B.Source && A.Peer == B.Peer && A.Blocks == B.Blocks;
  }
};

/// The operations one rank performs concurrently in global round Index.
struct Round {
  uint32_t Index = 0;
  llvm::SmallVector<Op, 2> Ops;
};

/// One rank's program: its rounds in strictly increasing Index order. A rank
/// idle in a round simply has no Round with that index.
struct Program {
  std::vector<Round> Rounds;

  /// Appends Operation to round Index, opening the round if it is new.
  /// Rounds must be added in non-decreasing index order.
  void add(uint32_t Index, Op Operation);
  /// The number of operations in all rounds.
  uint64_t numOps() const;
};

/// Bounds what Program::add keeps on this thread while the budget lives:
/// past Limit operations add() only counts, so sizing a program that may be
/// huge (rank 0's, to estimate a plan's size before building it) costs
/// bounded memory. A program built under an exceeded budget is truncated and
/// must be discarded.
class OpBudget {
public:
  explicit OpBudget(uint64_t Limit);
  ~OpBudget();
  OpBudget(const OpBudget &) = delete;
  OpBudget &operator=(const OpBudget &) = delete;

  /// Operations added on this thread since the budget began, kept or not.
  uint64_t added() const { return Added; }
  bool exceeded() const { return Added > Limit; }
  /// Whether the innermost budget on this thread is exceeded: a builder's
  /// loops may stop early then, since the program will be discarded.
  static bool exceededOnThisThread();
  /// Whether Ops more operations would exceed the innermost budget on this
  /// thread; if so they are counted as added. Lets a builder whose sets cost
  /// far more than its operations (Swing's reduce-scatter at P = 2^24: a
  /// second per rank) give up before computing them.
  static bool cannotFit(uint64_t Ops);

private:
  friend struct Program;
  uint64_t Limit;
  uint64_t Added = 0;
  OpBudget *Outer;
};

/// What `collplan compile` and `collplan verify --stamp` record when the
/// verifier accepted a plan, so that the runtime runs only verified plans.
/// It is bound to the plan's content by its hash: any change to the header or
/// a program changes the hash and leaves the stamp stale. It guards against
/// mistakes (a hand-edited, corrupted or foreign plan), not against someone
/// who recomputes the hash on purpose.
struct VerificationStamp {
  /// planHash of the plan the verifier accepted.
  uint64_t PlanHash = 0;
  /// The verifier's verdict that every rank combines in the same order, so
  /// that every rank ends with the same bits (VerifyResult).
  bool IdenticalResults = false;
  /// The verifier's verdict that every reduced block the plan promises was
  /// combined in the canonical tree for P, so every element is, at any
  /// message size (VerifyResult::Reproducible; docs/reproducibility.md).
  bool Reproducible = false;
  /// Which verifier: "collplan <version>".
  std::string Verifier;
};

/// What a family derived from PlanHeader::Params (and the topology) in
/// prepare(): its parameters as typed values and whatever shape it computes
/// from them, so that building a rank parses no strings. Each family derives
/// its own (compiler/algorithms/Algorithm.h, preparedAs).
struct PreparedParams {
  virtual ~PreparedParams();
};

/// Everything about a plan except the per-rank programs: what an algorithm
/// decides once, before building any rank, and what a launcher needs to build
/// only its own rank.
struct PlanHeader {
  Collective Kind = Collective::Allreduce;
  uint32_t Ranks = 1;
  Topology Topo = Topology::flat(1);
  std::string Algorithm;
  /// The algorithm's parameters with every default resolved, sorted by name.
  std::map<std::string, std::string> Params;
  /// The user's vector is split into Blocks blocks.
  uint64_t Blocks = 1;
  /// Relative block sizes; empty means all blocks are the same size.
  std::vector<uint64_t> Weights;
  /// Broadcast and reduce only.
  std::optional<uint32_t> Root;
  /// Buffer names; Buffers[0] is "data".
  std::vector<std::string> Buffers = {"data"};
  /// Whether the plan combines contributions out of rank order. False is a
  /// promise the verifier checks: see "Operand order" above.
  bool RequiresCommutative = true;
  /// Set when a verifier accepted the plan; not part of the plan's content
  /// (planHash leaves it out).
  std::optional<VerificationStamp> Stamp;
  /// Set by the family's prepare() for its buildRank(); not part of the
  /// plan's content either: Params is its serialised form, and a header read
  /// from a file has none.
  std::shared_ptr<const PreparedParams> Prepared;

  /// For allgather(v) and reduce-scatter: the rank whose block b is (ranks
  /// own Blocks / Ranks consecutive blocks each).
  uint32_t ownerOf(uint64_t Block) const;
  /// The blocks rank R owns (see ownerOf).
  BlockSet ownedBy(uint32_t Rank) const;
  /// For alltoall(v): the blocks per (sender, receiver) pair, Blocks / P^2.
  /// Block b goes from ownerOf(b) to addresseeOf(b): the vector is the P x P
  /// matrix of pairs, row-major, each pair a run of pairBlocks() blocks.
  uint64_t pairBlocks() const;
  uint32_t addresseeOf(uint64_t Block) const;
  /// The blocks every rank addresses to rank R: one run per sender.
  BlockSet addressedTo(uint32_t Rank) const;

  /// The collective's contract (CollectiveContract.h) applied to this plan:
  /// the blocks Rank contributes, the blocks whose final value it is
  /// promised, and, for collectives that do not reduce, the rank whose input
  /// an output block carries.
  BlockSet inputBlocks(uint32_t Rank) const;
  BlockSet outputBlocks(uint32_t Rank) const;
  uint32_t contributorOf(uint64_t Block) const;
};

/// The largest weight a block of a plan with Blocks blocks may have: the
/// weights' prefix sums (BlockLayout) then stay below 2^62 and cannot
/// overflow. Writers and readers share this bound, so every plan written can
/// be read back.
inline uint64_t maxBlockWeight(uint64_t Blocks) {
  return (uint64_t(1) << 62) / (Blocks ? Blocks : 1);
}

struct Plan {
  PlanHeader Header;
  /// Programs[r] is rank r's program; there are Header.Ranks of them.
  std::vector<Program> Programs;
};

/// Where a problem sits in a plan; -1 means "not applicable".
struct PlanLocation {
  int64_t Rank = -1;
  int64_t Round = -1;
  int64_t Op = -1;
};

struct Diagnostic {
  PlanLocation Where;
  std::string Message;

  /// "rank 3, round 5, op 1: message".
  std::string str() const;
};

/// Checks what can be checked one operation at a time: ranks and peers in
/// range, rounds strictly increasing, blocks within [0, Blocks), buffers
/// declared, weights and root consistent with the header. Returns at most
/// MaxErrors diagnostics; none means the plan is well formed.
std::vector<Diagnostic> checkStructure(const Plan &P, size_t MaxErrors = 20);
/// checkStructure's checks of the header and of one rank's program, for a
/// reader that holds only that rank (plan/serialize/RankSlice.h).
std::vector<Diagnostic> checkRankStructure(const PlanHeader &H, uint32_t Rank,
                                           const Program &Prog,
                                           size_t MaxErrors = 20);

} // namespace collplan

#endif // COLLPLAN_IR_PLAN_H
