//===- PlanDirectoryRules.cpp - The rules of a plan directory -------------===//

#include "plan/dispatch/PlanDirectoryRules.h"

#include "plan/dispatch/PlanFileNames.h"
#include "plan/dispatch/PlanIndex.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace collplan {

std::string PlanDirectoryRules::pathOf(const DispatchRule &R) const {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, R.File);
  return Path.str().str();
}

llvm::Expected<PlanDirectoryRules> readPlanDirectoryRules(llvm::StringRef Dir) {
  PlanDirectoryRules D;
  D.Dir = Dir.str();
  llvm::StringSet<> Listed;
  if (llvm::Expected<PlanIndex> Index = readPlanIndex(Dir)) {
    D.ChosenRounding = Index->ChosenRounding;
    for (DispatchRule &R : Index->Plans) {
      Listed.insert(R.File);
      if (!R.Library && !llvm::sys::fs::exists(D.pathOf(R))) {
        D.Problems.push_back("ignoring the index's entry for " + D.pathOf(R) +
                             ": no such file");
        continue;
      }
      D.Rules.push_back(std::move(R));
    }
  } else {
    D.Problems.push_back("ignoring " + llvm::toString(Index.takeError()));
  }
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (!hasPlanExtension(Name) || Listed.count(Name))
      continue;
    llvm::Expected<DispatchRule> R = parsePlanFileName(Name);
    if (!R) {
      D.Problems.push_back("ignoring " + It->path() + ": " +
                           llvm::toString(R.takeError()));
      continue;
    }
    D.Rules.push_back(std::move(*R));
  }
  if (EC)
    return llvm::createStringError(EC, "cannot list plan directory '%s': %s",
                                   D.Dir.c_str(), EC.message().c_str());
  llvm::sort(D.Rules, ruleOrder);
  return D;
}

} // namespace collplan
