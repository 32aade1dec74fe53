//===- Error.cpp - Typed errors -------------------------------------------===//

#include "plan/ir/Error.h"

#include <optional>

namespace collplan {

char KindedError::ID = 0;

void KindedError::log(llvm::raw_ostream &OS) const { OS << Message; }

std::error_code KindedError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error makeError(ErrorKind Kind, const llvm::Twine &Message) {
  return llvm::make_error<KindedError>(Kind, Message.str());
}

llvm::Error makeError(ErrorKind Kind, const char *Message) {
  return makeError(Kind, llvm::Twine(Message));
}

ErrorReport takeErrorReport(llvm::Error E, ErrorKind Default) {
  std::optional<ErrorKind> Kind;
  std::string Message;
  auto Add = [&](const std::string &Text) {
    Message += (Message.empty() ? "" : "\n") + Text;
  };
  llvm::handleAllErrors(
      std::move(E),
      [&](const KindedError &K) {
        if (!Kind)
          Kind = K.kind();
        Add(K.text());
      },
      [&](const llvm::ErrorInfoBase &Other) { Add(Other.message()); });
  return {Kind.value_or(Default), Message};
}

llvm::Error withDefaultKind(llvm::Error E, ErrorKind Kind) {
  if (!E)
    return E;
  ErrorReport R = takeErrorReport(std::move(E), Kind);
  return makeError(R.Kind, R.Message);
}

} // namespace collplan
