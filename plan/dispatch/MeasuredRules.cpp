//===- MeasuredRules.cpp - Library rules from measurements ----------------===//

#include "plan/dispatch/MeasuredRules.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace collplan {

bool libraryWins(const SizeMeasurement &M, double Noise) {
  return M.LibrarySeconds <= M.PlanSeconds * (1 + Noise);
}

/// The geometric middle of A < B, rounded down: the first size nearer B.
static uint64_t geometricMiddle(uint64_t A, uint64_t B) {
  long double Mid = std::sqrt((long double)A * (long double)B);
  uint64_t M = uint64_t(Mid);
  return std::max(M, A + 1);
}

std::pair<uint64_t, uint64_t>
measuredRange(llvm::ArrayRef<SizeMeasurement> Sizes, size_t I) {
  uint64_t Min =
      I == 0 ? 0 : geometricMiddle(Sizes[I - 1].Bytes, Sizes[I].Bytes);
  uint64_t Max = I + 1 == Sizes.size()
                     ? UINT64_MAX
                     : geometricMiddle(Sizes[I].Bytes, Sizes[I + 1].Bytes);
  return {Min, Max};
}

std::vector<DispatchRule> libraryRules(Collective Kind, uint32_t Ranks,
                                       std::optional<uint32_t> Root,
                                       llvm::ArrayRef<SizeMeasurement> Sizes,
                                       double Noise) {
  std::vector<DispatchRule> Rules;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    const SizeMeasurement &M = Sizes[I];
    if (!libraryWins(M, Noise))
      continue;
    DispatchRule R;
    R.Library = true;
    R.Kind = Kind;
    R.Ranks = Ranks;
    R.Root = Root;
    std::tie(R.MinBytes, R.MaxBytes) = measuredRange(Sizes, I);
    R.MeasuredBytes = M.Bytes;
    // To the nanosecond: the timer's resolution, and a readable index.
    auto Ns = [](double Seconds) { return std::round(Seconds * 1e9) / 1e9; };
    R.Measured = {{"library", Ns(M.LibrarySeconds)},
                  {M.PlanFile, Ns(M.PlanSeconds)}};
    R.Why = llvm::formatv("measured at {0} B: the library's call takes "
                          "{1:P} of {2}'s time (noise band {3:P})",
                          M.Bytes, M.LibrarySeconds / M.PlanSeconds, M.PlanFile,
                          Noise)
                .str();
    Rules.push_back(std::move(R));
  }
  return Rules;
}

} // namespace collplan
