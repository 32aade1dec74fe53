//===- Error.h - Typed errors: a kind of failure and a message --*- C++ -*-===//
//
// Libraries return llvm::Error. Where a library knows what kind of failure it
// reports (a malformed input, a request no algorithm can meet, a file that
// cannot be written, a run that broke), it says so with makeError(); a
// caller that must act on the kind (the CLI's exit code) reads it with
// takeErrorReport(), which gives untyped errors the caller's default.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_ERROR_H
#define COLLPLAN_IR_ERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace collplan {

/// The kinds of failure. The values are the CLI's exit codes (README).
enum class ErrorKind : int {
  Invalid = 1,       ///< A plan failed verification or a run's check.
  Usage = 2,         ///< Bad input: a command line, an unreadable file.
  CannotCompile = 3, ///< The request is impossible for the algorithm.
  Io = 4,            ///< An output file could not be written.
  Runtime = 5,       ///< Running a plan failed (peer died, timeout, ...).
};

/// An error that knows its kind. Its message is printed as is, like a
/// StringError's.
class KindedError : public llvm::ErrorInfo<KindedError> {
public:
  static char ID;

  KindedError(ErrorKind Kind, std::string Message)
      : Kind(Kind), Message(std::move(Message)) {}

  ErrorKind kind() const { return Kind; }
  const std::string &text() const { return Message; }

  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

private:
  ErrorKind Kind;
  std::string Message;
};

/// The same overloads as llvm::createStringError: a message, or a printf
/// format and its values.
llvm::Error makeError(ErrorKind Kind, const llvm::Twine &Message);
llvm::Error makeError(ErrorKind Kind, const char *Message);
template <typename... Ts>
llvm::Error makeError(ErrorKind Kind, const char *Fmt, const Ts &...Vals) {
  std::string Buffer;
  llvm::raw_string_ostream(Buffer) << llvm::format(Fmt, Vals...);
  return makeError(Kind, llvm::Twine(Buffer));
}

/// E's kind and message. An untyped error has the kind Default; of several
/// joined errors, the first typed one gives the kind and the messages are
/// joined by newlines (as llvm::toString joins them).
struct ErrorReport {
  ErrorKind Kind;
  std::string Message;
};
ErrorReport takeErrorReport(llvm::Error E, ErrorKind Default);

/// E with its untyped parts given the kind Kind; typed parts keep theirs.
llvm::Error withDefaultKind(llvm::Error E, ErrorKind Kind);

} // namespace collplan

/// Unwraps an llvm::Expected into Var, or returns its error from the
/// enclosing function.
#define COLLPLAN_TRY(Var, Expr)                                                \
  auto Var##OrErr = (Expr);                                                    \
  if (!Var##OrErr)                                                             \
    return Var##OrErr.takeError();                                             \
  auto Var = std::move(*Var##OrErr)

#endif // COLLPLAN_IR_ERROR_H
