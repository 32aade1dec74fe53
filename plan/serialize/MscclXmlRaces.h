//===- MscclXmlRaces.h - Data races between MSCCL threadblocks --*- C++ -*-===//
//
// The import runs the threadblocks in one order; a GPU may run them in any
// order their dependencies and messages allow. Two steps of different
// threadblocks that touch the same chunk, one of them writing, with neither
// waiting for the other (directly, through dependencies, or through
// messages) race: the result depends on timing. Vector clocks over the
// threadblocks decide "waits for" exactly.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_MSCCLXMLRACES_H
#define COLLPLAN_SERIALIZE_MSCCLXMLRACES_H

#include "plan/ir/Hash.h"
#include "plan/serialize/MscclXmlModel.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace collplan::msccl {

using Clock = std::vector<uint32_t>;

class RaceDetector {
public:
  /// A clock is one entry per threadblock, kept per threadblock, per step
  /// others depend on, and per message until it is received (sends are
  /// eager, so nearly all of them): past MaxThreadblocks threadblocks, or
  /// MaxClockEntries entries for all of these, the detector stays off.
  static constexpr size_t MaxThreadblocks = 2048;
  static constexpr uint64_t MaxClockEntries = uint64_t(1) << 26;
  explicit RaceDetector(const Algorithm &A);
  bool enabled() const { return Enabled; }

  /// Step St of threadblock T (index) on gpu G begins; Received is the
  /// clock of the message it receives, if any.
  void begin(uint32_t G, size_t T, size_t St, const Clock *Received);
  /// The current step reads or writes chunk (Space, Index) of its gpu;
  /// a description of the race, if the access races with an earlier one.
  std::optional<std::string> access(uint8_t Space, int64_t Index, bool Write);
  /// The current step's clock, for the message it sends.
  const Clock &current() const { return Now; }
  void end();

private:
  struct Access {
    uint32_t Tb = UINT32_MAX; ///< Global threadblock number.
    uint32_t Seq = 0;         ///< Its step index + 1.
  };
  struct Chunk {
    Access Writer;
    std::vector<Access> Readers;
  };
  const Algorithm &A;
  bool Enabled = false;
  std::vector<uint32_t> Base;                  ///< First number of gpu g's.
  std::vector<std::pair<uint32_t, size_t>> Of; ///< Number → (gpu, tb).
  std::vector<Clock> TbClock;
  std::map<std::tuple<uint32_t, size_t, size_t>, Clock> DepClock;
  llvm::DenseMap<uint64_t, Chunk, PackedKeyInfo> Chunks;
  Clock Now;
  uint32_t G = 0, Me = 0;
  size_t T = 0, St = 0;

  std::string describe(Access X) const;
};

} // namespace collplan::msccl

#endif // COLLPLAN_SERIALIZE_MSCCLXMLRACES_H
