//===- CirculantRoundTables.h - Hand-worked circulant rounds ----*- C++ -*-===//
//
// Broadcast round tables worked out by hand from the rules of
// docs/algorithms/circulant.md ("Test oracles"; the paper prints none this
// small), shared by the broadcast test and the allreduce test, which runs
// the p = 5 table backwards (the reduce) and then forwards.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_ALGORITHMS_CIRCULANTROUNDTABLES_H
#define COLLPLAN_TESTS_ALGORITHMS_CIRCULANTROUNDTABLES_H

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace collplan::test::circulant_tables {

/// Broadcast round tables for root 0, worked out by hand: one line per
/// round, one cell per rank, "a<-f" (receive block a from f) and "b->t"
/// (send block b to t), "." for nothing.
inline const char *const RoundTables[] = {
    // Broadcast, p = 5, n = 4.
    R"(
. 0->1 | 0<-0 . | . . | . . | . .
. 1->2 | . . | 1<-0 . | . . | . .
. 2->3 | . 0->4 | . . | 2<-0 . | 0<-1 .
. 3->1 | 3<-0 0->2 | 0<-1 1->3 | 1<-2 2->4 | 2<-3 .
. 3->2 | 2<-4 0->3 | 3<-0 1->4 | 0<-1 . | 1<-2 2->1
. 3->3 | 1<-3 3->4 | 2<-4 . | 3<-0 1->1 | 3<-1 2->2
)",
    // Broadcast, p = 6, n = 5.
    R"(
. 0->3 | . . | . . | 0<-0 . | . . | . .
. 1->1 | 1<-0 . | . . | . 0->4 | 0<-3 . | . .
. 2->2 | . . | 2<-0 . | . 0->5 | . . | 0<-3 .
. 3->3 | 0<-4 1->4 | 0<-5 2->5 | 3<-0 . | 1<-1 0->1 | 2<-2 0->2
. 4->1 | 4<-0 1->2 | 1<-1 2->3 | 2<-2 3->4 | 3<-3 1->5 | 1<-4 .
. 4->2 | 2<-5 1->3 | 4<-0 2->4 | 1<-1 3->5 | 2<-2 . | 3<-3 2->1
. 4->3 | 3<-4 4->4 | 3<-5 4->5 | 4<-0 . | 4<-1 3->1 | 4<-2 3->2
)",
};

struct Cell {
  int64_t RecvBlock = -1, From = -1, SendBlock = -1, To = -1;
  friend bool operator==(const Cell &A, const Cell &B) {
    return A.RecvBlock == B.RecvBlock && A.From == B.From &&
           A.SendBlock == B.SendBlock && A.To == B.To;
  }
};

inline std::vector<std::vector<Cell>> parseRoundTable(const char *Text) {
  std::vector<std::vector<Cell>> Rounds;
  std::istringstream In(Text);
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.empty())
      continue;
    std::vector<Cell> Row;
    std::istringstream Cells(Line);
    std::string CellText;
    while (std::getline(Cells, CellText, '|')) {
      std::istringstream Fields(CellText);
      std::string RecvText, SendText;
      Fields >> RecvText >> SendText;
      Cell C;
      if (RecvText != ".") {
        size_t Arrow = RecvText.find("<-");
        C.RecvBlock = std::stoll(RecvText.substr(0, Arrow));
        C.From = std::stoll(RecvText.substr(Arrow + 2));
      }
      if (SendText != ".") {
        size_t Arrow = SendText.find("->");
        C.SendBlock = std::stoll(SendText.substr(0, Arrow));
        C.To = std::stoll(SendText.substr(Arrow + 2));
      }
      Row.push_back(C);
    }
    Rounds.push_back(Row);
  }
  return Rounds;
}

} // namespace collplan::test::circulant_tables

#endif // COLLPLAN_TESTS_ALGORITHMS_CIRCULANTROUNDTABLES_H
