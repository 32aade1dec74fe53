//===- SubsetTransport.h - The first P ranks of a transport -----*- C++ -*-===//
//
// Calibration times plans on P = 2 up to every rank of the job; a plan of P
// ranks runs on the job's first P ranks, which this view presents as a
// transport of size P (rank numbers unchanged). The other ranks do not use
// it: they wait for the next step of the whole job.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_RUNTIME_CALIBRATE_SUBSETTRANSPORT_H
#define COLLPLAN_RUNTIME_CALIBRATE_SUBSETTRANSPORT_H

#include "runtime/Transport.h"

#include <cassert>

namespace collplan::runtime {

class SubsetTransport : public Transport {
public:
  SubsetTransport(Transport &Whole, uint32_t Ranks)
      : Whole(Whole), Ranks(Ranks) {
    assert(Whole.rank() < Ranks && Ranks <= Whole.size());
  }
  uint32_t rank() const override { return Whole.rank(); }
  uint32_t size() const override { return Ranks; }
  llvm::Error exchange(llvm::ArrayRef<Message> Sends,
                       llvm::ArrayRef<Message> Receives,
                       ArrivalFn Arrived) override {
    return Whole.exchange(Sends, Receives, Arrived);
  }
  llvm::Error completeSends() override { return Whole.completeSends(); }

private:
  Transport &Whole;
  uint32_t Ranks;
};

} // namespace collplan::runtime

#endif // COLLPLAN_RUNTIME_CALIBRATE_SUBSETTRANSPORT_H
