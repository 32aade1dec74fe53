//===- PlanFileNames.cpp - What a plan file's name says -------------------===//

#include "plan/dispatch/PlanFileNames.h"

#include "plan/ir/Error.h"
#include "plan/serialize/PlanFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"

namespace collplan {

bool hasPlanExtension(llvm::StringRef FileName) {
  return formatForPath(FileName).has_value();
}

std::string planFileName(const DispatchRule &R, llvm::StringRef Ext) {
  std::string Name = collectiveName(R.Kind).str();
  if (R.Root.value_or(0) != 0)
    Name += "-root" + std::to_string(*R.Root);
  Name += "-p" + std::to_string(R.Ranks) + "-" + std::to_string(R.MinBytes) +
          "-" + (R.MaxBytes == UINT64_MAX ? "inf" : std::to_string(R.MaxBytes));
  if (R.Op)
    Name += "-" + reduceOpName(*R.Op).str();
  return Name + "." + Ext.str();
}

static llvm::Error misnamed(const llvm::Twine &Why) {
  return makeError(ErrorKind::Usage,
                   Why + " (plan files are named <collective>[-root<R>]-p<P>-"
                         "<min>-<max>[-<op>].<cplan|yaml|yml|json>)");
}

/// Drops "<collective>[-root<R>]-p" from Stem into R.
static llvm::Error takeCollective(llvm::StringRef &Stem, DispatchRule &R) {
  // A collective's name may contain '-' (reduce-scatter) or prefix another
  // (allgather, allgatherv): it must be followed by -root or -p.
  for (Collective C : allCollectives()) {
    llvm::StringRef Rest = Stem;
    if (!Rest.consume_front(collectiveName(C)))
      continue;
    std::optional<uint32_t> Root;
    if (Rest.startswith("-root")) {
      llvm::StringRef Digits = Rest.drop_front(5).take_while(llvm::isDigit);
      uint32_t Value = 0;
      if (Digits.getAsInteger(10, Value))
        continue;
      Root = Value;
      Rest = Rest.drop_front(5 + Digits.size());
    }
    if (!Rest.consume_front("-p"))
      continue;
    R.Kind = C;
    R.Root = Root;
    Stem = Rest;
    return llvm::Error::success();
  }
  return misnamed("does not start with a collective's name and -p");
}

llvm::Expected<DispatchRule> parsePlanFileName(llvm::StringRef FileName) {
  if (!hasPlanExtension(FileName))
    return misnamed("not a plan file extension");
  llvm::StringRef Stem =
      FileName.drop_back(llvm::sys::path::extension(FileName).size());
  DispatchRule R;
  R.File = FileName.str();
  if (llvm::Error E = takeCollective(Stem, R))
    return std::move(E);
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Stem.split(Parts, '-');
  if (Parts.size() != 3 && Parts.size() != 4)
    return misnamed("expected P, min, max and an optional operator");
  if (Parts[0].getAsInteger(10, R.Ranks) || R.Ranks == 0)
    return misnamed(Parts[0] + ": not a communicator size of at least 1");
  if (Parts[1].getAsInteger(10, R.MinBytes))
    return misnamed(Parts[1] + ": not a byte count (plain bytes, no unit)");
  if (Parts[2] != "inf" && Parts[2].getAsInteger(10, R.MaxBytes))
    return misnamed(Parts[2] +
                    ": not a byte count or inf (plain bytes, no unit)");
  if (R.MaxBytes <= R.MinBytes)
    return misnamed("the byte range [min, max) is empty");
  if (R.Root && (!hasRoot(R.Kind) || *R.Root >= R.Ranks))
    return misnamed("-root" + llvm::Twine(*R.Root) +
                    ": not a rank of a rooted collective");
  if (Parts.size() == 4) {
    R.Op = parseReduceOp(Parts[3]);
    if (!R.Op)
      return misnamed(Parts[3] + ": not an operator (" + reduceOpChoices() +
                      ", in lower case)");
  }
  return R;
}

} // namespace collplan
