// NumPy .npy reading (versions 1.0-3.0, little-endian, C order) and writing (version 1.0).
#include "tessera/runtime/npy.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string_view>

#include "tessera/support/error.h"

namespace tessera {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// numpy aligns the data start to 64 bytes (ARRAY_ALIGN).
constexpr size_t kAlign = 64;
// numpy >= 1.22 leaves room after the dict so the leading axis can grow in place.
constexpr size_t kGrowthAxisMaxDigits = 21;

struct DescrEntry {
  const char* descr;
  DType dtype;
};
// The spellings numpy writes for each supported dtype (single-byte types use '|').
constexpr DescrEntry kDescrs[] = {
    {"<f4", DType::kFloat32}, {"<f8", DType::kFloat64}, {"<f2", DType::kFloat16},
    {"<i4", DType::kInt32},   {"<i8", DType::kInt64},   {"|i1", DType::kInt8},
    {"|u1", DType::kUInt8},   {"|b1", DType::kBool},
};

const char* DescrOf(DType dtype) {
  for (const auto& e : kDescrs)
    if (e.dtype == dtype) return e.descr;
  return nullptr;
}

std::optional<DType> DtypeOfDescr(const std::string& descr) {
  for (const auto& e : kDescrs)
    if (descr == e.descr) return e.dtype;
  // Single-byte types have no byte order, so '<' and '=' spell the same thing.
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '=') &&
      (descr.substr(1) == "i1" || descr.substr(1) == "u1" || descr.substr(1) == "b1"))
    return DtypeOfDescr("|" + descr.substr(1));
  return std::nullopt;
}

/// A parsed header value: a string, a bool or a tuple of ints.
struct HeaderValue {
  enum class Kind { kString, kBool, kTuple, kList } kind;
  std::string str;
  bool boolean = false;
  std::vector<int64_t> ints;
};

/// Parses the Python-literal dict of a .npy header, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& what) : text_(text), what_(what) {}

  std::vector<std::pair<std::string, HeaderValue>> ParseDict() {
    std::vector<std::pair<std::string, HeaderValue>> items;
    SkipSpace();
    Expect('{');
    for (;;) {
      SkipSpace();
      if (Peek() == '}') {
        ++pos_;
        break;
      }
      std::string key = ParseString();
      SkipSpace();
      Expect(':');
      SkipSpace();
      items.emplace_back(std::move(key), ParseValue());
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != '}') {
        Fail("expected ',' or '}'");
      }
    }
    SkipSpace();
    if (pos_ != text_.size()) Fail("unexpected text after the header dict");
    return items;
  }

 private:
  [[noreturn]] void Fail(const std::string& message) const {
    TS_THROW(kParse) << what_ << ": malformed .npy header at offset " << pos_ << ": " << message
                     << " (header: " << text_.substr(0, 200) << ")";
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  void Expect(char c) {
    if (Peek() != c) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  std::string ParseString() {
    char quote = Peek();
    if (quote != '\'' && quote != '"') Fail("expected a quoted string");
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != quote) out += text_[pos_++];
    if (pos_ >= text_.size()) Fail("unterminated string");
    ++pos_;
    return out;
  }

  int64_t ParseInt() {
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_] - '0', &v))
        Fail("dimension is too large");
      ++pos_;
    }
    if (pos_ == start) Fail("expected a non-negative integer");
    if (Peek() == 'L') ++pos_;  // Python 2 long suffix in old files
    return v;
  }

  HeaderValue ParseValue() {
    HeaderValue v;
    char c = Peek();
    if (c == '\'' || c == '"') {
      v.kind = HeaderValue::Kind::kString;
      v.str = ParseString();
    } else if (text_.substr(pos_, 4) == "True") {
      v.kind = HeaderValue::Kind::kBool;
      v.boolean = true;
      pos_ += 4;
    } else if (text_.substr(pos_, 5) == "False") {
      v.kind = HeaderValue::Kind::kBool;
      pos_ += 5;
    } else if (c == '(') {
      v.kind = HeaderValue::Kind::kTuple;
      ++pos_;
      SkipSpace();
      while (Peek() != ')') {
        v.ints.push_back(ParseInt());
        SkipSpace();
        if (Peek() == ',') {
          ++pos_;
          SkipSpace();
        } else if (Peek() != ')') {
          Fail("expected ',' or ')' in the shape");
        }
      }
      ++pos_;
    } else if (c == '[') {
      // A structured dtype's descr is a list; skip it (balanced) so it can be reported.
      v.kind = HeaderValue::Kind::kList;
      int depth = 0;
      do {
        if (pos_ >= text_.size()) Fail("unterminated list");
        if (text_[pos_] == '[') ++depth;
        if (text_[pos_] == ']') --depth;
        ++pos_;
      } while (depth > 0);
    } else {
      Fail("expected a string, True, False or a tuple");
    }
    return v;
  }

  std::string_view text_;
  const std::string& what_;
  size_t pos_ = 0;
};

uint32_t ReadLE(const std::string& bytes, size_t offset, size_t width) {
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i)
    v |= uint32_t{static_cast<uint8_t>(bytes[offset + i])} << (8 * i);
  return v;
}

}  // namespace

