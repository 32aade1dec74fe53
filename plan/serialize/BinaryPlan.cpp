//===- BinaryPlan.cpp - Plans in the compact binary form (.cplan) ---------===//
//
// Layout (version 3): the 8-byte magic, the version, then
//
//   hash          8 bytes, little-endian: the plan hash (planHash), FNV-1a of
//                 the magic, the version, and everything from the collective
//                 to the end of the offset table (which holds each program's
//                 own hash), so it covers every program
//   stamp         hasstamp [planhash (8 bytes) verdicts verifier]: the
//                 verification stamp (Plan.h), outside the hash; verdicts
//                 is bit 0 identical_results, bit 1 reproducible (a stamp
//                 from before the second verdict has it clear)
//   collective ranks
//   topology: kind nodes ppn mapping [ranks node...] [ndims dim...]
//             (the node of every rank for an explicit mapping, dims for a
//             torus)
//   algorithm  nparams (name value)...  blocks  nweights weight...
//   hasroot [root]  nbuffers name...  requires_commutative
//   nprograms
//   table         nprograms x 16 bytes, little-endian: where each rank's
//                 program starts, counted from the collective's byte (the
//                 first follows the table,
//                 each is past the one before, the last program ends with
//                 the file), and the FNV-1a of that program's bytes
//   programs, rank 0 first; each: nrounds, per round:
//     index-delta (index - previous index - 1; the first: index)  nops
//     per op: a header byte
//               bits 0-1 kind (send, recv, local)   bit 2 combine = reduce
//               bit 3 same peer as the round's previous op
//               bits 4-7 buffer, or 15: the buffer follows
//             [buffer] [source, for local] [peer, unless bit 3]
//             nranges (gap length-1)...      gap: begin - previous end
//
// Integers other than the hash and the offsets are unsigned LEB128; strings
// are a length and UTF-8 bytes. A peer is stored relative to its rank (the
// shorter way round the ring of ranks, zigzag-encoded), and a block range
// relative to the previous one, so the common patterns (ring neighbours,
// halving partners, contiguous ranges) take a byte or two. The reader checks
// every count against the bytes left before it reserves anything.
//
// The offsets let a process that runs one rank decode the header and its own
// program only (decodeBinaryRank, RankSlice.h), and the hashes let it check
// what it read without reading the others: its program's bytes against its
// table entry, the header and table against the stored hash. So the stored
// hash, which it compares with its peers', and a stamp bound to it vouch for
// the bytes it runs. A whole read checks every program and that each ends
// exactly where the next one starts. Versions 1 (no hash, no table) and 2
// (no program hashes, no stamp) are refused with a request to recompile:
// .cplan files are compiled artefacts, and one layout is one reader to
// harden.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/BinaryBytes.h"
#include "plan/serialize/BinaryLayout.h"
#include "plan/serialize/HeaderChecks.h"
#include "plan/serialize/PlanCodecs.h"
#include "plan/serialize/PlanFields.h"
#include "plan/serialize/PlanFile.h"
#include "plan/serialize/PlanLocation.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"

