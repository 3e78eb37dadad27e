// Private: the tokenizer of the text format, shared by the graph and tensor-IR parsers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::text {

/// Token classes; punctuation keeps its spelling in `text`.
enum class TokKind { kEnd, kLocal, kGlobal, kIdent, kNumber, kString, kPunct };

/// One token with its position (1-based line and byte column).
struct Token {
  TokKind kind = TokKind::kEnd;
  std::string_view text;  ///< the source spelling (for messages)
  std::string value;      ///< decoded name (kLocal/kGlobal) or string contents (kString)
  size_t suffix = 0;      ///< kNumber: index in `text` where the dtype suffix starts
  int line = 1;
  int col = 1;
};

/// The tokens of a whole text, plus where its `#[metadata]` JSON starts (if present).
struct LexResult {
  std::vector<Token> tokens;  ///< always ends with a kEnd token
  bool has_metadata = false;
  size_t metadata_offset = 0;  ///< byte offset of the JSON after `#[metadata]`
};

/// Splits `text` into tokens, skipping whitespace and comments (`/* */`, `//`, and `#`
/// not followed by `[`). Stops at `#[metadata]`. Throws a located parse error for an
/// unterminated string or comment and for characters outside the syntax.
LexResult Lex(std::string_view text, std::string_view source);

/// "<source>:<line>:<col>: " for the byte `offset` of `text`.
std::string LocationPrefix(std::string_view text, std::string_view source, size_t offset);

/// How a token is shown in "got '...'" messages (shortened, non-printables escaped).
std::string TokenDisplay(const Token& tok);

}  // namespace tessera::text
