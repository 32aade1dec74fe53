//===- RankSlice.cpp - One rank's program and the plan's header -----------===//

#include "plan/serialize/RankSlice.h"
#include "plan/ir/Error.h"
#include "plan/serialize/BinaryLayout.h"
#include "plan/serialize/PlanFile.h"

namespace collplan {

llvm::Expected<RankSlice> decodeRankSlice(llvm::StringRef Bytes,
                                          llvm::StringRef Name, uint32_t Rank) {
  if (!Bytes.empty() && Bytes.front() == BinaryPlanMagic[0]) {
    COLLPLAN_TRY(S, decodeBinaryRank(Bytes, Name, Rank));
    std::vector<Diagnostic> Problems =
        checkRankStructure(S.Header, S.Rank, S.Prog, 2);
    if (!Problems.empty())
      return structureError(Name, Problems);
    return S;
  }
  // Text has no offsets to find a rank by: decode it all, keep one program.
  COLLPLAN_TRY(P, decodePlan(Bytes, Name));
  std::vector<Diagnostic> Problems = checkStructure(P, 2);
  if (!Problems.empty())
    return structureError(Name, Problems);
  if (Rank >= P.Header.Ranks)
    return makeError(ErrorKind::Usage, Name + ": rank " + llvm::Twine(Rank) +
                                           " is not one of the plan's " +
                                           llvm::Twine(P.Header.Ranks) +
                                           " ranks");
  RankSlice S;
  S.Hash = planHash(P);
  S.Rank = Rank;
  S.Prog = std::move(P.Programs[Rank]);
  S.Header = std::move(P.Header);
  return S;
}

llvm::Expected<RankSlice> readRankSlice(llvm::StringRef Path, uint32_t Rank) {
  COLLPLAN_TRY(Buffer, openPlanFile(Path));
  return decodeRankSlice(Buffer->getBuffer(), Path, Rank);
}

} // namespace collplan