namespace collplan {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace {

enum : uint8_t {
  KindMask = 0x3,
  ReduceBit = 0x4,
  SamePeerBit = 0x8,
  BufferShift = 4,
  BufferEscape = 15,
};

void encodeOp(const Op &O, uint32_t Rank, uint32_t P,
              std::optional<uint32_t> PreviousPeer, ByteWriter &W) {
  bool HasPeer = O.Kind != OpKind::Local;
  bool SamePeer = HasPeer && PreviousPeer && *PreviousPeer == O.Peer;
  uint8_t Header = uint8_t(O.Kind) & KindMask;
  if (O.Mode == Combine::Reduce)
    Header |= ReduceBit;
  if (SamePeer)
    Header |= SamePeerBit;
  Header |= uint8_t(std::min<unsigned>(O.Buffer, BufferEscape) << BufferShift);
  W.byte(Header);
  if (O.Buffer >= BufferEscape)
    W.uleb(O.Buffer);
  if (O.Kind == OpKind::Local)
    W.uleb(O.Source);
  if (HasPeer && !SamePeer) {
    // Peers of a well-formed plan are ranks: store the shorter way round the
    // ring from Rank to Peer, zigzag-encoded (ring neighbours take a byte).
    // Any other value is kept as 2P + Peer so that nothing is lost.
    if (O.Peer < P && Rank < P) {
      uint64_t Forward = (uint64_t(O.Peer) + P - Rank) % P;
      W.uleb(Forward <= P / 2 ? 2 * Forward : 2 * (P - Forward) - 1);
    } else {
      W.uleb(2 * uint64_t(P) + O.Peer);
    }
  }
  W.uleb(O.Blocks.ranges().size());
  uint64_t PreviousEnd = 0;
  for (const BlockRange &R : O.Blocks.ranges()) {
    W.uleb(R.Begin - PreviousEnd);
    W.uleb(R.End - R.Begin - 1);
    PreviousEnd = R.End;
  }
}

Expected<Topology> decodeTopology(ByteReader &In, uint32_t Ranks) {
  COLLPLAN_TRY(Kind, In.uleb("topology.kind", 0, 1));
  COLLPLAN_TRY(Nodes, In.uleb("topology.nodes", 1, MaxRanks));
  COLLPLAN_TRY(Ppn, In.uleb("topology.ppn", 1, MaxRanks));
  COLLPLAN_TRY(Mapping, In.uleb("topology.mapping", 0, 2));
  if (RankMapping(Mapping) == RankMapping::Explicit) {
    if (TopologyKind(Kind) != TopologyKind::Flat)
      return In.fail("topology.kind", "an explicit map's topology is flat");
    COLLPLAN_TRY(Count, In.count("topology.node_of_rank", MaxRanks, 1));
    std::vector<uint32_t> NodeOf;
    NodeOf.reserve(Count);
    for (uint64_t I = 0; I < Count; ++I) {
      COLLPLAN_TRY(Node, In.uleb("topology.node_of_rank", 0, MaxRanks - 1));
      NodeOf.push_back(uint32_t(Node));
    }
    auto T = explicitTopology(std::move(NodeOf), Nodes, Ppn, Ranks);
    if (const FieldProblem *Bad = std::get_if<FieldProblem>(&T))
      return In.fail(Bad->Field, Bad->Why);
    return std::get<Topology>(std::move(T));
  }
  if (auto Problem = checkNodesMakeRanks(Nodes, Ppn, Ranks))
    return In.fail("topology", *Problem);
  if (TopologyKind(Kind) == TopologyKind::Flat)
    return Topology::nodes(uint32_t(Nodes), uint32_t(Ppn),
                           RankMapping(Mapping));
  COLLPLAN_TRY(NumDims, In.count("topology.dims", MaxTorusDims, 1));
  if (NumDims == 0)
    return In.fail("topology.dims", "a torus needs at least one dimension");
  llvm::SmallVector<uint32_t, 4> Dims;
  uint64_t Product = 1;
  for (uint64_t I = 0; I < NumDims; ++I) {
    COLLPLAN_TRY(D, In.uleb("topology.dims[" + Twine(I) + "]", 1, MaxRanks));
    Product = std::min<uint64_t>(Product * D, MaxRanks + 1);
    Dims.push_back(uint32_t(D));
  }
  if (auto Problem = checkDimsMakeNodes(Product, Nodes))
    return In.fail("topology.dims", *Problem);
  return Topology::torus(Dims, uint32_t(Ppn), RankMapping(Mapping));
}

Expected<PlanHeader> decodeHeader(ByteReader &In) {
  PlanHeader H;
  COLLPLAN_TRY(Kind, In.uleb("collective", 0, allCollectives().size() - 1));
  H.Kind = allCollectives()[Kind];
  COLLPLAN_TRY(Ranks, In.uleb("ranks", 1, MaxRanks));
  H.Ranks = uint32_t(Ranks);
  COLLPLAN_TRY(Topo, decodeTopology(In, H.Ranks));
  H.Topo = std::move(Topo);
  COLLPLAN_TRY(Algorithm, In.string("algorithm"));
  H.Algorithm = Algorithm.str();
  COLLPLAN_TRY(NumParams, In.count("params", UINT32_MAX, 2));
  for (uint64_t I = 0; I < NumParams; ++I) {
    COLLPLAN_TRY(Key, In.string("params"));
    COLLPLAN_TRY(Value, In.string("params." + Key));
    if (!H.Params.emplace(Key.str(), Value.str()).second)
      return In.fail("params", "parameter '" + Key + "' appears twice");
  }
  COLLPLAN_TRY(Blocks, In.uleb("blocks", 1, MaxPlanBlocks));
  H.Blocks = Blocks;
  COLLPLAN_TRY(NumWeights, In.count("weights", MaxPlanBlocks, 1));
  if (NumWeights != 0)
    if (auto Problem = checkWeightCount(NumWeights, H.Blocks))
      return In.fail("weights", *Problem);
  uint64_t MaxWeight = maxBlockWeight(H.Blocks);
  H.Weights.reserve(NumWeights);
  for (uint64_t I = 0; I < NumWeights; ++I) {
    COLLPLAN_TRY(W, In.uleb("weights[" + Twine(I) + "]", 0, MaxWeight));
    H.Weights.push_back(W);
  }
  COLLPLAN_TRY(HasRoot, In.uleb("root", 0, 1));
  if (HasRoot) {
    COLLPLAN_TRY(Root, In.uleb("root", 0, H.Ranks - 1));
    H.Root = uint32_t(Root);
  }
  COLLPLAN_TRY(NumBuffers, In.count("buffers", 0xffff, 1));
  if (NumBuffers == 0)
    return In.fail("buffers", "expected between 1 and 65535 buffer names");
  H.Buffers.clear();
  llvm::StringSet<> Seen;
  for (uint64_t I = 0; I < NumBuffers; ++I) {
    std::string Field = "buffers[" + std::to_string(I) + "]";
    COLLPLAN_TRY(Name, In.string(Field));
    if (auto Problem = checkBufferName(Name, Seen))
      return In.fail(Field, *Problem);
    if (I == 0 && Name != "data")
      return In.fail(Field, "the first buffer must be 'data'");
    H.Buffers.push_back(Name.str());
  }
  COLLPLAN_TRY(Commutative, In.uleb("requires_commutative", 0, 1));
  H.RequiresCommutative = Commutative != 0;
  return H;
}

Expected<Op> decodeOp(ByteReader &In, const PlanHeader &H, uint32_t Rank,
                      std::optional<uint32_t> PreviousPeer) {
  uint64_t NumBuffers = H.Buffers.size();
  COLLPLAN_TRY(Header, In.byte("kind"));
  Op O;
  if ((Header & KindMask) > uint8_t(OpKind::Local))
    return In.fail("kind",
                   "unknown operation kind " + Twine(Header & KindMask));
  O.Kind = OpKind(Header & KindMask);
  O.Mode = Header & ReduceBit ? Combine::Reduce : Combine::Replace;
  if (O.Kind == OpKind::Send && O.Mode == Combine::Reduce)
    return In.fail("combine", "a send has no combine mode");
  O.Buffer = Header >> BufferShift;
  if (O.Buffer == BufferEscape) {
    COLLPLAN_TRY(Buffer, In.uleb("buffer", BufferEscape, NumBuffers - 1));
    O.Buffer = uint16_t(Buffer);
  } else if (O.Buffer >= NumBuffers) {
    return In.fail("buffer", "buffer " + Twine(O.Buffer) + " is not declared");
  }
  if (O.Kind == OpKind::Local) {
    if (Header & SamePeerBit)
      return In.fail("peer", "a local operation has no peer");
    COLLPLAN_TRY(Source, In.uleb("source", 0, NumBuffers - 1));
    O.Source = uint16_t(Source);
  } else if (Header & SamePeerBit) {
    if (!PreviousPeer)
      return In.fail("peer", "refers to the previous operation's peer, but "
                             "there is none");
    O.Peer = *PreviousPeer;
  } else {
    COLLPLAN_TRY(Code, In.uleb("peer", 0, UINT64_MAX));
    uint64_t P = H.Ranks;
    if (Code >= 2 * P)
      return In.fail("peer", "peer " + Twine(Code - 2 * P) + " is not a rank");
    // Even codes step forward from Rank, odd ones backward (see encodeOp).
    uint64_t Steps = Code % 2 == 0 ? Code / 2 : (Code + 1) / 2;
    if (Steps > P || (Code % 2 == 0 ? Steps > P / 2 : Steps == 0))
      return In.fail("peer", "offset code " + Twine(Code) + " is not a rank's");
    O.Peer = uint32_t(Code % 2 == 0 ? (Rank + Steps) % P
                                    : (Rank + P - Steps % P) % P);
  }
  COLLPLAN_TRY(NumRanges, In.count("blocks", MaxPlanBlocks, 2));
  uint64_t PreviousEnd = 0;
  for (uint64_t I = 0; I < NumRanges; ++I) {
    COLLPLAN_TRY(
        Gap, In.uleb("blocks[" + Twine(I) + "]", 0, H.Blocks - PreviousEnd));
    uint64_t Begin = PreviousEnd + Gap;
    if (Begin >= H.Blocks)
      return In.fail("blocks[" + Twine(I) + "]", "starts at block " +
                                                     Twine(Begin) + " of " +
                                                     Twine(H.Blocks));
    COLLPLAN_TRY(Length,
                 In.uleb("blocks[" + Twine(I) + "]", 0, H.Blocks - Begin - 1));
    PreviousEnd = Begin + Length + 1;
    O.Blocks.insert(Begin, PreviousEnd);
  }
  return O;
}

Expected<Program> decodeProgram(ByteReader &In, const PlanHeader &H,
                                uint32_t Rank) {
  In.Where.enterRank(Rank);
  Program Prog;
  COLLPLAN_TRY(NumRounds, In.count("rounds", UINT32_MAX, 2));
  Prog.Rounds.reserve(NumRounds);
  int64_t Previous = -1;
  for (uint64_t K = 0; K < NumRounds; ++K) {
    In.Where.enterRound(int64_t(K));
    int64_t Room = int64_t(UINT32_MAX) - (Previous + 1);
    if (Room < 0)
      return In.fail("index", "no round can follow round " + Twine(Previous));
    COLLPLAN_TRY(Delta, In.uleb("index", 0, uint64_t(Room)));
    Round Rd;
    Rd.Index = uint32_t(Previous + 1 + int64_t(Delta));
    Previous = Rd.Index;
    In.Where.RoundIndex = Rd.Index;
    COLLPLAN_TRY(NumOps, In.count("ops", UINT32_MAX, 2));
    Rd.Ops.reserve(NumOps);
    std::optional<uint32_t> PreviousPeer;
    for (uint64_t I = 0; I < NumOps; ++I) {
      In.Where.Op = int64_t(I);
      COLLPLAN_TRY(O, decodeOp(In, H, Rank, PreviousPeer));
      if (O.Kind != OpKind::Local)
        PreviousPeer = O.Peer;
      Rd.Ops.push_back(std::move(O));
    }
    Prog.Rounds.push_back(std::move(Rd));
  }
  return Prog;
}

/// Where each rank's program lies: the offset table, checked whole against
/// the file before any entry is used, so that a hostile table cannot send a
/// reader outside the file or make two programs share bytes.
class ProgramTable {
public:
  /// Offsets are stored from Base, the header's start, so that the stamp
  /// before it can change size without changing the hashed bytes.
  static Expected<ProgramTable> read(ByteReader &In, uint32_t Count,
                                     uint64_t Base) {
    if (In.remaining() / EntryBytes < Count)
      return In.fail("offsets",
                     "a table of " + Twine(Count) + " entries takes " +
                         Twine(EntryBytes * uint64_t(Count)) + " bytes; " +
                         Twine(In.remaining()) + " remain");
    uint64_t TableAt = In.offset();
    ProgramTable T;
    T.Entries = In.take(EntryBytes * size_t(Count));
    T.Count = Count;
    T.FileSize = In.fileSize();
    T.Base = Base;
    uint64_t Previous = In.offset();
    for (uint32_t R = 0; R < Count; ++R) {
      uint64_t At = T.begin(R);
      auto Fail = [&](const Twine &Message) {
        return In.failAt(TableAt + EntryBytes * uint64_t(R),
                         "offsets[" + Twine(R) + "]", Message);
      };
      if (At >= T.FileSize)
        return Fail("rank " + Twine(R) + "'s program starts at byte " +
                    Twine(At) + ", past the end of the file (" +
                    Twine(T.FileSize) + " bytes)");
      if (R == 0 && At != Previous)
        return Fail("rank 0's program starts at byte " + Twine(At) +
                    "; it must follow the table, at byte " + Twine(Previous));
      if (R > 0 && At <= Previous)
        return Fail("rank " + Twine(R) + "'s program starts at byte " +
                    Twine(At) + ", not after rank " + Twine(R - 1) +
                    "'s at byte " + Twine(Previous) +
                    ": offsets must increase, programs cannot overlap");
      Previous = At;
    }
    return T;
  }

