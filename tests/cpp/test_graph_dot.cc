// ModuleToDot: the dataflow picture of a module, IR in and expected DOT out.
#include <gtest/gtest.h>

#include "tessera/ir/graph_dot.h"
#include "tessera/ir/parser.h"
#include "test_util.h"

namespace tessera {
namespace {

TEST(GraphDot, FusedKernelsAndPartitionsAreColouredClusters) {
  IRModule mod = ParseModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = fn (%p: Tensor[(2, 3), float32], Primitive=1) { nn.relu(add(%p, %p)) };
  %1 = %0(%x);
  @lib_0(%1, meta[Constant][0])
}
def @lib_0(%a: Tensor[(2, 3), float32], %b: Tensor[(2, 3), float32], Primitive=1, Compiler="dnnl", global_symbol="lib_0") {
  %2 = fn (%c: Tensor[(2, 3), float32], %d: Tensor[(2, 3), float32], Composite="dnnl.add") { add(%c, %d) };
  %2(%a, %b)
}
#[metadata]
{"Constant": [{"dtype": "float32", "shape": [2, 3], "data": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]}
)");
  EXPECT_EQ(ModuleToDot(mod), R"(digraph module {
  rankdir=TB;
  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize=10];
  n0 [label="x: Tensor[(2, 3), float32]", shape=ellipse];
  subgraph cluster_0 {
    label="native: fused"; style=rounded; color="#555555";
    n1 [label="add", fillcolor="#80b1d3"];
    n2 [label="nn.relu", fillcolor="#80b1d3"];
  }
  subgraph cluster_1 {
    label="dnnl @lib_0"; style=rounded; color="#555555";
    subgraph cluster_2 {
      label="dnnl.add"; style=rounded; color="#555555";
      n3 [label="add", fillcolor="#fdb462"];
    }
  }
  n4 [label="@main result", shape=ellipse];
  n0 -> n1;
  n0 -> n1;
  n1 -> n2;
  n2 -> n3;
  n3 -> n4;
}
)");
}

TEST(GraphDot, CallTirIsOneNodeNamedAfterItsPrimFunc) {
  IRModule mod = ParseModule(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  call_tir(@k, (%x,), Tensor[(4), float32])
}
primfn @k(%p0: Buffer[(4), float32]) -> (%o: Buffer[(4), float32]) {
  for %i: int32 in 0 +: 4 serial {
    %o[%i] = %p0[%i];
  }
}
)");
  std::string dot = ModuleToDot(mod);
  EXPECT_NE(dot.find("[label=\"call_tir @k\"]"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("cluster"), std::string::npos) << dot;  // PrimFuncs are not drawn
}

}  // namespace
}  // namespace tessera
