//===- ThreadTransport.h - An in-process transport for executor tests -----===//
//
// P threads in one process, one mailbox per ordered pair of ranks. Sends copy
// into the mailbox, so a round never blocks on its sends; receives take the
// next message from the peer's mailbox and fail when its size differs from
// what the receiver expected: the executor's two sides must agree on every
// message, empty blocks included, and on whether it is pipelined. A send
// that may linger (Message::MayLinger) is delivered at once, but its memory
// is checked at completeSends(): written meanwhile, the call fails, as a real
// transport would have sent what the executor overwrote.
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

  struct Letter {
    std::vector<char> Bytes;
    bool Pipelined = false;
  };

  void put(uint32_t From, uint32_t To, Letter L) {
    std::lock_guard<std::mutex> G(M);
    Boxes[size_t(From) * P + To].push_back(std::move(L));
    CV.notify_all();
  }
  /// Empty optional-like: returns false on a 10 s timeout.
  bool take(uint32_t From, uint32_t To, Letter &Out) {
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
  std::vector<std::deque<Letter>> Boxes;
};

class ThreadTransport final : public Transport {
public:
  ThreadTransport(Mailboxes &Boxes, uint32_t Rank) : Boxes(Boxes), Rank(Rank) {}
  uint32_t rank() const override { return Rank; }
  uint32_t size() const override { return Boxes.size(); }

  using Transport::exchange;
  /// Hands each streamed receive over in three uneven pieces, none aligned
  /// to an element, as a stream transport may: the executor must carry the
  /// part of an element a piece ends inside.
  llvm::Error exchange(llvm::ArrayRef<Message> Sends,
                       llvm::ArrayRef<Message> Receives,
                       ArrivalFn Arrived) override {
    for (const Message &M : Sends) {
      Mailboxes::Letter L{{}, M.Pipelined};
      for (const Segment &S : M.Segments) {
        L.Bytes.insert(L.Bytes.end(), S.Data, S.Data + S.Bytes);
        if (M.MayLinger)
          Lingering.push_back({S, std::vector<char>(S.Data, S.Data + S.Bytes)});
      }
      Boxes.put(Rank, M.Peer, std::move(L));
    }
    for (size_t I = 0; I < Receives.size(); ++I) {
      const Message &M = Receives[I];
      Mailboxes::Letter L;
      if (!Boxes.take(M.Peer, Rank, L))
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "timed out waiting for rank %u", M.Peer);
      const std::vector<char> &Bytes = L.Bytes;
      if (L.Pipelined != M.Pipelined)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "rank %u and rank %u disagree on whether a message is pipelined",
            Rank, M.Peer);
      if (Bytes.size() != M.bytes())
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "rank %u expected %zu bytes from rank %u, got %zu", Rank, M.bytes(),
            M.Peer, Bytes.size());
      const char *In = Bytes.data();
      if (!M.Streamed) {
        for (const Segment &S : M.Segments) {
          std::memcpy(S.Data, In, S.Bytes);
          In += S.Bytes;
        }
        continue;
      }
      // Hands the bytes over from a copy overwritten after each step, as a
      // transport reusing its staging slots would, or, for a receive with
      // memory, where they landed in it.
      char *Memory = M.Segments[0].Data;
      std::vector<char> Slot;
      size_t Done = 0;
      for (size_t Step : {M.bytes() / 3 + 1, M.bytes() / 2 + 3, M.bytes()}) {
        size_t Upto = std::min(Step, M.bytes());
        if (Upto <= Done)
          continue;
        if (Memory) {
          std::memcpy(Memory + Done, In + Done, Upto - Done);
          Arrived(I, Memory + Done, Upto - Done);
        } else {
          Slot.assign(In + Done, In + Upto);
          Arrived(I, Slot.data(), Slot.size());
          std::fill(Slot.begin(), Slot.end(), char(0x5a));
        }
        Done = Upto;
      }
    }
    return llvm::Error::success();
  }

  llvm::Error completeSends() override {
    for (const auto &[S, Sent] : Lingering)
      if (!std::equal(Sent.begin(), Sent.end(), S.Data))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "rank %u wrote the memory of a send still in flight", Rank);
    Lingering.clear();
    return llvm::Error::success();
  }

private:
  Mailboxes &Boxes;
  uint32_t Rank;
  /// Lingering sends' segments and the bytes they were sent with.
  std::vector<std::pair<Segment, std::vector<char>>> Lingering;
};

} // namespace collplan::runtime::test

#endif
