//===- PersonalisedPlacement.cpp - Where an alltoall rank keeps blocks ----===//

#include "runtime/PersonalisedPlacement.h"

#include <algorithm>

namespace collplan::runtime {

PersonalisedPlacement::PersonalisedPlacement(const PlanHeader &H,
                                             const Program &Prog, uint32_t Rank,
                                             const BlockLayout &Layout)
    : H(H), Layout(Layout), Rank(Rank), PerPair(H.pairBlocks()),
      RowBegin(uint64_t(Rank) * H.Ranks * PerPair),
      RowEnd(RowBegin + uint64_t(H.Ranks) * PerPair) {
  ColumnPrefix.reserve(size_t(H.Ranks) * PerPair + 1);
  ColumnPrefix.push_back(0);
  for (uint32_t S = 0; S < H.Ranks; ++S)
    for (uint64_t T = 0; T < PerPair; ++T)
      ColumnPrefix.push_back(
          ColumnPrefix.back() +
          Layout.size((uint64_t(S) * H.Ranks + Rank) * PerPair + T));

  // The blocks the program names outside the row and column, per buffer.
  std::vector<WorkRun> Named;
  auto Name = [&](uint16_t Buffer, const BlockSet &Blocks) {
    for (const BlockRange &R : Blocks.ranges())
      Named.push_back({Buffer, R.Begin, R.End, 0});
  };
  for (const Round &Rd : Prog.Rounds)
    for (const Op &O : Rd.Ops) {
      Name(O.Buffer, O.Blocks);
      if (O.Kind == OpKind::Local)
        Name(O.Source, O.Blocks);
      bool Writes = O.Kind != OpKind::Send && O.Buffer == DataBuffer;
      if (Writes && O.Blocks.overlaps(BlockSet::range(RowBegin, RowEnd)))
        RowInWork = true;
    }
  if (RowInWork)
    Name(DataBuffer, BlockSet::range(RowBegin, RowEnd));
  std::sort(Named.begin(), Named.end(), [](const WorkRun &A, const WorkRun &B) {
    return std::tie(A.Buffer, A.Begin) < std::tie(B.Buffer, B.Begin);
  });
  // Merged, then cut to what neither user buffer holds.
  for (const WorkRun &R : Named) {
    if (!Work.empty() && Work.back().Buffer == R.Buffer &&
        Work.back().End >= R.Begin) {
      Work.back().End = std::max(Work.back().End, R.End);
      continue;
    }
    Work.push_back(R);
  }
  std::vector<WorkRun> Kept;
  for (const WorkRun &R : Work)
    for (uint64_t B = R.Begin; B < R.End;) {
      // Pair by pair: a pair's run is wholly in the row, the column, or
      // neither.
      uint64_t Pair = B / PerPair, End = std::min(R.End, (Pair + 1) * PerPair);
      bool Column = Pair % H.Ranks == Rank;
      bool Row = B >= RowBegin && B < RowEnd && !RowInWork;
      if (R.Buffer != DataBuffer || (!Column && !Row)) {
        if (!Kept.empty() && Kept.back().Buffer == R.Buffer &&
            Kept.back().End == B)
          Kept.back().End = End;
        else
          Kept.push_back({R.Buffer, B, End, 0});
      }
      B = End;
    }
  Work = std::move(Kept);
  for (WorkRun &R : Work) {
    R.Offset = WorkElements;
    WorkElements += Layout.begin(R.End) - Layout.begin(R.Begin);
  }

  // The diagonal: from the send buffer to the receive buffer.
  uint64_t Diagonal = (RowBegin / PerPair + Rank) * PerPair;
  uint64_t DiagonalElements =
      Layout.begin(Diagonal + PerPair) - Layout.begin(Diagonal);
  if (DiagonalElements)
    Copies.push_back(
        {{Region::Input, Layout.begin(Diagonal) - Layout.begin(RowBegin),
          DiagonalElements},
         {Region::Output, ColumnPrefix[size_t(Rank) * PerPair],
          DiagonalElements}});
  // The row, when the program writes into it: pair by pair, but for the
  // diagonal, which lies in the receive buffer.
  for (uint64_t B = RowBegin; RowInWork && B < RowEnd; B += PerPair) {
    uint64_t RunEnd;
    Span To = spanAt(DataBuffer, B, RunEnd);
    To.Elements = Layout.begin(B + PerPair) - Layout.begin(B);
    if (To.In == Region::Work && To.Elements)
      Copies.push_back({{Region::Input,
                         Layout.begin(B) - Layout.begin(RowBegin), To.Elements},
                        To});
  }
}

Span PersonalisedPlacement::spanAt(uint16_t Buffer, uint64_t B,
                                   uint64_t &RunEnd) const {
  uint64_t Pair = B / PerPair;
  RunEnd = (Pair + 1) * PerPair;
  if (Buffer == DataBuffer && Pair % H.Ranks == Rank) {
    uint64_t Index = Pair / H.Ranks * PerPair + B % PerPair;
    return {Region::Output, ColumnPrefix[Index], 0};
  }
  if (Buffer == DataBuffer && !RowInWork && B >= RowBegin && B < RowEnd)
    return {Region::Input, Layout.begin(B) - Layout.begin(RowBegin), 0};
  auto It =
      std::upper_bound(Work.begin(), Work.end(), std::pair(Buffer, B),
                       [](std::pair<uint16_t, uint64_t> K, const WorkRun &R) {
                         return K < std::pair(R.Buffer, R.Begin);
                       });
  // Every block a program names has a run (the constructor saw them all).
  const WorkRun &R = *std::prev(It);
  RunEnd = R.End;
  return {Region::Work, R.Offset + Layout.begin(B) - Layout.begin(R.Begin), 0};
}

void PersonalisedPlacement::place(uint16_t Buffer, const BlockSet &Blocks,
                                  llvm::function_ref<void(Span)> F) const {
  Span Open{Region::Work, 0, 0};
  for (const BlockRange &R : Blocks.ranges())
    for (uint64_t B = R.Begin; B < R.End;) {
      uint64_t RunEnd;
      Span S = spanAt(Buffer, B, RunEnd);
      RunEnd = std::min(RunEnd, R.End);
      S.Elements = Layout.begin(RunEnd) - Layout.begin(B);
      B = RunEnd;
      if (S.Elements == 0)
        continue;
      if (Open.Elements && Open.In == S.In &&
          Open.Offset + Open.Elements == S.Offset) {
        Open.Elements += S.Elements;
        continue;
      }
      if (Open.Elements)
        F(Open);
      Open = S;
    }
  if (Open.Elements)
    F(Open);
}

} // namespace collplan::runtime
