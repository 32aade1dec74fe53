//===- PlanDirectoryWriter.cpp - Writing a plan directory -----------------===//

#include "plan/dispatch/PlanDirectoryWriter.h"

#include "plan/dispatch/PlanFileNames.h"
#include "plan/dispatch/PlanIndex.h"
#include "plan/ir/Error.h"
#include "plan/ir/FileIo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <set>
#include <tuple>

namespace collplan {

std::vector<std::string> stalePlans(llvm::StringRef Dir,
                                    llvm::ArrayRef<NewPlan> Plans) {
  std::set<PlanTable> Tables;
  std::set<std::string> Ours;
  for (const NewPlan &P : Plans) {
    Tables.insert(tableOf(P.Rule));
    Ours.insert(P.Rule.File);
  }
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; !EC && It != End;
       It.increment(EC)) {
    std::string Name = llvm::sys::path::filename(It->path()).str();
    llvm::Expected<DispatchRule> R = parsePlanFileName(Name);
    if (!R) {
      llvm::consumeError(R.takeError());
      continue;
    }
    if (Tables.count(tableOf(*R)) && !Ours.count(Name))
      Out.push_back(It->path());
  }
  llvm::sort(Out);
  return Out;
}

llvm::Expected<PlanIndex> updatePlanDirectory(llvm::StringRef Dir,
                                              PlanDirectoryUpdate U) {
  // Everything is checked before anything is written.
  std::vector<std::string> Stale = stalePlans(Dir, U.Plans);
  if (!Stale.empty())
    return makeError(ErrorKind::Usage,
                     "the plan directory holds other plans for the same "
                     "calls, which the interposer would mix with these: " +
                         llvm::join(Stale, ", ") +
                         "; remove them or write into another directory");
  llvm::Expected<PlanIndex> Index = readPlanIndex(Dir);
  if (!Index)
    return Index.takeError();

  // A new table of plans, or a new measurement, supersedes the rules
  // measured for its table.
  std::set<PlanTable> Measured;
  for (const NewPlan &P : U.Plans)
    Measured.insert(tableOf(P.Rule));
  for (const DispatchRule &R : U.Rules)
    if (R.measured())
      Measured.insert(tableOf(R));
  Measured.insert(U.Remeasured.begin(), U.Remeasured.end());
  llvm::erase_if(Index->Plans, [&](const DispatchRule &R) {
    return R.measured() && Measured.count(tableOf(R));
  });
  auto Put = [&](DispatchRule R) {
    for (const DispatchRule &Old : Index->Plans)
      if (!R.measured() && !Old.measured() && Old.File == R.File &&
          R.Why.empty())
        R.Why = Old.Why;
    Index->put(std::move(R));
  };
  for (NewPlan &P : U.Plans) {
    std::string Bytes;
    if (llvm::Error E = P.Build(P.Rule, Bytes))
      return E;
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, P.Rule.File);
    if (llvm::Error E = writeFileAtomically(Path, Bytes, "plan file"))
      return E;
    Put(std::move(P.Rule));
  }
  for (DispatchRule &R : U.Rules)
    Put(std::move(R));
  for (const std::string &File : U.Removed)
    llvm::erase_if(Index->Plans,
                   [&](const DispatchRule &R) { return R.File == File; });
  if (U.ChosenRounding)
    Index->ChosenRounding = U.ChosenRounding;
  if (llvm::Error E = writePlanIndex(Dir, *Index, U.Preamble))
    return E;
  return std::move(*Index);
}

} // namespace collplan
