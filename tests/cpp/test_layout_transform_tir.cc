// The PrimFunc layout primitives TransformLayout and TransformBlockLayout: IR in, expected
// IR out, the same numbers on transformed inputs (TIR interpreter), padding, and errors.
#include <gtest/gtest.h>

#include <random>

#include "test_util.h"
#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/layout/transform_block_layout.h"
#include "tessera/layout/transform_layout.h"

namespace tessera {
namespace {

using layout::IndexMap;
using layout::TransformBlockLayout;
using layout::TransformLayout;

tir::PrimFunc ParsePrimFunc(const std::string& text) {
  return tir::PrimFunc(static_cast<const tir::PrimFuncNode*>(ParseModule(text).Lookup("f").get()));
}

std::string Print(const tir::PrimFunc& f) {
  return PrintModule(IRModule().WithFunction("f", f));
}

void ExpectPrimFunc(const tir::PrimFunc& got, const std::string& want) {
  IRModule a = IRModule().WithFunction("f", got);
  IRModule b = ParseModule(want);
  EXPECT_TRUE(StructuralEqual(a, b)) << "got:\n" << Print(got) << "\nwant:\n" << want;
}

NDArray Random(const std::vector<int64_t>& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  NDArray a = NDArray::Empty(shape, DType::kFloat32);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.SetFloat(i, dist(rng));
  return a;
}

/// Runs `f` on `inputs` and returns its outputs, each starting at `fill`.
std::vector<NDArray> RunF(const tir::PrimFunc& f, const std::vector<NDArray>& inputs,
                         double fill = 0.0) {
  std::vector<NDArray> buffers = inputs, outs;
  for (size_t i = inputs.size(); i < f->params.size(); ++i) {
    NDArray o = NDArray::Empty(f->params[i]->shape, f->params[i]->dtype);
    for (int64_t k = 0; k < o.NumElements(); ++k) o.SetFloat(k, fill);
    buffers.push_back(o);
    outs.push_back(o);
  }
  RunPrimFunc(f, buffers);
  return outs;
}

void ExpectSame(const NDArray& want, const NDArray& got, double tol = 1e-5) {
  ASSERT_EQ(want.shape(), got.shape());
  for (int64_t i = 0; i < want.NumElements(); ++i)
    ASSERT_NEAR(want.GetFloat(i), got.GetFloat(i), tol) << "element " << i;
}

// The seed's reduction: B[n, c, w] = sum over h of A[n, c, h, w].
const char* kSumOverH = R"(
primfn @f(%A: Buffer[(2, 8, 3, 5), float32]) -> (%B: Buffer[(2, 8, 5), float32]) {
  for %n: int32 in 0 +: 2 {
    for %c: int32 in 0 +: 8 {
      for %h: int32 in 0 +: 3 {
        for %w: int32 in 0 +: 5 {
          block "sum"(%vn: int32 in 0 +: 2 spatial = %n, %vc: int32 in 0 +: 8 spatial = %c, %vh: int32 in 0 +: 3 reduce = %h, %vw: int32 in 0 +: 5 spatial = %w) reads(%A[%vn, %vc, %vh, %vw]) writes(%B[%vn, %vc, %vw]) {
            init {
              %B[%vn, %vc, %vw] = 0f;
            }
            %B[%vn, %vc, %vw] = %B[%vn, %vc, %vw] + %A[%vn, %vc, %vh, %vw];
          }
        }
      }
    }
  }
}
)";

TEST(TransformLayout, ReductionReadsTheNHWCBufferAndIteratesInItsOrder) {
  tir::PrimFunc f = ParsePrimFunc(kSumOverH);
  IndexMap nhwc = IndexMap::FromLayouts("NCHW", "NHWC");
  tir::PrimFunc g = TransformLayout(f, "A", nhwc);
  ExpectPrimFunc(g, R"(
primfn @f(%A: Buffer[(2, 3, 5, 8), float32]) -> (%B: Buffer[(2, 8, 5), float32]) {
  for %n: int32 in 0 +: 2 {
    for %c: int32 in 0 +: 8 {
      for %h: int32 in 0 +: 3 {
        for %w: int32 in 0 +: 5 {
          block "sum"(%vn: int32 in 0 +: 2 spatial = %n, %vc: int32 in 0 +: 8 spatial = %c, %vh: int32 in 0 +: 3 reduce = %h, %vw: int32 in 0 +: 5 spatial = %w) reads(%A[%vn, %vh, %vw, %vc]) writes(%B[%vn, %vc, %vw]) {
            init {
              %B[%vn, %vc, %vw] = 0f;
            }
            %B[%vn, %vc, %vw] = %B[%vn, %vc, %vw] + %A[%vn, %vh, %vw, %vc];
          }
        }
      }
    }
  }
})");
  // The block now walks (n, h, w, c): innermost along the NHWC buffer's contiguous axis.
  tir::PrimFunc h = TransformBlockLayout(g, "sum", IndexMap::Parse("lambda n, c, h, w: (n, h, w, c)"));
  ExpectPrimFunc(h, R"(
primfn @f(%A: Buffer[(2, 3, 5, 8), float32]) -> (%B: Buffer[(2, 8, 5), float32]) {
  for %n: int32 in 0 +: 2 {
    for %h: int32 in 0 +: 3 {
      for %w: int32 in 0 +: 5 {
        for %c: int32 in 0 +: 8 {
          block "sum"(%vn: int32 in 0 +: 2 spatial = %n, %vh: int32 in 0 +: 3 reduce = %h, %vw: int32 in 0 +: 5 spatial = %w, %vc: int32 in 0 +: 8 spatial = %c) reads(%A[%vn, %vh, %vw, %vc]) writes(%B[%vn, %vc, %vw]) {
            init {
              %B[%vn, %vc, %vw] = 0f;
            }
            %B[%vn, %vc, %vw] = %B[%vn, %vc, %vw] + %A[%vn, %vh, %vw, %vc];
          }
        }
      }
    }
  }
})");
  NDArray a = Random({2, 8, 3, 5}, 1);
  NDArray want = RunF(f, {a})[0];
  ExpectSame(want, RunF(g, {nhwc.Apply(a)})[0]);
  ExpectSame(want, RunF(h, {nhwc.Apply(a)})[0]);
  // By parameter index, the same function.
  EXPECT_TRUE(StructuralEqual(IRModule().WithFunction("f", TransformLayout(f, 0, nhwc)),
                              IRModule().WithFunction("f", g)));
}

const char* kRelu = R"(
primfn @f(%X: Buffer[(1, 8, 2, 3), float32]) -> (%Y: Buffer[(1, 8, 2, 3), float32]) {
  for %n: int32 in 0 +: 1 {
    for %c: int32 in 0 +: 8 {
      for %h: int32 in 0 +: 2 {
        for %w: int32 in 0 +: 3 {
          block "relu"(%vn: int32 in 0 +: 1 spatial = %n, %vc: int32 in 0 +: 8 spatial = %c, %vh: int32 in 0 +: 2 spatial = %h, %vw: int32 in 0 +: 3 spatial = %w) reads(%X[%vn, %vc, %vh, %vw]) writes(%Y[%vn, %vc, %vh, %vw]) {
            %Y[%vn, %vc, %vh, %vw] = max(%X[%vn, %vc, %vh, %vw], 0f);
          }
        }
      }
    }
  }
}
)";