  /// An entry: where the program starts, and its bytes' FNV-1a.
  static constexpr size_t EntryBytes = 16;

  /// Rank R's program is bytes [begin(R), end(R)) of the file.
  uint64_t begin(uint32_t R) const {
    uint64_t Stored =
        llvm::support::endian::read64le(Entries + EntryBytes * size_t(R));
    return Stored > UINT64_MAX - Base ? UINT64_MAX : Base + Stored;
  }
  uint64_t hash(uint32_t R) const {
    return llvm::support::endian::read64le(Entries + EntryBytes * size_t(R) +
                                           8);
  }
  uint64_t end(uint32_t R) const {
    return R + 1 < Count ? begin(R + 1) : FileSize;
  }

private:
  const uint8_t *Entries = nullptr;
  uint32_t Count = 0;
  uint64_t FileSize = 0;
  uint64_t Base = 0;
};

/// Everything before the programs.
struct Prologue {
  PlanHeader Header;
  uint64_t StoredHash = 0;
  /// The hashed part after the stamp: the header and the table.
  uint64_t HeaderAt = 0, TableEnd = 0;
  ProgramTable Table;
};

constexpr uint64_t FnvBasis = 0xcbf29ce484222325ULL;

uint64_t fnv1a(uint64_t Hash, StringRef Bytes) {
  for (unsigned char C : Bytes) {
    Hash ^= C;
    Hash *= 0x100000001b3ULL;
  }
  return Hash;
}

/// The plan hash of a file whose header starts at HeaderAt and whose table
/// ends at TableEnd.
uint64_t contentHash(StringRef Bytes, uint64_t HeaderAt, uint64_t TableEnd) {
  return fnv1a(fnv1a(FnvBasis, Bytes.substr(0, BinaryHashOffset)),
               Bytes.slice(HeaderAt, TableEnd));
}

Expected<std::optional<VerificationStamp>> decodeStamp(ByteReader &In) {
  COLLPLAN_TRY(Has, In.uleb("stamp", 0, 1));
  if (!Has)
    return std::nullopt;
  VerificationStamp S;
  COLLPLAN_TRY(Hash, In.fixed64("stamp.plan_hash"));
  S.PlanHash = Hash;
  COLLPLAN_TRY(Verdicts, In.uleb("stamp.verdicts", 0, 3));
  S.IdenticalResults = Verdicts & 1;
  S.Reproducible = Verdicts & 2;
  COLLPLAN_TRY(Verifier, In.string("stamp.verifier"));
  S.Verifier = Verifier.str();
  return S;
}

Expected<Prologue> decodePrologue(ByteReader &In, StringRef Bytes) {
  if (!Bytes.startswith(StringRef(BinaryPlanMagic, sizeof(BinaryPlanMagic))))
    return In.fail("", "not a binary collplan plan (bad magic)");
  In.skip(sizeof(BinaryPlanMagic));
  uint64_t VersionAt = In.offset();
  COLLPLAN_TRY(Version, In.uleb("version", 1, UINT32_MAX));
  if (Version < BinaryPlanVersion)
    return In.failAt(
        VersionAt, "version",
        "binary plan format version " + Twine(Version) +
            (Version == 1 ? " has no rank offset table"
                          : " has no program hashes nor verification stamp") +
            "; this collplan reads version " + Twine(BinaryPlanVersion) +
            ": recompile the plan (collplan compile ... -o "
            "FILE.cplan) or convert it from its YAML or JSON form");
  if (Version > BinaryPlanVersion)
    return In.failAt(VersionAt, "version",
                     "plan format version " + Twine(Version) +
                         " is newer than this collplan supports (" +
                         Twine(BinaryPlanVersion) +
                         "); upgrade collplan to read it");
  Prologue Pro;
  COLLPLAN_TRY(Hash, In.fixed64("hash"));
  Pro.StoredHash = Hash;
  COLLPLAN_TRY(Stamp, decodeStamp(In));
  Pro.HeaderAt = In.offset();
  COLLPLAN_TRY(Header, decodeHeader(In));
  Pro.Header = std::move(Header);
  Pro.Header.Stamp = std::move(Stamp);
  // Each program takes a table entry and at least its round count.
  COLLPLAN_TRY(NumPrograms, In.count("programs", MaxRanks, 17));
  if (auto Problem = checkProgramCount(NumPrograms, Pro.Header.Ranks))
    return In.fail("programs", *Problem);
  COLLPLAN_TRY(Table,
               ProgramTable::read(In, uint32_t(NumPrograms), Pro.HeaderAt));
  Pro.Table = Table;
  Pro.TableEnd = In.offset();
  uint64_t Actual = contentHash(Bytes, Pro.HeaderAt, Pro.TableEnd);
  if (Actual != Pro.StoredHash)
    return In.failAt(BinaryHashOffset, "hash",
                     "the stored plan hash " + planHashHex(Pro.StoredHash) +
                         " does not match the file's header and program "
                         "table (" +
                         planHashHex(Actual) +
                         "): the file is corrupt or was edited");
  return Pro;
}

/// Rank R's program, which must fill its bytes exactly.
Expected<Program> decodeProgramAt(const ByteReader &In, const ProgramTable &T,
                                  const PlanHeader &H, uint32_t R) {
  ByteReader Part = In.part(T.begin(R), T.end(R), R);
  StringRef Bytes = In.bytes(T.begin(R), T.end(R));
  if (fnv1a(FnvBasis, Bytes) != T.hash(R)) {
    Part.Where = ReadLocation();
    return Part.fail("", "rank " + Twine(R) +
                             "'s program does not match its hash in the "
                             "table: the file is corrupt or was edited");
  }
  COLLPLAN_TRY(Prog, decodeProgram(Part, H, R));
  if (!Part.atEnd()) {
    Part.Where = ReadLocation();
    if (R + 1 == H.Ranks)
      return Part.fail("", Twine(Part.remaining()) +
                               " bytes follow the last program");
    return Part.fail("offsets[" + Twine(R + 1) + "]",
                     Twine(Part.remaining()) + " bytes follow rank " +
                         Twine(R) + "'s program before the next starts");
  }
  return Prog;
}

} // namespace

uint64_t storedBinaryHash(StringRef Bytes) {
  return llvm::support::endian::read64le(Bytes.data() + BinaryHashOffset);
}

namespace {

void writeStamp(const std::optional<VerificationStamp> &Stamp, ByteWriter &W) {
  W.uleb(Stamp ? 1 : 0);
  if (Stamp) {
    W.fixed64(Stamp->PlanHash);
    W.uleb((Stamp->IdenticalResults ? 1 : 0) | (Stamp->Reproducible ? 2 : 0));
    W.string(Stamp->Verifier);
  }
}

} // namespace

std::string restampBinaryPlan(StringRef Encoded,
                              const std::optional<VerificationStamp> &Stamp) {
  // The old stamp: a flag, then the hash, a flag and a string (the length
  // and the bytes), as writeStamp put it; the encoder's own output, so
  // trusted.
  size_t StampAt = BinaryHashOffset + 8, End = StampAt + 1;
  if (Encoded[StampAt] != 0) {
    End += 8 + 1;
    unsigned Length = 0;
    uint64_t Chars = llvm::decodeULEB128(Encoded.bytes_begin() + End, &Length);
    End += Length + Chars;
  }
  std::string Out(Encoded.substr(0, StampAt));
  {
    ByteWriter W(Out);
    writeStamp(Stamp, W);
  }
  Out.reserve(Out.size() + Encoded.size() - End);
  Out += Encoded.substr(End);
  return Out;
}

std::string encodeBinaryPlan(const Plan &P) {
  static_assert(BinaryPlanVersion < 128,
                "BinaryHashOffset assumes a one-byte version");
  const PlanHeader &H = P.Header;
  // The programs first: the table before them says where each one starts.
  std::string Programs;
  std::vector<uint64_t> Starts;
  Starts.reserve(P.Programs.size() + 1);
  {
    ByteWriter W(Programs);
    for (size_t R = 0; R < P.Programs.size(); ++R) {
      W.flush();
      Starts.push_back(Programs.size());
      const Program &Prog = P.Programs[R];
      W.uleb(Prog.Rounds.size());
      int64_t Previous = -1;
      for (const Round &Rd : Prog.Rounds) {
        // Rounds strictly increase in a well-formed plan. A malformed order
        // is written as the index itself (hashed, never read back).
        W.uleb(int64_t(Rd.Index) > Previous ? Rd.Index - (Previous + 1)
                                            : Rd.Index);
        Previous = Rd.Index;
        W.uleb(Rd.Ops.size());
        std::optional<uint32_t> PreviousPeer;
        for (const Op &O : Rd.Ops) {
          encodeOp(O, uint32_t(R), H.Ranks, PreviousPeer, W);
          if (O.Kind != OpKind::Local)
            PreviousPeer = O.Peer;
        }
      }
    }
    W.flush();
    Starts.push_back(Programs.size());
  }

  std::string Out(BinaryPlanMagic, sizeof(BinaryPlanMagic));
  ByteWriter W(Out);
  W.uleb(BinaryPlanVersion);
  W.fixed64(0); // The hash, once the header and the table are in place.
  writeStamp(H.Stamp, W);
  W.flush();
  uint64_t HeaderAt = Out.size();
  W.uleb(uint64_t(H.Kind));
  W.uleb(H.Ranks);
  W.uleb(uint64_t(H.Topo.kind()));
  W.uleb(H.Topo.numNodes());
  W.uleb(H.Topo.ranksPerNode());
  W.uleb(uint64_t(H.Topo.mapping()));
  if (!H.Topo.explicitNodeOf().empty()) {
    W.uleb(H.Topo.explicitNodeOf().size());
    for (uint32_t Node : H.Topo.explicitNodeOf())
      W.uleb(Node);
  }
  if (H.Topo.kind() == TopologyKind::Torus) {
    W.uleb(H.Topo.dims().size());
    for (uint32_t D : H.Topo.dims())
      W.uleb(D);
  }
  W.string(H.Algorithm);
  W.uleb(H.Params.size());
  for (const auto &[Name, Value] : H.Params) {
    W.string(Name);
    W.string(Value);
  }
  W.uleb(H.Blocks);
  W.uleb(H.Weights.size());
  for (uint64_t X : H.Weights)
    W.uleb(X);
  W.uleb(H.Root ? 1 : 0);
  if (H.Root)
    W.uleb(*H.Root);
  W.uleb(H.Buffers.size());
  for (const std::string &B : H.Buffers)
    W.string(B);
  W.uleb(H.RequiresCommutative ? 1 : 0);
  W.uleb(P.Programs.size());
  uint64_t First =
      W.size() + ProgramTable::EntryBytes * P.Programs.size() - HeaderAt;
  for (size_t R = 0; R < P.Programs.size(); ++R) {
    W.fixed64(First + Starts[R]);
    W.fixed64(
        fnv1a(FnvBasis, StringRef(Programs).slice(Starts[R], Starts[R + 1])));
  }
  W.flush();
  uint64_t TableEnd = Out.size();
  Out.reserve(Out.size() + Programs.size());
  Out += Programs;
  llvm::support::endian::write64le(&Out[BinaryHashOffset],
                                   contentHash(Out, HeaderAt, TableEnd));
  return Out;
}

Expected<Plan> decodeBinaryPlan(StringRef Bytes, StringRef Name) {
  ByteReader In(Bytes, Name);
  COLLPLAN_TRY(Pro, decodePrologue(In, Bytes));
  Plan P;
  P.Header = std::move(Pro.Header);
  P.Programs.reserve(P.Header.Ranks);
  for (uint32_t R = 0; R < P.Header.Ranks; ++R) {
    COLLPLAN_TRY(Prog, decodeProgramAt(In, Pro.Table, P.Header, R));
    P.Programs.push_back(std::move(Prog));
  }
  return P;
}

Expected<RankSlice> decodeBinaryRank(StringRef Bytes, StringRef Name,
                                     uint32_t Rank) {
  ByteReader In(Bytes, Name);
  COLLPLAN_TRY(Pro, decodePrologue(In, Bytes));
  if (Rank >= Pro.Header.Ranks)
    return makeError(ErrorKind::Usage, Name + ": rank " + Twine(Rank) +
                                           " is not one of the plan's " +
                                           Twine(Pro.Header.Ranks) + " ranks");
  COLLPLAN_TRY(Prog, decodeProgramAt(In, Pro.Table, Pro.Header, Rank));
  RankSlice S;
  S.Header = std::move(Pro.Header);
  S.Rank = Rank;
  S.Prog = std::move(Prog);
  S.Hash = Pro.StoredHash;
  return S;
}

} // namespace collplan
