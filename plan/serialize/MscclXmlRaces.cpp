//===- MscclXmlRaces.cpp - Data races between MSCCL threadblocks ----------===//

#include "plan/serialize/MscclXmlRaces.h"

#include <algorithm>

namespace collplan::msccl {

RaceDetector::RaceDetector(const Algorithm &A) : A(A) {
  uint32_t N = 0;
  for (uint32_t Gp = 0; Gp < A.GpuList.size(); ++Gp) {
    Base.push_back(N);
    for (size_t Tb = 0; Tb < A.GpuList[Gp].Tbs.size(); ++Tb, ++N)
      Of.push_back({Gp, Tb});
  }
  uint64_t Clocks = N; // One per threadblock, one per send and dependency.
  for (const Gpu &Gpu : A.GpuList)
    for (const Threadblock &Tb : Gpu.Tbs)
      for (const Step &S : Tb.Steps)
        Clocks += hasSend(S.Type) + (S.DepTb >= 0);
  Enabled = N <= MaxThreadblocks && Clocks * N <= MaxClockEntries;
  if (!Enabled)
    return;
  TbClock.assign(N, Clock(N, 0));
  // The steps others depend on keep their clocks.
  for (uint32_t Gp = 0; Gp < A.GpuList.size(); ++Gp) {
    const Gpu &Gpu = A.GpuList[Gp];
    for (const Threadblock &Tb : Gpu.Tbs)
      for (const Step &S : Tb.Steps)
        if (S.DepTb >= 0)
          for (size_t I = 0; I < Gpu.Tbs.size(); ++I)
            if (Gpu.Tbs[I].Id == S.DepTb)
              DepClock[{Gp, I, size_t(S.DepStep)}];
  }
}

static void join(Clock &Into, const Clock &Other) {
  for (size_t I = 0; I < Into.size(); ++I)
    Into[I] = std::max(Into[I], Other[I]);
}

void RaceDetector::begin(uint32_t Gpu, size_t Tb, size_t Step,
                         const Clock *Received) {
  if (!Enabled)
    return;
  G = Gpu;
  T = Tb;
  St = Step;
  Me = Base[G] + uint32_t(T);
  Now = TbClock[Me];
  const msccl::Step &S = A.GpuList[G].Tbs[T].Steps[St];
  if (S.DepTb >= 0)
    for (size_t I = 0; I < A.GpuList[G].Tbs.size(); ++I)
      if (A.GpuList[G].Tbs[I].Id == S.DepTb) {
        auto It = DepClock.find({G, I, size_t(S.DepStep)});
        if (It != DepClock.end())
          join(Now, It->second);
      }
  if (Received)
    join(Now, *Received);
  Now[Me] = uint32_t(St + 1);
}

std::string RaceDetector::describe(Access X) const {
  auto [Gp, Tb] = Of[X.Tb];
  const Threadblock &B = A.GpuList[Gp].Tbs[Tb];
  return "threadblock " + std::to_string(B.Id) + " step " +
         std::to_string(X.Seq - 1) + " (" +
         stepTypeName(B.Steps[X.Seq - 1].Type).str() + ", line " +
         std::to_string(B.Steps[X.Seq - 1].Line) + ")";
}

std::optional<std::string> RaceDetector::access(uint8_t Space, int64_t Index,
                                                bool Write) {
  if (!Enabled)
    return std::nullopt;
  Chunk &C =
      Chunks[(uint64_t(G) << 48) | (uint64_t(Space) << 40) | uint64_t(Index)];
  auto Races = [&](Access X) {
    return X.Tb != UINT32_MAX && X.Tb != Me && Now[X.Tb] < X.Seq;
  };
  static const char *SpaceNames[] = {"data", "output", "scratch"};
  auto Report = [&](Access X, const char *What) {
    return "races with " + describe(X) + ", which " + What + " " +
           SpaceNames[Space] + " chunk " + std::to_string(Index) +
           ": neither waits for the other, so the result depends on "
           "timing (a dependency is missing)";
  };
  if (Races(C.Writer))
    return Report(C.Writer, "writes");
  if (!Write) {
    C.Readers.push_back({Me, uint32_t(St + 1)});
    return std::nullopt;
  }
  for (Access R : C.Readers)
    if (Races(R))
      return Report(R, "reads");
  C.Readers.clear();
  C.Writer = {Me, uint32_t(St + 1)};
  return std::nullopt;
}

void RaceDetector::end() {
  if (!Enabled)
    return;
  TbClock[Me] = Now;
  auto It = DepClock.find({G, T, St});
  if (It != DepClock.end())
    It->second = Now;
}

} // namespace collplan::msccl
