//===- TextPullParserScalars.cpp - Scalars of JSON and plain YAML ---------===//
//
// TextPullParser's scalars: double-quoted with JSON's escapes, single-quoted,
// plain (YAML) or JSON's literals; and how a plain scalar is typed.
//
//===----------------------------------------------------------------------===//

#include "plan/serialize/TextPullParser.h"

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

} // namespace collplan
