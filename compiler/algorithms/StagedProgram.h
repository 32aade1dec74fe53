//===- StagedProgram.h - A rank program built out of round order -*- C++ -*-===//
//
// Program::add wants rounds in order, but a builder that adds an allgather
// backwards, or one collective after another (Swing's and Trivance's ports),
// does not. Operations are staged per round first and handed over in round
// order by finish(). Within a round they stay in the order added, the same
// at both ends of a link, which is how the IR matches several messages
// between the same two ranks.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_COMPILER_ALGORITHMS_STAGEDPROGRAM_H
#define COLLPLAN_COMPILER_ALGORITHMS_STAGEDPROGRAM_H

#include "plan/ir/Plan.h"

#include <map>
#include <vector>

namespace collplan {

class StagedProgram {
public:
  void add(uint32_t Round, Op Operation) {
    Staged[Round].push_back(std::move(Operation));
  }
  Program finish() {
    Program Prog;
    for (auto &[Round, Ops] : Staged)
      for (Op &O : Ops)
        Prog.add(Round, std::move(O));
    return Prog;
  }

private:
  std::map<uint32_t, std::vector<Op>> Staged;
};

} // namespace collplan

#endif // COLLPLAN_COMPILER_ALGORITHMS_STAGEDPROGRAM_H
