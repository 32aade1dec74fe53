//===- ThreadTransport.h - An in-process transport for executor tests -----===//
//
// P threads in one process, one mailbox per ordered pair of ranks. Sends copy
// into the mailbox, so a round never blocks on its sends; receives take the
// next message from the peer's mailbox and fail when its size differs from
// what the receiver expected: the executor's two sides must agree on every
// message, empty blocks included.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_RUNTIME_THREADTRANSPORT_H
#define COLLPLAN_TESTS_RUNTIME_THREADTRANSPORT_H

#include "runtime/Transport.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace collplan::runtime::test {

class Mailboxes {
public:
  explicit Mailboxes(uint32_t P) : P(P), Boxes(size_t(P) * P) {}
  uint32_t size() const { return P; }

  void put(uint32_t From, uint32_t To, std::vector<char> Bytes) {
    std::lock_guard<std::mutex> L(M);
    Boxes[size_t(From) * P + To].push_back(std::move(Bytes));
    CV.notify_all();
  }
  /// Empty optional-like: returns false on a 10 s timeout.
  bool take(uint32_t From, uint32_t To, std::vector<char> &Out) {
    std::unique_lock<std::mutex> L(M);
    auto &Box = Boxes[size_t(From) * P + To];
    if (!CV.wait_for(L, std::chrono::seconds(10), [&] { return !Box.empty(); }))
      return false;
    Out = std::move(Box.front());
    Box.pop_front();
    return true;
  }
  bool allEmpty() {
    std::lock_guard<std::mutex> L(M);
    for (auto &B : Boxes)
      if (!B.empty())
        return false;
    return true;
  }

private:
  uint32_t P;
  std::mutex M;
  std::condition_variable CV;
  std::vector<std::deque<std::vector<char>>> Boxes;
};

class ThreadTransport final : public Transport {
public:
  ThreadTransport(Mailboxes &Boxes, uint32_t Rank) : Boxes(Boxes), Rank(Rank) {}
  uint32_t rank() const override { return Rank; }
  uint32_t size() const override { return Boxes.size(); }

  using Transport::exchange;
  /// Reports each receive's arrival in three uneven steps, none aligned to
  /// an element, as a stream transport may: the executor must combine only
  /// whole elements and catch up at the end.
  llvm::Error exchange(llvm::ArrayRef<Message> Sends,
                       llvm::ArrayRef<Message> Receives,
                       ArrivalFn Arrived) override {
    for (const Message &M : Sends) {
      std::vector<char> Bytes;
      for (const Segment &S : M.Segments)
        Bytes.insert(Bytes.end(), S.Data, S.Data + S.Bytes);
      Boxes.put(Rank, M.Peer, std::move(Bytes));
    }
    for (size_t I = 0; I < Receives.size(); ++I) {
      const Message &M = Receives[I];
      std::vector<char> Bytes;
      if (!Boxes.take(M.Peer, Rank, Bytes))
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "timed out waiting for rank %u", M.Peer);
      if (Bytes.size() != M.bytes())
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "rank %u expected %zu bytes from rank %u, got %zu", Rank, M.bytes(),
            M.Peer, Bytes.size());
      const char *In = Bytes.data();
      size_t Done = 0;
      for (size_t Step : {M.bytes() / 3 + 1, M.bytes() / 2 + 3, M.bytes()}) {
        for (size_t Off = 0, K = 0; K < M.Segments.size(); ++K) {
          const Segment &S = M.Segments[K];
          size_t From = std::max(Off, Done), To = std::min(Off + S.Bytes, Step);
          if (From < To)
            std::memcpy(S.Data + (From - Off), In + From, To - From);
          Off += S.Bytes;
        }
        Done = std::max(Done, std::min(Step, M.bytes()));
        Arrived(I, Done);
      }
    }
    return llvm::Error::success();
  }

private:
  Mailboxes &Boxes;
  uint32_t Rank;
};

} // namespace collplan::runtime::test

#endif
