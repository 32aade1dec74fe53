//===- MscclXmlImporter.h - The simulation of an MSCCL algorithm -*- C++
//-*-===//
//
// The importer's state, shared by the two halves of its simulation:
// MscclXmlImport.cpp sets it up from the file's header, runs the
// threadblocks until none can move and names a deadlock;
// MscclXmlStep.cpp runs one step, carrying each chunk location's block into
// the schedule's phases and operations.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_MSCCLXMLIMPORTER_H
#define COLLPLAN_SERIALIZE_MSCCLXMLIMPORTER_H

#include "plan/serialize/MscclXmlModel.h"
#include "plan/serialize/MscclXmlRaces.h"
#include "plan/serialize/MscclXmlSchedule.h"

#include "plan/ir/Error.h"
#include "plan/ir/Hash.h"

#include "llvm/ADT/DenseMap.h"

#include <array>
#include <deque>
#include <map>
#include <tuple>

namespace collplan::msccl {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

enum Space : uint8_t { DataSpace, OutSpace, ScratchSpace, TempSpace };

constexpr uint64_t MaxLocations = uint64_t(1) << 26;
constexpr uint64_t MaxChunkMoves = uint64_t(1) << 22;

struct Loc {
  Space Sp;
  int64_t Index;
};

/// A chunk of a message: where the sender reads it, which block it is.
struct Piece {
  uint16_t SrcBuf;
  uint64_t Block;
};

struct PendingMessage {
  uint32_t Id;
  uint32_t Gpu, Tb, Step; ///< The sender's step, for messages.
  std::vector<Piece> Chunks;
  Clock SentAt; ///< The sender's clock (MscclXmlRaces.h).
};

class Importer {
public:
  Importer(const Algorithm &A, StringRef Name) : A(A), Name(Name), Races(A) {}
  Expected<Schedule> run();

private:
  const Algorithm &A;
  StringRef Name;
  RaceDetector Races;
  Schedule S;
  uint64_t N = 1, K = 1; ///< Blocks; chunks per rank (allgather, RS).
  uint16_t FirstScratch = 1;
  /// Which block each location holds: [gpu][space][index], -1 for none.
  std::vector<std::array<std::vector<int32_t>, 3>> Holds;
  /// Scratch buffer of (gpu, space, index, block), and the count per
  /// (gpu, block) that allocates them.
  std::map<std::tuple<uint32_t, uint8_t, int64_t, uint64_t>, uint16_t>
      ScratchOf;
  std::map<std::pair<uint32_t, uint64_t>, uint16_t> ScratchCount;
  uint16_t ScratchBuffers = 0;
  /// Per (gpu, buffer, block): the last phase that wrote it and the
  /// phases that read it since.
  struct Access {
    int64_t Writer = -1;
    std::vector<uint32_t> Readers;
  };
  llvm::DenseMap<uint64_t, Access, PackedKeyInfo> Accesses;
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::deque<PendingMessage>>
      Queues;
  std::vector<std::vector<int64_t>> LastPhase; ///< [gpu][tb]
  /// [gpu][tb][step]: the step's last phase.
  std::vector<std::vector<std::vector<uint32_t>>> StepPhase;
  std::vector<std::vector<size_t>> Pc; ///< [gpu][tb]: next step.
  std::vector<std::map<int64_t, size_t>> TbIndex;

  Error fail(ErrorKind K, uint32_t G, size_t T, size_t St,
             const llvm::Twine &Message) const {
    const Threadblock &Tb = A.GpuList[G].Tbs[T];
    return makeError(K, Name + ":" + llvm::Twine(Tb.Steps[St].Line) + ": gpu " +
                            llvm::Twine(G) + ", threadblock " +
                            llvm::Twine(Tb.Id) + ", step " + llvm::Twine(St) +
                            " (" + stepTypeName(Tb.Steps[St].Type) +
                            "): " + Message);
  }
  Expected<Loc> locate(uint32_t G, char Buf, int64_t Off, size_t T, size_t St);
  int32_t &holds(uint32_t G, Loc L) { return Holds[G][L.Sp][L.Index]; }
  /// The block gpu G's data or output location Index holds before the run
  /// (data) or must hold after it (output): Index itself, but for alltoall,
  /// whose plan names blocks by (sender, receiver) (CollectiveContract.h):
  /// G's input chunk i is its run K for gpu i / K, its output chunk i the
  /// run gpu i / K sent it.
  uint64_t naturalBlock(uint32_t G, Space Sp, int64_t Index) const {
    if (!isPersonalised(A.Coll))
      return uint64_t(Index);
    uint64_t I = uint64_t(Index);
    return Sp == DataSpace ? G * N + I : I / K * N + G * K + I % K;
  }
  uint16_t buffer(uint32_t G, Loc L, uint64_t Block);
  uint32_t newPhase(PhaseKind Kind, uint32_t G, size_t T, size_t St);
  void read(uint32_t P, uint16_t Buf, uint64_t Block);
  void write(uint32_t P, uint16_t Buf, uint64_t Block);
  Error setUp();
  bool canRun(uint32_t G, size_t T);
  Error exec(uint32_t G, size_t T);
  Error deadlock();
  /// Whether gpu From has steps not yet run that send to To on Channel.
  bool sendsLeft(uint32_t From, uint32_t To, int64_t Channel) const {
    const Gpu &G = A.GpuList[From];
    for (size_t T = 0; T < G.Tbs.size(); ++T)
      if (G.Tbs[T].SendPeer == To && G.Tbs[T].Channel == Channel)
        for (size_t St = Pc[From][T]; St < G.Tbs[T].Steps.size(); ++St)
          if (hasSend(G.Tbs[T].Steps[St].Type))
            return true;
    return false;
  }
  bool TooManyBuffers = false;
};

inline uint64_t accessKey(uint32_t G, uint16_t Buf, uint64_t Block) {
  return (uint64_t(G) << 48) | (uint64_t(Buf) << 32) | Block;
}

/// Appends Operation to Ops, merged into the last one when it continues it.
void appendMerged(std::vector<Op> &Ops, const Op &Operation);

} // namespace collplan::msccl

#endif // COLLPLAN_SERIALIZE_MSCCLXMLIMPORTER_H