TEST(TransformLayout, ElementwiseToNCHW4c) {
  tir::PrimFunc f = ParsePrimFunc(kRelu);
  IndexMap blocked = IndexMap::FromLayouts("NCHW", "NCHW4c");
  tir::PrimFunc g = TransformLayout(TransformLayout(f, "X", blocked), "Y", blocked);
  // Indices are simplified on the new domain: c = 4 * c_o + c_i reads [c_o, c_i], and the
  // batch index of extent 1 is 0.
  tir::PrimFunc h = TransformBlockLayout(g, "relu", blocked);
  ExpectPrimFunc(h, R"(
primfn @f(%X: Buffer[(1, 2, 2, 3, 4), float32]) -> (%Y: Buffer[(1, 2, 2, 3, 4), float32]) {
  for %n: int32 in 0 +: 1 {
    for %ax1: int32 in 0 +: 2 {
      for %h: int32 in 0 +: 2 {
        for %w: int32 in 0 +: 3 {
          for %ax4: int32 in 0 +: 4 {
            block "relu"(%vn: int32 in 0 +: 1 spatial = %n, %v_ax1: int32 in 0 +: 2 spatial = %ax1, %vh: int32 in 0 +: 2 spatial = %h, %vw: int32 in 0 +: 3 spatial = %w, %v_ax4: int32 in 0 +: 4 spatial = %ax4) reads(%X[0, %v_ax1, %vh, %vw, %v_ax4]) writes(%Y[0, %v_ax1, %vh, %vw, %v_ax4]) {
              %Y[0, %v_ax1, %vh, %vw, %v_ax4] = max(%X[0, %v_ax1, %vh, %vw, %v_ax4], 0f);
            }
          }
        }
      }
    }
  }
})");
  NDArray x = Random({1, 8, 2, 3}, 2);
  NDArray want = blocked.Apply(RunF(f, {x})[0]);
  ExpectSame(want, RunF(g, {blocked.Apply(x)})[0]);
  ExpectSame(want, RunF(h, {blocked.Apply(x)})[0]);
  // A promise about the old buffers (the kernel only concatenates) does not survive.
  tir::PrimFunc promised = tir::MakePrimFunc(f->params, f->num_outputs, f->body,
                                             f->attrs.With(attr::kConcatAxis, AttrValue(int64_t{1})));
  EXPECT_FALSE(TransformLayout(promised, "X", blocked)->attrs.Has(attr::kConcatAxis));
}

