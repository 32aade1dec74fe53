//===- TreeReplay.h - Each cell's combine tree, replayed as text -*- C++
//-*-===//
//
// An oracle for the identical orders: replays a plan by plan/ir/Plan.h's
// round semantics alone (written for the tests, apart from the verifier's
// CombineTrees.h and from every family) and keeps every (rank, buffer,
// block) cell's combine tree as text: a rank number for a leaf, "(x,y)" for
// a combine with its operands in text order, so swapping them, which IEEE
// addition allows, reads the same.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_ALGORITHMS_TREEREPLAY_H
#define COLLPLAN_TESTS_ALGORITHMS_TREEREPLAY_H

#include "plan/ir/Plan.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace collplan::test {

/// The text of the combine of A and B, as TreeReplay writes it.
inline std::string joinText(const std::string &A, const std::string &B) {
  return "(" + std::min(A, B) + "," + std::max(A, B) + ")";
}

/// Every (rank, buffer, block) cell's combine tree as text.
class TreeReplay {
public:
  explicit TreeReplay(const Plan &P) : Pl(P) {
    for (uint32_t R = 0; R < P.Header.Ranks; ++R)
      for (uint64_t B = 0; B < P.Header.Blocks; ++B)
        Cell[{R, DataBuffer, B}] = std::to_string(R);
    uint32_t Last = 0;
    for (const Program &Prog : P.Programs)
      if (!Prog.Rounds.empty())
        Last = std::max(Last, Prog.Rounds.back().Index);
    for (uint32_t Index = 0; Index <= Last; ++Index)
      round(Index);
  }
  std::string at(uint32_t Rank, uint64_t Block) const {
    auto It = Cell.find({Rank, DataBuffer, Block});
    return It == Cell.end() ? "" : It->second;
  }

private:
  const Round *roundOf(uint32_t Rank, uint32_t Index) const {
    for (const Round &Rd : Pl.Programs[Rank].Rounds)
      if (Rd.Index == Index)
        return &Rd;
    return nullptr;
  }
  void round(uint32_t Index) {
    // Sends read the cells as the round began.
    std::map<std::pair<uint32_t, uint32_t>,
             std::vector<std::vector<std::string>>>
        InFlight;
    for (uint32_t R = 0; R < Pl.Header.Ranks; ++R)
      if (const Round *Rd = roundOf(R, Index))
        for (const Op &O : Rd->Ops)
          if (O.Kind == OpKind::Send) {
            std::vector<std::string> Msg;
            for (BlockRange BR : O.Blocks.ranges())
              for (uint64_t B = BR.Begin; B < BR.End; ++B)
                Msg.push_back(Cell[{R, O.Buffer, B}]);
            InFlight[{R, O.Peer}].push_back(std::move(Msg));
          }
    std::map<std::pair<uint32_t, uint32_t>, size_t> Taken;
    for (uint32_t R = 0; R < Pl.Header.Ranks; ++R)
      if (const Round *Rd = roundOf(R, Index))
        for (const Op &O : Rd->Ops) {
          if (O.Kind != OpKind::Recv)
            continue;
          const std::vector<std::string> &Msg =
              InFlight[{O.Peer, R}][Taken[{O.Peer, R}]++];
          size_t I = 0;
          for (BlockRange BR : O.Blocks.ranges())
            for (uint64_t B = BR.Begin; B < BR.End; ++B, ++I)
              put(R, O.Buffer, B, Msg[I], O.Mode);
        }
    for (uint32_t R = 0; R < Pl.Header.Ranks; ++R)
      if (const Round *Rd = roundOf(R, Index))
        for (const Op &O : Rd->Ops)
          if (O.Kind == OpKind::Local)
            for (BlockRange BR : O.Blocks.ranges())
              for (uint64_t B = BR.Begin; B < BR.End; ++B)
                put(R, O.Buffer, B, Cell[{R, O.Source, B}], O.Mode);
  }
  void put(uint32_t R, uint16_t Buf, uint64_t B, const std::string &V,
           Combine Mode) {
    std::string &C = Cell[{R, Buf, B}];
    C = Mode == Combine::Replace ? V : joinText(C, V);
  }

  const Plan &Pl;
  std::map<std::tuple<uint32_t, uint16_t, uint64_t>, std::string> Cell;
};

/// The canonical tree for P ranks (docs/reproducibility.md: fold the first
/// 2 (P - P') ranks in pairs, then pair neighbours level by level) as
/// TreeReplay writes trees, from its definition.
inline std::string canonicalTreeText(uint32_t P) {
  uint32_t Virtual = 1;
  while (Virtual * 2 <= P)
    Virtual *= 2;
  uint32_t Folded = P - Virtual;
  std::vector<std::string> Level;
  for (uint32_t V = 0; V < Virtual; ++V)
    Level.push_back(
        V < Folded ? joinText(std::to_string(2 * V), std::to_string(2 * V + 1))
                   : std::to_string(V + Folded));
  for (; Level.size() > 1; Level.resize(Level.size() / 2))
    for (size_t I = 0; I < Level.size() / 2; ++I)
      Level[I] = joinText(Level[2 * I], Level[2 * I + 1]);
  return Level[0];
}

} // namespace collplan::test

#endif // COLLPLAN_TESTS_ALGORITHMS_TREEREPLAY_H
