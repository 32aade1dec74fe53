//===- TextPullParser.cpp - JSON and plain YAML, one event at a time ------===//
//
// The YAML here follows the YAML 1.2 spec's productions for block and flow
// collections (chapters 7 and 8), restricted to one-line scalars and simple
// keys. Where that subset and full YAML could disagree on what a document
// means, the parser declines instead of guessing.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/TextPullParser.h"
#include "plan/serialize/PlanFields.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ConvertUTF.h"

namespace collplan {

using llvm::StringRef;
namespace json = llvm::json;

namespace {

bool isFlowIndicator(char C) {
  return C == ',' || C == '[' || C == ']' || C == '{' || C == '}';
}

/// JSON's number grammar (RFC 8259, section 6).
bool isJsonNumber(StringRef S) {
  size_t I = 0;
  auto Digits = [&] {
    size_t Start = I;
    while (I < S.size() && llvm::isDigit(S[I]))
      ++I;
    return I > Start;
  };
  if (I < S.size() && S[I] == '-')
    ++I;
  if (I < S.size() && S[I] == '0')
    ++I;
  else if (!Digits())
    return false;
  if (I < S.size() && S[I] == '.') {
    ++I;
    if (!Digits())
      return false;
  }
  if (I < S.size() && (S[I] == 'e' || S[I] == 'E')) {
    ++I;
    if (I < S.size() && (S[I] == '+' || S[I] == '-'))
      ++I;
    if (!Digits())
      return false;
  }
  return I == S.size();
}

} // namespace

json::Value typedScalar(StringRef T, bool Quoted) {
  if (Quoted)
    return json::Value(T);
  if (T.empty() || T == "~" || T == "null" || T == "Null" || T == "NULL")
    return nullptr;
  if (T == "true" || T == "True" || T == "TRUE")
    return true;
  if (T == "false" || T == "False" || T == "FALSE")
    return false;
  StringRef Digits = T.startswith("-") ? T.drop_front() : T;
  if (!Digits.empty() && llvm::all_of(Digits, llvm::isDigit)) {
    int64_t I;
    if (!T.getAsInteger(10, I))
      return I;
    uint64_t U;
    if (!T.getAsInteger(10, U))
      return U;
    return 1e300; // Out of every range; the reader says so.
  }
  double D;
  if (T.find_first_not_of("0123456789.-+eE") == StringRef::npos &&
      !T.getAsDouble(D))
    return D;
  return json::Value(T);
}

std::pair<size_t, size_t> TextPullParser::lineAndColumn(size_t Offset) const {
  StringRef Before = In.take_front(Offset);
  size_t Line = 1 + Before.count('\n');
  size_t LastBreak = Before.find_last_of('\n');
  size_t Column =
      LastBreak == StringRef::npos ? Offset : Offset - LastBreak - 1;
  return {Line, Column + 1};
}

bool TextPullParser::decline(const llvm::Twine &Message) {
  Why = Message.str();
  WhyOffset = Pos;
  Declined = Failed = true;
  return false;
}

bool TextPullParser::malformed(const llvm::Twine &Message) {
  Why = Message.str();
  WhyOffset = Pos;
  Failed = true;
  Declined = false;
  return false;
}

TextPullParser::Event TextPullParser::nullAt(size_t Offset) const {
  Event E;
  E.Kind = EventKind::Scalar;
  E.Offset = Offset;
  return E;
}

bool TextPullParser::push(FrameKind K, size_t Indent, bool ExpectValue) {
  // The stack is explicit, so depth costs no recursion; the bound keeps the
  // limit every plan reader has had, and the fallback parsers recurse.
  if (Stack.size() >= MaxTextNesting)
    return malformed("nesting deeper than " + llvm::Twine(MaxTextNesting) +
                     " levels; not a plan");
  Frame F{K, Indent};
  F.ExpectValue = ExpectValue;
  Stack.push_back(F);
  return true;
}

//===----------------------------------------------------------------------===//
// Space, comments and lines
//===----------------------------------------------------------------------===//

void TextPullParser::newline() {
  if (In[Pos] == '\r' && at(Pos + 1) == '\n')
    ++Pos;
  ++Pos;
  LineStart = Pos;
  TabInIndent = false;
}

bool TextPullParser::atDocumentMarker() const {
  return Pos == LineStart && Mode == Syntax::Yaml &&
         (In.substr(Pos).startswith("---") ||
          In.substr(Pos).startswith("...")) &&
         isBlankOrBreak(Pos + 3);
}

/// A comment starts at '#' after a space or at the start of a line.
static bool startsComment(StringRef In, size_t Pos, size_t LineStart) {
  return In[Pos] == '#' &&
         (Pos == LineStart || In[Pos - 1] == ' ' || In[Pos - 1] == '\t');
}

void TextPullParser::skipLineSpace() {
  while (!atEnd() && (In[Pos] == ' ' || In[Pos] == '\t'))
    ++Pos;
  if (!atEnd() && Mode == Syntax::Yaml && startsComment(In, Pos, LineStart))
    while (!isBreak(Pos))
      ++Pos;
}

void TextPullParser::skipFlowSpace() {
  while (!atEnd()) {
    char C = In[Pos];
    if (C == ' ' || C == '\t')
      ++Pos;
    else if (C == '\n' || C == '\r')
      newline();
    else if (Mode == Syntax::Yaml && startsComment(In, Pos, LineStart))
      while (!isBreak(Pos))
        ++Pos;
    else
      return;
  }
}

void TextPullParser::skipBlockSpace() {
  while (!atEnd()) {
    char C = In[Pos];
    if (C == ' ') {
      ++Pos;
    } else if (C == '\t') {
      if (llvm::all_of(In.slice(LineStart, Pos),
                       [](char X) { return X == ' '; }))
        TabInIndent = true;
      ++Pos;
    } else if (C == '\n' || C == '\r') {
      newline();
    } else if (startsComment(In, Pos, LineStart)) {
      while (!isBreak(Pos))
        ++Pos;
    } else {
      return;
    }
  }
}

/// After a scalar or a flow collection in block context: nothing but a
/// comment may follow on its line.
bool TextPullParser::finishLine() {
  skipLineSpace();
  if (isBreak(Pos))
    return true;
  if (peek() == ':')
    return decline("a key that is not a plain or quoted scalar");
  return decline("unexpected text after a value");
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

bool TextPullParser::scalar(Event &E, bool Flow) {
  E = Event();
  E.Kind = EventKind::Scalar;
  E.Offset = Pos;
  char C = peek();
  if (C == '"')
    return doubleQuoted(E);
  if (Mode == Syntax::Json)
    return jsonLiteral(E);
  if (C == '\'')
    return singleQuoted(E);
  return plain(E, Flow);
}

bool TextPullParser::doubleQuoted(Event &E) {
  E.Quoted = true;
  size_t Start = ++Pos;
  // The common case: no escapes, the text is borrowed from the input.
  while (!atEnd() && In[Pos] != '"' && In[Pos] != '\\' &&
         uint8_t(In[Pos]) >= 0x20)
    ++Pos;
  if (peek() == '"') {
    E.Text = In.slice(Start, Pos++);
    return true;
  }
  Storage.assign(In.data() + Start, Pos - Start);
  while (true) {
    if (atEnd())
      return decline("a quoted string does not end");
    char C = In[Pos];
    if (C == '"')
      break;
    if (C == '\n' || C == '\r')
      return decline("a quoted string spans lines");
    if (uint8_t(C) < 0x20 && !(C == '\t' && Mode == Syntax::Yaml))
      return decline("a control character in a quoted string");
    if (C != '\\') {
      Storage += C;
      ++Pos;
      continue;
    }
    char Escape = at(Pos + 1);
    Pos += 2;
    switch (Escape) {
    case '"':
    case '\\':
    case '/':
      Storage += Escape;
      continue;
    case 'b':
      Storage += '\b';
      continue;
    case 'f':
      Storage += '\f';
      continue;
    case 'n':
      Storage += '\n';
      continue;
    case 'r':
      Storage += '\r';
      continue;
    case 't':
      Storage += '\t';
      continue;
    case 'u':
      break;
    default:
      Pos -= 2;
      return decline("an escape other than JSON's in a quoted string");
    }
    auto Hex4 = [&](uint32_t &Out) {
      if (Pos + 4 > In.size())
        return false;
      StringRef Digits = In.substr(Pos, 4);
      if (!llvm::all_of(Digits, llvm::isHexDigit) ||
          Digits.getAsInteger(16, Out))
        return false;
      Pos += 4;
      return true;
    };
    uint32_t Code = 0;
    if (!Hex4(Code))
      return decline("a malformed \\u escape");
    if (Code >= 0xDC00 && Code <= 0xDFFF)
      return decline("a lone UTF-16 surrogate escape");
    if (Code >= 0xD800 && Code <= 0xDBFF) {
      uint32_t Low = 0;
      if (at(Pos) != '\\' || at(Pos + 1) != 'u')
        return decline("a lone UTF-16 surrogate escape");
      Pos += 2;
      if (!Hex4(Low) || Low < 0xDC00 || Low > 0xDFFF)
        return decline("a lone UTF-16 surrogate escape");
      Code = 0x10000 + ((Code - 0xD800) << 10) + (Low - 0xDC00);
    }
    char Utf8[UNI_MAX_UTF8_BYTES_PER_CODE_POINT];
    char *End = Utf8;
    if (!llvm::ConvertCodePointToUTF8(Code, End))
      return decline("an escape that is not a character");
    Storage.append(Utf8, End);
  }
  ++Pos;
  E.Text = Storage;
  E.Borrowed = false;
  return true;
}

bool TextPullParser::singleQuoted(Event &E) {
  E.Quoted = true;
  size_t Start = ++Pos;
  bool Escaped = false;
  while (true) {
    if (isBreak(Pos))
      return decline(atEnd() ? "a quoted string does not end"
                             : "a quoted string spans lines");
    if (In[Pos] == '\'') {
      if (at(Pos + 1) != '\'')
        break;
      Escaped = true;
      ++Pos;
    }
    ++Pos;
  }
  E.Text = In.slice(Start, Pos++);
  if (Escaped) {
    Storage.clear();
    for (size_t I = 0; I < E.Text.size(); ++I) {
      Storage += E.Text[I];
      if (E.Text[I] == '\'')
        ++I;
    }
    E.Text = Storage;
    E.Borrowed = false;
  }
  return true;
}

bool TextPullParser::plain(Event &E, bool Flow) {
  char C = peek();
  bool IndicatorFollowed = (C == '-' || C == '?' || C == ':') &&
                           !isBlankOrBreak(Pos + 1) &&
                           !(Flow && isFlowIndicator(at(Pos + 1)));
  if (!IndicatorFollowed && StringRef("-?:,[]{}#&*!|>'\"%@`").contains(C)) {
    switch (C) {
    case '&':
    case '*':
      return decline("YAML anchors and aliases");
    case '!':
      return decline("YAML tags");
    case '|':
    case '>':
      return decline("YAML block scalars");
    case '?':
      return decline("YAML complex keys");
    case '%':
      return decline("YAML directives");
    default:
      return decline(llvm::Twine("unexpected '") + llvm::Twine(C) + "'");
    }
  }
  size_t Start = Pos;
  while (!isBreak(Pos)) {
    char X = In[Pos];
    if (X == ':') {
      if (isBlankOrBreak(Pos + 1) || (Flow && isFlowIndicator(at(Pos + 1))))
        break;
      // YAML 1.2 reads "a:1" in flow as one scalar, YAML 1.1 as a pair.
      if (Flow)
        return decline("':' inside a plain scalar in a flow collection");
    } else if ((X == ' ' || X == '\t') && at(Pos + 1) == '#') {
      break;
    } else if (Flow && isFlowIndicator(X)) {
      break;
    }
    ++Pos;
  }
  E.Text = In.slice(Start, Pos).rtrim(" \t");
  // A plain scalar may continue on the next line, more indented (block) or
  // anywhere (flow): callers see what follows and decline that.
  return true;
}

bool TextPullParser::jsonLiteral(Event &E) {
  size_t Start = Pos;
  while (!atEnd() && (llvm::isAlnum(In[Pos]) || In[Pos] == '-' ||
                      In[Pos] == '+' || In[Pos] == '.'))
    ++Pos;
  E.Text = In.slice(Start, Pos);
  if (E.Text == "true" || E.Text == "false" || E.Text == "null" ||
      isJsonNumber(E.Text))
    return true;
  Pos = Start;
  return decline("not a JSON value");
}

//===----------------------------------------------------------------------===//
// Collections
//===----------------------------------------------------------------------===//

bool TextPullParser::flowNode(Event &E) {
  E = Event();
  E.Offset = Pos;
  char C = peek();
  if (C == '[' || C == '{') {
    bool IsMap = C == '{';
    E.Kind = IsMap ? EventKind::MapBegin : EventKind::ListBegin;
    ++Pos;
    return push(IsMap ? FrameKind::FlowMap : FrameKind::FlowSeq, 0);
  }
  if (atEnd())
    return decline("the document ends inside a collection");
  return scalar(E, /*Flow=*/true);
}

/// A node in block context at the current position. Compact: a block
/// collection may start here (not on the line of its parent's key).
bool TextPullParser::blockNode(Event &E, bool Compact) {
  E = Event();
  E.Offset = Pos;
  size_t Column = column();
  char C = peek();
  if (TabInIndent)
    return decline("a tab in indentation");
  if (C == '[' || C == '{')
    return flowNode(E);
  if (C == '-' && isBlankOrBreak(Pos + 1)) {
    if (!Compact)
      return decline("a list entry on the line of its key");
    E.Kind = EventKind::ListBegin;
    return push(FrameKind::BlockSeq, Column);
  }
  if (!scalar(E, /*Flow=*/false))
    return false;
  size_t AfterScalar = Pos;
  skipLineSpace();
  if (peek() == ':' && isBlankOrBreak(Pos + 1)) {
    if (!Compact)
      return decline("a map on the line of its key");
    ++Pos;
    // The key's text may live in Storage; nothing parses before it is read.
    Pending = E;
    E = Event();
    E.Kind = EventKind::MapBegin;
    E.Offset = Pending->Offset;
    return push(FrameKind::BlockMap, Column, /*ExpectValue=*/true);
  }
  Pos = AfterScalar;
  return finishLine();
}

bool TextPullParser::afterFlowClose() {
  if (Mode == Syntax::Json)
    return true;
  if (!Stack.empty() && (Stack.back().Kind == FrameKind::FlowMap ||
                         Stack.back().Kind == FrameKind::FlowSeq))
    return true;
  return finishLine();
}

bool TextPullParser::nextInFlowSeq(Event &E) {
  skipFlowSpace();
  if (atDocumentMarker())
    return decline("a document marker inside a collection");
  if (peek() == ']') {
    E = Event();
    E.Kind = EventKind::ListEnd;
    E.Offset = Pos++;
    pop();
    return afterFlowClose();
  }
  Frame &F = Stack.back();
  if (!F.First) {
    if (peek() != ',')
      return decline("expected ',' or ']' in a list");
    ++Pos;
    skipFlowSpace();
    if (peek() == ']')
      return decline("a comma before ']'");
  }
  F.First = false;
  if (!flowNode(E))
    return false;
  if (E.Kind == EventKind::Scalar) {
    skipFlowSpace();
    if (peek() == ':')
      return decline("a key: value pair inside a list");
  }
  return true;
}

bool TextPullParser::nextInFlowMap(Event &E) {
  Frame &F = Stack.back();
  skipFlowSpace();
  if (atDocumentMarker())
    return decline("a document marker inside a collection");
  if (F.ExpectValue) {
    F.ExpectValue = false;
    if (peek() != ':') {
      if (Mode == Syntax::Yaml && (peek() == ',' || peek() == '}')) {
        E = nullAt(Pos);
        return true;
      }
      return decline("expected ':' after a key");
    }
    ++Pos;
    skipFlowSpace();
    if (Mode == Syntax::Yaml && (peek() == ',' || peek() == '}')) {
      E = nullAt(Pos);
      return true;
    }
    return flowNode(E);
  }
  if (peek() == '}') {
    E = Event();
    E.Kind = EventKind::MapEnd;
    E.Offset = Pos++;
    pop();
    return afterFlowClose();
  }
  if (!F.First) {
    if (peek() != ',')
      return decline("expected ',' or '}' in a map");
    ++Pos;
    skipFlowSpace();
    if (peek() == '}')
      return decline("a comma before '}'");
  }
  F.First = false;
  char C = peek();
  if (C == '[' || C == '{')
    return decline("a key that is not a plain or quoted scalar");
  if (atEnd())
    return decline("the document ends inside a collection");
  if (Mode == Syntax::Json && C != '"')
    return decline("a JSON key must be a string");
  F.ExpectValue = true;
  return scalar(E, /*Flow=*/true);
}

bool TextPullParser::nextInBlockSeq(Event &E) {
  size_t Indent = Stack.back().Indent;
  skipBlockSpace();
  E = Event();
  E.Offset = Pos;
  if (atEnd() || column() < Indent) {
    E.Kind = EventKind::ListEnd;
    pop();
    return true;
  }
  if (atDocumentMarker())
    return decline("several YAML documents");
  if (column() > Indent)
    return decline("a line indented past its list's entries");
  if (peek() != '-' || !isBlankOrBreak(Pos + 1)) {
    // "key:\n- a\nnext:": the list may sit at its key's indentation.
    if (Stack.size() >= 2 &&
        Stack[Stack.size() - 2].Kind == FrameKind::BlockMap &&
        Stack[Stack.size() - 2].Indent == Indent) {
      E.Kind = EventKind::ListEnd;
      pop();
      return true;
    }
    return decline("expected a list entry '- '");
  }
  if (TabInIndent)
    return decline("a tab in indentation");
  ++Pos;
  skipLineSpace();
  if (!isBreak(Pos))
    return blockNode(E, /*Compact=*/true);
  size_t Entry = Pos;
  skipBlockSpace();
  if (atEnd() || column() <= Indent || atDocumentMarker()) {
    E = nullAt(Entry);
    return true;
  }
  return blockNode(E, /*Compact=*/true);
}

bool TextPullParser::nextInBlockMap(Event &E) {
  Frame &F = Stack.back();
  size_t Indent = F.Indent;
  if (F.ExpectValue) {
    F.ExpectValue = false;
    skipLineSpace();
    if (!isBreak(Pos))
      return blockNode(E, /*Compact=*/false);
    size_t Value = Pos;
    skipBlockSpace();
    if (atEnd() || atDocumentMarker() || column() < Indent) {
      E = nullAt(Value);
      return true;
    }
    if (column() > Indent)
      return blockNode(E, /*Compact=*/true);
    if (peek() == '-' && isBlankOrBreak(Pos + 1)) {
      E = Event();
      E.Kind = EventKind::ListBegin;
      E.Offset = Pos;
      return push(FrameKind::BlockSeq, Indent);
    }
    E = nullAt(Value);
    return true;
  }
  skipBlockSpace();
  if (atEnd() || column() < Indent) {
    E = Event();
    E.Kind = EventKind::MapEnd;
    E.Offset = Pos;
    pop();
    return true;
  }
  if (atDocumentMarker())
    return decline("several YAML documents");
  if (column() > Indent)
    return decline("a line indented past its map's keys (a scalar that "
                   "spans lines?)");
  if (TabInIndent)
    return decline("a tab in indentation");
  char C = peek();
  if (C == '[' || C == '{')
    return decline("a key that is not a plain or quoted scalar");
  if (C == '-' && isBlankOrBreak(Pos + 1))
    return decline("a list entry among a map's keys");
  if (!scalar(E, /*Flow=*/false))
    return false;
  skipLineSpace();
  if (peek() != ':' || !isBlankOrBreak(Pos + 1))
    return decline("expected ':' after a key");
  ++Pos;
  Stack.back().ExpectValue = true;
  return true;
}

bool TextPullParser::atDocumentEnd(Event &E) {
  if (Mode == Syntax::Json)
    skipFlowSpace();
  else
    skipBlockSpace();
  if (!atEnd())
    return decline(atDocumentMarker() ? "several YAML documents"
                                      : "text after the document");
  Done = true;
  E = Event();
  E.Offset = Pos;
  return true;
}

bool TextPullParser::next(Event &E) {
  if (Failed)
    return false;
  if (Pending) {
    E = *Pending;
    Pending.reset();
    return true;
  }
  if (Done) {
    E = Event();
    E.Offset = In.size();
    return true;
  }
  if (!Started) {
    Started = true;
    if (Mode == Syntax::Json) {
      skipFlowSpace();
      return flowNode(E);
    }
    skipBlockSpace();
    if (peek() == '%' && Pos == LineStart)
      return decline("YAML directives");
    if (atDocumentMarker() && In.substr(Pos).startswith("---")) {
      Pos += 3;
      skipBlockSpace();
    }
    if (atEnd() || atDocumentMarker()) {
      E = nullAt(Pos);
      return true;
    }
    return blockNode(E, /*Compact=*/true);
  }
  if (Stack.empty())
    return atDocumentEnd(E);
  switch (Stack.back().Kind) {
  case FrameKind::FlowSeq:
    return nextInFlowSeq(E);
  case FrameKind::FlowMap:
    return nextInFlowMap(E);
  case FrameKind::BlockSeq:
    return nextInBlockSeq(E);
  case FrameKind::BlockMap:
    return nextInBlockMap(E);
  }
  return decline("unreachable");
}

} // namespace collplan
