//===- PlanLocation.h - Where a reader is, for error messages ---*- C++ -*-===//
//
// Readers track their position as integers and format it only when they
// report an error, so reading a large plan builds no strings per operation.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_PLANLOCATION_H
#define COLLPLAN_SERIALIZE_PLANLOCATION_H

#include "plan/ir/Error.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace collplan {

struct ReadLocation {
  int64_t Rank = -1;
  /// The round's position in its program, until its index is known.
  int64_t RoundPosition = -1;
  int64_t RoundIndex = -1;
  int64_t Op = -1;

  void enterRank(int64_t R) { *this = ReadLocation{R}; }
  void enterRound(int64_t Position) {
    RoundPosition = Position;
    RoundIndex = Op = -1;
  }

  /// "rank 3, round 12, op 1", "rank 3, rounds[4]" or "" in the header.
  std::string str() const {
    std::string Out;
    if (Rank >= 0)
      Out = "rank " + std::to_string(Rank);
    if (RoundIndex >= 0)
      Out += ", round " + std::to_string(RoundIndex);
    else if (RoundPosition >= 0)
      Out += ", rounds[" + std::to_string(RoundPosition) + "]";
    if (Op >= 0)
      Out += ", op " + std::to_string(Op);
    return Out;
  }
};

/// Every reader's error: "<Source>: <location>: field '<Field>': <Message>",
/// leaving out the parts that are empty. Source names the file (and, for
/// binary files, the byte offset).
inline llvm::Error readError(const std::string &Source,
                             const ReadLocation &Where,
                             const llvm::Twine &Field,
                             const llvm::Twine &Message) {
  std::string Text = Source + ": ";
  std::string Location = Where.str();
  if (!Location.empty())
    Text += Location + ": ";
  std::string F = Field.str();
  if (!F.empty())
    Text += "field '" + F + "': ";
  Text += Message.str();
  return makeError(ErrorKind::Usage, Text);
}

} // namespace collplan

#endif // COLLPLAN_SERIALIZE_PLANLOCATION_H
