//===- MeasuredRules.cpp - Rules from measurements on the job's ranks -----===//

#include "plan/dispatch/MeasuredRules.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace collplan {

const std::pair<DispatchRule, double> *SizeMeasurement::fastestPlan() const {
  const std::pair<DispatchRule, double> *Best = nullptr;
  for (const auto &P : Plans)
    if (!Best || P.second < Best->second)
      Best = &P;
  return Best;
}

bool libraryWins(const SizeMeasurement &M, double Noise) {
  const auto *Best = M.fastestPlan();
  return !Best || M.LibrarySeconds <= Best->second * (1 + Noise);
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

std::vector<DispatchRule> measuredRules(Collective Kind, uint32_t Ranks,
                                        std::optional<uint32_t> Root,
                                        llvm::ArrayRef<SizeMeasurement> Sizes,
                                        double Noise) {
  // To the nanosecond: the timer's resolution, and a readable index.
  auto Ns = [](double Seconds) { return std::round(Seconds * 1e9) / 1e9; };
  std::vector<DispatchRule> Rules;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    const SizeMeasurement &M = Sizes[I];
    const auto *Best = M.fastestPlan();
    DispatchRule R;
    if (libraryWins(M, Noise)) {
      R.Library = true;
      R.Kind = Kind;
      R.Ranks = Ranks;
      R.Root = Root;
      R.Why =
          Best ? llvm::formatv("measured at {0} B: the library's call "
                               "takes {1:P} of the fastest plan's time "
                               "({2}; noise band {3:P})",
                               M.Bytes, M.LibrarySeconds / Best->second,
                               Best->first.File, Noise)
                     .str()
               : "measured at " + std::to_string(M.Bytes) + " B: no plan ran";
    } else {
      R = Best->first;
      R.Why = llvm::formatv("measured at {0} B: the fastest of {1} plans "
                            "timed, in {2:P} of the library's time",
                            M.Bytes, M.Plans.size(),
                            Best->second / M.LibrarySeconds)
                  .str();
    }
    std::tie(R.MinBytes, R.MaxBytes) = measuredRange(Sizes, I);
    R.MeasuredBytes = M.Bytes;
    R.Measured = {{"library", Ns(M.LibrarySeconds)}};
    for (const auto &[Plan, Seconds] : M.Plans)
      R.Measured[Plan.File] = Ns(Seconds);
    R.FromIndex = true;
    Rules.push_back(std::move(R));
  }
  return Rules;
}

} // namespace collplan
