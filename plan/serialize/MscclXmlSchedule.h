//===- MscclXmlSchedule.h - MSCCL steps as phases to place ------*- C++ -*-===//
//
// The import simulates the file (MscclXmlImport.cpp) and records every step
// as one or two phases (a fused step such as rcs is a receive, then a send),
// each with the plan operations it performs and the phases it must follow.
// MscclXmlRounds.cpp then gives each phase the earliest round its
// predecessors allow and assembles the plan.
//
// A round has three moments, so a phase's time is 3·round + moment: sends
// read (0), receives land (1), local operations run (2). A successor may
// share a predecessor's round exactly when the IR's order within a round
// (Plan.h) already puts it after: a local operation after a receive, a
// receive after a send; a send after a write waits for the next round.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_SERIALIZE_MSCCLXMLSCHEDULE_H
#define COLLPLAN_SERIALIZE_MSCCLXMLSCHEDULE_H

#include "plan/ir/Plan.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collplan::msccl {

enum class PhaseKind : uint8_t { Send, Recv, Local, Nop };

struct Pred {
  uint32_t Phase;
  /// A write that must wait until the send Phase has read: it follows the
  /// send's message round, not the moment the send was ready (sends are
  /// eager in MSCCL, the sender goes on at once).
  bool AfterRead;
};

struct Phase {
  PhaseKind Kind = PhaseKind::Nop;
  uint32_t Gpu = 0, Tb = 0, Step = 0; ///< Where in the file (tb: its id).
  int64_t Msg = -1;                   ///< Send and Recv: the message.
  std::vector<Op> Transfers;          ///< The Send or Recv operations.
  std::vector<Op> Locals;             ///< Run after the receives.
  std::vector<Pred> Preds;
  // Filled by the round solver.
  uint32_t Ready = 0; ///< Send, Recv: the earliest round it could run in.
  uint32_t Round = 0; ///< The round its operations are placed in.
  int64_t Done = 0;   ///< The time successors follow.
};

struct Message {
  uint32_t SendPhase = 0, RecvPhase = 0;
};

struct Schedule {
  PlanHeader Header;
  std::vector<Phase> Phases; ///< In the simulation's order of execution.
  std::vector<Message> Messages;
  /// Out of place: the buffer holding the output, copied into data at the
  /// end (the IR's data buffer holds both input and result).
  std::optional<uint16_t> OutBuffer;
};

/// Gives every phase its round and builds the plan (structure-checked).
/// Name prefixes messages.
llvm::Expected<Plan> assemblePlan(Schedule S, llvm::StringRef Name);

} // namespace collplan::msccl

#endif // COLLPLAN_SERIALIZE_MSCCLXMLSCHEDULE_H
