// Text format: exact located error messages for malformed input, and a mutation fuzzer
// that checks every input gives a module or a tessera::Error.
#include <random>

#include "test_text_util.h"

namespace tessera {
namespace {

using testing::ErrorOf;

std::string ParseError(const std::string& text) {
  return ErrorOf([&] { ParseModule(text, "in.txt"); });
}

ErrorKind ParseErrorKind(const std::string& text) {
  try {
    ParseModule(text, "in.txt");
  } catch (const Error& e) {
    return e.kind();
  }
  return ErrorKind::kInternal;
}

const char* kHead = "def @main(%x: Tensor[(2), float32]) {\n";

TEST(TextErrors, UnknownOpAttributeAndVariable) {
  EXPECT_EQ(ParseError(std::string(kHead) + "  nn.relux(%x)\n}"),
            "in.txt:2:3: unknown op 'nn.relux'");
  EXPECT_EQ(ParseErrorKind(std::string(kHead) + "  nn.relux(%x)\n}"), ErrorKind::kNotFound);
  EXPECT_EQ(ParseError(std::string(kHead) + "  add(%x, %x, foo=1)\n}"),
            "in.txt:2:15: op 'add': unknown attribute 'foo' (it takes no attributes)");
  EXPECT_EQ(ParseError(std::string(kHead) + "  add(%x, %y)\n}"),
            "in.txt:2:11: undefined variable '%y'");
  EXPECT_EQ(ParseError(std::string(kHead) + "  add(%x)\n}"),
            "in.txt:2:3: op 'add' takes 2 input(s), got 1");
  EXPECT_EQ(ParseError(std::string(kHead) + "  @nowhere(%x)\n}"),
            "in.txt:2:3: undefined global function '@nowhere'");
}

TEST(TextErrors, SyntaxErrorsNameExpectationAndToken) {
  EXPECT_EQ(ParseError(std::string(kHead) + "  add(%x, %x;\n}"),
            "in.txt:2:13: expected ')', got ';'");
  EXPECT_EQ(ParseError("def @main(%x: Tensr[(2), float32]) { %x }"),
            "in.txt:1:15: expected a type like Tensor[(1, 3), float32], got 'Tensr'");
  EXPECT_EQ(ParseError("def @main(%x: Tensor[(2), float33]) { %x }"),
            "in.txt:1:27: unknown dtype 'float33' (valid: float32, float16, bfloat16, float64, "
            "int8, int32, int64, uint8, bool)");
  EXPECT_EQ(ParseError("def @main(%x: Tensor[(2), float32]) { %x"),
            "in.txt:1:41: expected '}', got end of input");
  EXPECT_EQ(ParseError("def @main() { %0 = 1f; }"), "in.txt:1:24: expected an expression, got '}'");
  EXPECT_EQ(ParseError("def main() { 1f }"),
            "in.txt:1:5: expected a function name like @main, got 'main'");
  EXPECT_EQ(ParseError("def @f() { 1f }\ndef @f() { 2f }"),
            "in.txt:2:5: function @f is defined twice");
  EXPECT_EQ(ParseError("def @main(Compiler=\"dnnl) { 1f }"), "in.txt:1:20: unterminated string");
  EXPECT_EQ(ParseError("def @main() { 1f } /* open"), "in.txt:1:20: unterminated comment");
  EXPECT_EQ(ParseError("def @main() {\n  1x\n}"),
            "in.txt:2:3: unknown suffix 'x' of literal '1x' (valid: f, f16, f32, f64, bf16, i8, "
            "i32, i64, u8)");
  EXPECT_EQ(ParseError("def @main() { 99999999999 }"),
            "in.txt:1:15: integer literal '99999999999' is out of range for int32");
  EXPECT_EQ(ParseError("def @main() { %t.x }"), "in.txt:1:15: undefined variable '%t'");
  EXPECT_EQ(ParseError("def @main(%t) { %t.x }"),
            "in.txt:1:20: expected a tuple index after '.', got 'x'");
}

TEST(TextErrors, BadAttributeValuesNameOpAndAttribute) {
  EXPECT_EQ(ParseError(std::string(kHead) + "  add(%x, %x, =1)\n}"),
            "in.txt:2:15: expected an expression, got '='");
  EXPECT_EQ(ParseError("def @main(a=[1, 2) { 1f }"), "in.txt:1:18: expected ']', got ')'");
  EXPECT_EQ(ParseError("def @main(a=@x) { 1f }"),
            "in.txt:1:13: expected an attribute value (number, string, True, False, None or "
            "[...]), got '@x'");
  EXPECT_EQ(ParseError(std::string(kHead) + "  add(%x, %x, foo=1, foo=2)\n}"),
            "in.txt:2:15: op 'add': unknown attribute 'foo' (it takes no attributes)");
  EXPECT_EQ(ParseError("def @main(%f) { %f(%f, a=1, a=2) }"),
            "in.txt:1:29: attribute 'a' is given twice");
}

TEST(TextErrors, MetadataProblemsAreLocated) {
  EXPECT_EQ(ParseError("def @main() {\n  meta[Constant][0]\n}"),
            "in.txt:2:3: meta[Constant][0] is used but the text has no #[metadata] section");
  EXPECT_EQ(
      ParseError("def @main() { meta[Constant][1] }\n#[metadata]\n"
                 "{\"Constant\": [{\"dtype\": \"int8\", \"shape\": [], \"data\": \"AQ==\"}]}"),
      "in.txt:1:30: meta[Constant][1] is out of range: the metadata holds 1 constant(s)");
  EXPECT_EQ(ParseError("def @main() { meta[Tensor][0] }\n#[metadata]\n{}"),
            "in.txt:1:20: unsupported metadata kind 'Tensor' (expected Constant)");
  EXPECT_EQ(ParseError("def @main() { 1f }\n#[metadata]\n{\"Constant\": [\n"),
            "in.txt:4:1: malformed metadata JSON: syntax error while parsing value - unexpected "
            "end of input; expected '[', '{', or a literal");
  EXPECT_EQ(ParseError("def @main() { 1f }\n#[metadata]\n{\"Constant\": [{\"dtype\": \"float32\", "
                       "\"shape\": [2], \"data\": \"AAAA\"}]}"),
            "in.txt:2:1: malformed metadata: Constant[0]: 'data' holds 3 bytes but float32[2] "
            "needs 8");
  EXPECT_EQ(ParseError("def @main() { 1f }\n#[metadata]\n{\"Constant\": [{\"dtype\": \"float99\", "
                       "\"shape\": [2], \"data\": \"\"}]}"),
            "in.txt:2:1: malformed metadata: Constant[0]: unknown dtype 'float99'");
  EXPECT_EQ(ParseError("def @main() { 1f }\n#[metadata]\n{\"Constant\": [{\"dtype\": \"float32\", "
                       "\"shape\": [-1], \"data\": \"\"}]}"),
            "in.txt:2:1: malformed metadata: Constant[0]: 'shape' must be an array of "
            "non-negative integers");
  EXPECT_EQ(ParseError("def @main() { 1f }\n#[metadata]\n{\"Constant\": [{\"dtype\": \"float32\", "
                       "\"shape\": [], \"data\": \"A!==\"}]}")
                .substr(0, 71),
            "in.txt:2:1: malformed metadata: Constant[0]: 'data' is not valid base64");
}

TEST(TextErrors, GarbageBytesAndDeepNesting) {
  EXPECT_EQ(ParseError(std::string("def @main() {\x01\xff}")),
            "in.txt:1:14: unexpected character '\\x01'");
  EXPECT_EQ(ParseError("\xff\xfe garbage"), "in.txt:1:1: unexpected character '\\xff'");
  EXPECT_EQ(ParseError(""), "");  // an empty text is an empty module
  EXPECT_EQ(ParseModule("").functions().size(), 0u);
  std::string deep =
      "def @main(%x) { " + std::string(5000, '(') + "%x" + std::string(5000, ')') + " }";
  EXPECT_EQ(ParseError(deep).substr(0, 45), "in.txt:1:527: nesting is deeper than 512 leve");
  std::string deep_type = "def @main(%x: " + std::string(5000, '(') + ") { %x }";
  EXPECT_NE(ParseError(deep_type).find("nesting is deeper than 512 levels"), std::string::npos);
}

// ---- Fuzzing -------------------------------------------------------------------------

std::vector<std::string> FuzzSeeds() {
  std::vector<std::string> seeds;
  seeds.push_back(R"(#[version = "0.0.5"]
#[attrs(opt_level=2)]
def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  %0 = add(%x, -0.5f);
  %1 = add(%0, %w);
  %2 = (%1, %1, 3i64, True);
  %3 = %2.0;
  %4 = fn (%p0: Tensor[(1, 8), float32], Primitive=1, Compiler="dnnl", pads=[[0, 1], [2, 3]]) -> Tensor[(1, 8), float32] {
    nn.relu(%p0)
  };
  %5 = %4(%3);
  %6 = @other(%5);
  let %y: Tensor[(1, 8), float32] = add(%6, meta[Constant][0]);
  %7 = { let %z = nn.relu(%y); %z };
  call_tir(@add_one, (%7,), Tensor[(1, 8), float32])
}
def @other(%a: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] { nn.relu(%a) }
primfn @add_one(%A: Buffer[(1, 8), float32], global_symbol="add_one") -> (%B: Buffer[(1, 8), float32]) {
  for %i: int32 in 0 +: 8 parallel {
    block "compute"(%vi: int32 in 0 +: 8 spatial = %i, %vk: int32 in 0 +: 1 reduce = 0) reads(%A[0, %vi]) writes(%B[0, 0 +: 8]) {
      init { %B[0, %vi] = 0f; }
      if (%vi < 4 && !(%vi == 2)) { %B[0, %vi] = %A[0, %vi] + exp(1f); } else { %B[0, %vi] = select(True, -inff, float32(floordiv(%vi, 2))); }
      allocate %T: Buffer[(4), int64] { %T[0] = int64(%vi) * 2i64; }
    }
  }
}
#[metadata]
{"Constant": [{"dtype": "float32", "shape": [8], "data": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}]}
)");
  return seeds;
}

TEST(TextFuzz, RandomMutationsGiveModulesOrTesseraErrors) {
  std::vector<std::string> seeds = FuzzSeeds();
  // The seed itself is valid and round-trips.
  testing::ExpectRoundTrip(ParseModule(seeds[0]));
  std::mt19937 rng(20240611);
  const std::string alphabet = "%@()[]{},;:=+-*/<>!.#\"\\ \n0123456789abcfxeiu_";
  int modules = 0, errors = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string t = seeds[iter % seeds.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !t.empty(); ++k) {
      size_t pos = rng() % t.size();
      switch (rng() % 6) {
        case 0:
          t.erase(pos, 1 + rng() % 4);
          break;
        case 1:
          t.insert(pos, 1, alphabet[rng() % alphabet.size()]);
          break;
        case 2:
          t.insert(pos, 1, static_cast<char>(rng() % 256));
          break;
        case 3: {
          size_t len = 1 + rng() % 20;
          std::string span = t.substr(pos, len);
          t.insert(rng() % t.size(), span);
          break;
        }
        case 4:
          t.resize(pos);
          break;
        default:
          t[pos] = alphabet[rng() % alphabet.size()];
      }
    }
    try {
      IRModule m = ParseModule(t, "fuzz");
      ++modules;
      // Whatever parses prints and parses back to the same text.
      std::string printed = PrintModule(m);
      EXPECT_EQ(PrintModule(ParseModule(printed)), printed) << t;
    } catch (const Error&) {
      ++errors;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "non-tessera exception " << e.what() << " for:\n" << t;
    }
    try {
      ParseExpr(t, "fuzz");
    } catch (const Error&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "non-tessera exception " << e.what() << " for:\n" << t;
    }
  }
  EXPECT_GT(errors, 1000);
  EXPECT_GT(modules, 10);
}

}  // namespace
}  // namespace tessera