const char* kScale6 = R"(
primfn @f(%X: Buffer[(1, 6, 2, 2), float32]) -> (%Y: Buffer[(1, 6, 2, 2), float32]) {
  for %n: int32 in 0 +: 1 {
    for %c: int32 in 0 +: 6 {
      for %h: int32 in 0 +: 2 {
        for %w: int32 in 0 +: 2 {
          block "scale"(%vn: int32 in 0 +: 1 spatial = %n, %vc: int32 in 0 +: 6 spatial = %c, %vh: int32 in 0 +: 2 spatial = %h, %vw: int32 in 0 +: 2 spatial = %w) reads(%X[%vn, %vc, %vh, %vw]) writes(%Y[%vn, %vc, %vh, %vw]) {
            %Y[%vn, %vc, %vh, %vw] = %X[%vn, %vc, %vh, %vw] * 2f;
          }
        }
      }
    }
  }
}
)";

TEST(TransformLayout, PaddingPositionsGetThePadValueOnlyWhenWritten) {
  tir::PrimFunc f = ParsePrimFunc(kScale6);
  IndexMap blocked = IndexMap::FromLayouts("NCHW", "NCHW4c");  // C = 6 pads to 8
  // The input is only read: no fill; the output is written: its padding holds -1.
  tir::PrimFunc g = TransformLayout(TransformLayout(f, "X", blocked, 0.0), "Y", blocked, -1.0);
  ExpectPrimFunc(g, R"(
primfn @f(%X: Buffer[(1, 2, 2, 2, 4), float32]) -> (%Y: Buffer[(1, 2, 2, 2, 4), float32]) {
  for %ax0: int32 in 0 +: 1 {
    for %ax1: int32 in 0 +: 2 {
      for %ax2: int32 in 0 +: 2 {
        for %ax3: int32 in 0 +: 2 {
          for %ax4: int32 in 0 +: 4 {
            block "Y_pad"(%v_ax0: int32 in 0 +: 1 spatial = %ax0, %v_ax1: int32 in 0 +: 2 spatial = %ax1, %v_ax2: int32 in 0 +: 2 spatial = %ax2, %v_ax3: int32 in 0 +: 2 spatial = %ax3, %v_ax4: int32 in 0 +: 4 spatial = %ax4) reads() writes(%Y[%v_ax0, %v_ax1, %v_ax2, %v_ax3, %v_ax4]) {
              if (%v_ax1 * 4 + %v_ax4 >= 6) {
                %Y[%v_ax0, %v_ax1, %v_ax2, %v_ax3, %v_ax4] = -1f;
              }
            }
          }
        }
      }
    }
  }
  for %n: int32 in 0 +: 1 {
    for %c: int32 in 0 +: 6 {
      for %h: int32 in 0 +: 2 {
        for %w: int32 in 0 +: 2 {
          block "scale"(%vn: int32 in 0 +: 1 spatial = %n, %vc: int32 in 0 +: 6 spatial = %c, %vh: int32 in 0 +: 2 spatial = %h, %vw: int32 in 0 +: 2 spatial = %w) reads(%X[%vn, floordiv(%vc, 4), %vh, %vw, floormod(%vc, 4)]) writes(%Y[%vn, floordiv(%vc, 4), %vh, %vw, floormod(%vc, 4)]) {
            %Y[%vn, floordiv(%vc, 4), %vh, %vw, floormod(%vc, 4)] = %X[%vn, floordiv(%vc, 4), %vh, %vw, floormod(%vc, 4)] * 2f;
          }
        }
      }
    }
  }
})");
  NDArray x = Random({1, 6, 2, 2}, 3);
  // The padded input holds junk in its padding lanes: reads never touch them.
  NDArray want = blocked.Apply(RunF(f, {x})[0], -1.0);
  ExpectSame(want, RunF(g, {blocked.Apply(x, 123.0)}, 7.0)[0]);
  // Without a pad value the padding lanes keep what the caller put there.
  tir::PrimFunc plain = TransformLayout(TransformLayout(f, "X", blocked), "Y", blocked);
  ExpectSame(blocked.Apply(RunF(f, {x})[0], 7.0), RunF(plain, {blocked.Apply(x, 123.0)}, 7.0)[0]);
  // A padding map cannot remap a block: it is not a bijection of the iteration space.
  testing::ExpectError([&] { TransformBlockLayout(plain, "scale", blocked); }, ErrorKind::kValue,
                       {"is not a bijection of block 'scale'", "(1, 6, 2, 2)"});
}