NDArray ParseNpy(const std::string& bytes, const std::string& what) {
  if (bytes.size() < kMagicLen + 2 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0)
    TS_THROW(kParse) << what << ": not a .npy file (missing the \\x93NUMPY magic)";
  int major = static_cast<uint8_t>(bytes[6]);
  int minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    TS_THROW(kUnsupported) << what << ": unsupported .npy version " << major << "." << minor
                           << " (supported: 1.0, 2.0, 3.0)";
  size_t len_width = major == 1 ? 2 : 4;
  size_t prefix = kMagicLen + 2 + len_width;
  if (bytes.size() < prefix)
    TS_THROW(kParse) << what << ": truncated .npy header: " << bytes.size() << " bytes";
  size_t header_len = ReadLE(bytes, kMagicLen + 2, len_width);
  if (bytes.size() - prefix < header_len)
    TS_THROW(kParse) << what << ": truncated .npy header: expected " << header_len
                     << " header bytes, got " << bytes.size() - prefix;
  std::string_view header(bytes.data() + prefix, header_len);

  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<int64_t>> shape;
  for (auto& [key, value] : HeaderParser(header, what).ParseDict()) {
    using K = HeaderValue::Kind;
    if (key == "descr") {
      if (value.kind == K::kList)
        TS_THROW(kUnsupported) << what << ": structured .npy dtypes are not supported";
      if (value.kind != K::kString) TS_THROW(kParse) << what << ": .npy 'descr' is not a string";
      descr = value.str;
    } else if (key == "fortran_order") {
      if (value.kind != K::kBool)
        TS_THROW(kParse) << what << ": .npy 'fortran_order' is not a bool";
      fortran = value.boolean;
    } else if (key == "shape") {
      if (value.kind != K::kTuple) TS_THROW(kParse) << what << ": .npy 'shape' is not a tuple";
      shape = value.ints;
    } else {
      TS_THROW(kParse) << what << ": unexpected key '" << key << "' in the .npy header";
    }
  }
  if (!descr || !fortran || !shape)
    TS_THROW(kParse) << what << ": .npy header lacks "
                     << (!descr     ? "'descr'"
                         : !fortran ? "'fortran_order'"
                                    : "'shape'");
  if (*fortran)
    TS_THROW(kUnsupported) << what << ": Fortran-order .npy arrays are not supported (save with "
                           << "numpy.ascontiguousarray first)";
  auto dtype = DtypeOfDescr(*descr);
  if (!dtype) {
    bool big = !descr->empty() && descr->front() == '>';
    TS_THROW(kUnsupported) << what << ": unsupported .npy dtype '" << *descr << "'"
                           << (big ? " (big-endian data is not supported)" : "")
                           << " (supported: <f4 <f8 <f2 <i4 <i8 |i1 |u1 |b1)";
  }
  int64_t numel = 1;
  for (int64_t d : *shape)
    if (__builtin_mul_overflow(numel, d, &numel) || numel > (int64_t{1} << 48))
      TS_THROW(kParse) << what << ": .npy shape " << ShapeToString(*shape) << " is too large";
  size_t expected = static_cast<size_t>(numel) * DTypeBytes(*dtype);
  size_t actual = bytes.size() - prefix - header_len;
  if (actual < expected)
    TS_THROW(kParse) << what << ": truncated .npy data: expected " << expected << " bytes for "
                     << DTypeName(*dtype) << ShapeToString(*shape) << ", got " << actual;
  NDArray array = NDArray::Empty(*shape, *dtype);
  if (expected) std::memcpy(array.data(), bytes.data() + prefix + header_len, expected);
  if (*dtype == DType::kBool) {
    // numpy treats any non-zero byte as True; store the canonical 1.
    auto* p = array.data_as<uint8_t>();
    for (int64_t i = 0; i < numel; ++i) p[i] = p[i] != 0;
  }
  return array;
}

NDArray ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    if (err == ENOENT) TS_THROW(kNotFound) << path << ": no such .npy file";
    TS_THROW(kIO) << path << ": cannot open: " << std::strerror(err);
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) TS_THROW(kIO) << path << ": read error";
  return ParseNpy(bytes, path);
}

std::string SerializeNpy(const NDArray& array) {
  if (!array.defined()) TS_THROW(kValue) << "cannot write an undefined array as .npy";
  const char* descr = DescrOf(array.dtype());
  if (!descr)
    TS_THROW(kUnsupported) << "cannot write " << DTypeName(array.dtype())
                           << " as .npy: numpy has no " << DTypeName(array.dtype())
                           << " dtype (cast to float32 first)";
  // Keys sorted and spelled as numpy's repr does; a 1-tuple keeps its trailing comma.
  std::string shape = "(";
  for (size_t i = 0; i < array.shape().size(); ++i)
    shape += (i ? ", " : "") + std::to_string(array.shape()[i]);
  if (array.shape().size() == 1) shape += ",";
  shape += ")";
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  if (!array.shape().empty())
    header.append(kGrowthAxisMaxDigits - std::to_string(array.shape()[0]).size(), ' ');
  // numpy always pads (1 to 64 spaces) and ends the header with a newline.
  size_t hlen = header.size() + 1;
  size_t pad = kAlign - (kMagicLen + 2 + 2 + hlen) % kAlign;
  header.append(pad, ' ');
  header += '\n';
  if (header.size() > 0xffff)
    TS_THROW(kValue) << "array rank too large for a version 1.0 .npy header";
  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(array.data()), array.NumBytes());
  return out;
}

void WriteNpy(const std::string& path, const NDArray& array) {
  std::string bytes = SerializeNpy(array);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) TS_THROW(kIO) << path << ": cannot open for writing: " << std::strerror(errno);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) TS_THROW(kIO) << path << ": write failed";
}

}  // namespace tessera
