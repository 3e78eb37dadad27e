// Tokenizer of the text format: names, numbers with dtype suffixes, strings, punctuation.
#include "text_lexer.h"

#include <cstdio>

#include "tessera/support/error.h"

namespace tessera::text {

namespace {

bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsNameChar(char c) {
  return IsAlpha(c) || IsDigit(c);
}

std::string EscapedChar(unsigned char c) {
  if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  Lexer(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  LexResult Run() {
    LexResult result;
    bool after_dot = false;
    while (true) {
      SkipSpaceAndComments();
      if (pos_ >= text_.size()) break;
      if (text_.compare(pos_, 11, "#[metadata]") == 0) {
        result.has_metadata = true;
        result.metadata_offset = pos_ + 11;
        break;
      }
      Token tok = Next(after_dot);
      after_dot = tok.kind == TokKind::kPunct && tok.text == ".";
      result.tokens.push_back(std::move(tok));
    }
    Token end;
    end.kind = TokKind::kEnd;
    end.text = text_.substr(pos_, 0);
    end.line = line_;
    end.col = Col();
    result.tokens.push_back(std::move(end));
    return result;
  }

 private:
  int Col() const { return static_cast<int>(pos_ - line_start_) + 1; }

  [[noreturn]] void Fail(int line, int col, const std::string& message) {
    TS_THROW(kParse) << source_ << ":" << line << ":" << col << ": " << message;
  }

  void Advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }

  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        Advance();
      } else if (text_.compare(pos_, 2, "/*") == 0) {
        int line = line_, col = Col();
        size_t end = text_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) Fail(line, col, "unterminated comment");
        while (pos_ < end + 2) Advance();
      } else if (text_.compare(pos_, 2, "//") == 0 ||
                 (c == '#' && text_.compare(pos_, 2, "#[") != 0)) {
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance();
      } else {
        return;
      }
    }
  }

  Token Next(bool after_dot) {
    Token tok;
    tok.line = line_;
    tok.col = Col();
    size_t start = pos_;
    char c = text_[pos_];
    if (c == '%' || c == '@') {
      tok.kind = c == '%' ? TokKind::kLocal : TokKind::kGlobal;
      Advance();
      if (pos_ < text_.size() && text_[pos_] == '"') {
        tok.value = LexString(tok.line, tok.col);
      } else {
        size_t name_start = pos_;
        while (pos_ < text_.size() && IsNameChar(text_[pos_])) Advance();
        if (pos_ == name_start)
          Fail(tok.line, tok.col, std::string("expected a name after '") + c + "'");
        tok.value = std::string(text_.substr(name_start, pos_ - name_start));
      }
    } else if (IsAlpha(c)) {
      tok.kind = TokKind::kIdent;
      while (pos_ < text_.size()) {
        if (IsNameChar(text_[pos_])) {
          Advance();
        } else if (text_[pos_] == '.' && pos_ + 1 < text_.size() && IsAlpha(text_[pos_ + 1])) {
          Advance();
        } else {
          break;
        }
      }
    } else if (IsDigit(c)) {
      tok.kind = TokKind::kNumber;
      LexNumber(after_dot, &tok);
    } else if (c == '"') {
      tok.kind = TokKind::kString;
      tok.value = LexString(tok.line, tok.col);
    } else {
      static const char* kPuncts[] = {"+:", "->", "==", "!=", "<=", ">=", "&&", "||", "#[",
                                      "(",  ")",  "[",  "]",  "{",  "}",  ",",  ";",  ":",
                                      "=",  "+",  "-",  "*",  "/",  "<",  ">",  "!",  "."};
      tok.kind = TokKind::kPunct;
      bool found = false;
      for (const char* p : kPuncts) {
        std::string_view punct(p);
        if (text_.compare(pos_, punct.size(), punct) == 0) {
          for (size_t i = 0; i < punct.size(); ++i) Advance();
          found = true;
          break;
        }
      }
      if (!found)
        Fail(tok.line, tok.col,
             "unexpected character '" + EscapedChar(static_cast<unsigned char>(c)) + "'");
    }
    tok.text = text_.substr(start, pos_ - start);
    return tok;
  }

  /// digits [. digits] [e[+-]digits] [suffix]; only digits right after a '.' token so
  /// that `%t.0.1` is two projections.
  void LexNumber(bool after_dot, Token* tok) {
    size_t start = pos_;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) Advance();
    if (!after_dot) {
      if (pos_ + 1 < text_.size() && text_[pos_] == '.' && IsDigit(text_[pos_ + 1])) {
        Advance();
        while (pos_ < text_.size() && IsDigit(text_[pos_])) Advance();
      }
      if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
        size_t k = pos_ + 1;
        if (k < text_.size() && (text_[k] == '+' || text_[k] == '-')) ++k;
        if (k < text_.size() && IsDigit(text_[k])) {
          while (pos_ < k) Advance();
          while (pos_ < text_.size() && IsDigit(text_[pos_])) Advance();
        }
      }
    }
    tok->suffix = pos_ - start;
    if (!after_dot)
      while (pos_ < text_.size() && IsNameChar(text_[pos_])) Advance();
  }

  /// A double-quoted string starting at pos_; returns the decoded contents.
  std::string LexString(int line, int col) {
    std::string out;
    Advance();  // opening quote
    while (true) {
      if (pos_ >= text_.size()) Fail(line, col, "unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        Advance();
        return out;
      }
      if (c != '\\') {
        out += c;
        Advance();
        continue;
      }
      int esc_line = line_, esc_col = Col();
      Advance();
      if (pos_ >= text_.size()) Fail(line, col, "unterminated string");
      char e = text_[pos_];
      Advance();
      switch (e) {
        case '"':
        case '\\':
        case '\'':
          out += e;
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '0':
          out += '\0';
          break;
        case 'x': {
          int hi = pos_ < text_.size() ? HexValue(text_[pos_]) : -1;
          int lo = pos_ + 1 < text_.size() ? HexValue(text_[pos_ + 1]) : -1;
          if (hi < 0 || lo < 0) Fail(esc_line, esc_col, "expected two hex digits after '\\x'");
          Advance();
          Advance();
          out += static_cast<char>(hi * 16 + lo);
          break;
        }
        default:
          Fail(esc_line, esc_col,
               "unknown escape '\\" + EscapedChar(static_cast<unsigned char>(e)) + "' in string");
      }
    }
  }

  std::string_view text_;
  std::string_view source_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

LexResult Lex(std::string_view text, std::string_view source) {
  return Lexer(text, source).Run();
}

std::string LocationPrefix(std::string_view text, std::string_view source, size_t offset) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return std::string(source) + ":" + std::to_string(line) + ":" +
         std::to_string(offset - line_start + 1) + ": ";
}

std::string TokenDisplay(const Token& tok) {
  if (tok.kind == TokKind::kEnd) return "end of input";
  std::string out = "'";
  size_t n = 0;
  for (char c : tok.text) {
    if (++n > 24) {
      out += "...";
      break;
    }
    out += EscapedChar(static_cast<unsigned char>(c));
  }
  return out + "'";
}

}  // namespace tessera::text