TEST(TransformLayout, AllocatedBuffersAndRangeRegions) {
  // A scratch buffer read over a whole axis: the region maps to the range its image spans.
  tir::PrimFunc f = ParsePrimFunc(R"(
primfn @f(%X: Buffer[(8), float32]) -> (%Y: Buffer[(1), float32]) {
  allocate %T: Buffer[(8), float32] {
    for %i: int32 in 0 +: 8 {
      block "copy"(%vi: int32 in 0 +: 8 spatial = %i) reads(%X[%vi]) writes(%T[%vi]) {
        %T[%vi] = %X[%vi] + 1f;
      }
    }
    for %k: int32 in 0 +: 8 {
      block "total"(%vk: int32 in 0 +: 8 reduce = %k) reads(%T[0 +: 8]) writes(%Y[0]) {
        init {
          %Y[0] = 0f;
        }
        %Y[0] = %Y[0] + %T[%vk];
      }
    }
  }
})");
  tir::PrimFunc g = TransformLayout(f, "T", IndexMap::Parse("lambda i: (i % 4, i // 4)"));
  ExpectPrimFunc(g, R"(
primfn @f(%X: Buffer[(8), float32]) -> (%Y: Buffer[(1), float32]) {
  allocate %T: Buffer[(4, 2), float32] {
    for %i: int32 in 0 +: 8 {
      block "copy"(%vi: int32 in 0 +: 8 spatial = %i) reads(%X[%vi]) writes(%T[floormod(%vi, 4), floordiv(%vi, 4)]) {
        %T[floormod(%vi, 4), floordiv(%vi, 4)] = %X[%vi] + 1f;
      }
    }
    for %k: int32 in 0 +: 8 {
      block "total"(%vk: int32 in 0 +: 8 reduce = %k) reads(%T[0 +: 4, 0 +: 2]) writes(%Y[0]) {
        init {
          %Y[0] = 0f;
        }
        %Y[0] = %Y[0] + %T[floormod(%vk, 4), floordiv(%vk, 4)];
      }
    }
  }
})");
  NDArray x = Random({8}, 4);
  ExpectSame(RunF(f, {x})[0], RunF(g, {x})[0]);
}

