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

  llvm::Error exchange(llvm::ArrayRef<Message> Sends,
                       llvm::ArrayRef<Message> Receives) override {
    for (const Message &M : Sends) {
      std::vector<char> Bytes;
      for (const Segment &S : M.Segments)
        Bytes.insert(Bytes.end(), S.Data, S.Data + S.Bytes);
      Boxes.put(Rank, M.Peer, std::move(Bytes));
    }
    for (const Message &M : Receives) {
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
      for (const Segment &S : M.Segments) {
        std::memcpy(S.Data, In, S.Bytes);
        In += S.Bytes;
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