TEST(TransformLayout, BadInputIsAClearError) {
  tir::PrimFunc f = ParsePrimFunc(kRelu);
  testing::ExpectError([&] { TransformLayout(f, "X", IndexMap::Parse("lambda a, b, c: (c, b, a)")); },
                       ErrorKind::kType,
                       {"TransformLayout: index map `lambda a, b, c: (c, b, a)` takes 3 indices",
                        "buffer 'X' has rank 4"});
  testing::ExpectError([&] { TransformLayout(f, "Z", IndexMap::Identity(4)); },
                       ErrorKind::kNotFound, {"no buffer named 'Z'", "buffers: X, Y"});
  testing::ExpectError([&] { TransformLayout(f, 2, IndexMap::Identity(4)); }, ErrorKind::kValue,
                       "parameter index 2 is out of range (the PrimFunc has 2 parameters)");
  testing::ExpectError(
      [&] { TransformLayout(f, "X", IndexMap::Parse("lambda n, c, h, w: (n, c % 4, h, w)")); },
      ErrorKind::kValue, {"is not injective on buffer 'X' of shape (1, 8, 2, 3)"});
  testing::ExpectError(
      [&] { TransformLayout(f, "X", IndexMap::Parse("lambda n, c, h, w: (n, c - 9, h, w)")); },
      ErrorKind::kValue, {"TransformLayout: buffer 'X': ", "lambda n, c, h, w: (n, c - 9, h, w)"});
}

TEST(TransformBlockLayout, BadInputIsAClearError) {
  tir::PrimFunc f = ParsePrimFunc(kSumOverH);
  testing::ExpectError([&] { TransformBlockLayout(f, "nope", IndexMap::Identity(4)); },
                       ErrorKind::kNotFound, {"no block named 'nope'", "blocks: 'sum'"});
  testing::ExpectError(
      [&] { TransformBlockLayout(f, "sum", IndexMap::Parse("lambda a, b: (b, a)")); },
      ErrorKind::kType,
      {"index map `lambda a, b: (b, a)` takes 2 indices but block 'sum' has 4 iteration"});
  testing::ExpectError(
      [&] {
        TransformBlockLayout(f, "sum", IndexMap::Parse("lambda n, c, h, w: (n, c * 3 + h, w)"));
      },
      ErrorKind::kValue, "mixes spatial and reduce variables of block 'sum'");
  // A block sharing its loops with another statement is not a nest of its own.
  tir::PrimFunc shared = ParsePrimFunc(R"(
primfn @f(%X: Buffer[(4), float32]) -> (%Y: Buffer[(4), float32], %Z: Buffer[(4), float32]) {
  for %i: int32 in 0 +: 4 {
    block "a"(%vi: int32 in 0 +: 4 spatial = %i) reads(%X[%vi]) writes(%Y[%vi]) {
      %Y[%vi] = %X[%vi];
    }
    block "b"(%vi: int32 in 0 +: 4 spatial = %i) reads(%X[%vi]) writes(%Z[%vi]) {
      %Z[%vi] = %X[%vi];
    }
  }
})");
  testing::ExpectError([&] { TransformBlockLayout(shared, "a", IndexMap::Identity(1)); },
                       ErrorKind::kValue,
                       {"block 'a' is not the only statement of a perfect nest of its own loops"});
}

}  // namespace
}  // namespace tessera
