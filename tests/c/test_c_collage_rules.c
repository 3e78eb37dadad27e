/* Collage's candidate search from C: a dataflow graph of @main, partition and combiner
 * rules built from the primitives, candidates with their sub-graphs and functions, the
 * specs targets give, rewriting and the PartitionForTesting pass; bad input. */
#include "c_test_util.h"
#include "tessera/c_api.h"

static const char* kModel =
    "def @main(%x: Tensor[(4, 16), float32], %w: Tensor[(8, 16), float32], %b: Tensor[(8), "
    "float32]) {\n"
    "  %0 = nn.dense(%x, %w);\n"
    "  %1 = add(%0, %b);\n"
    "  %2 = nn.relu(%1);\n"
    "  nn.softmax(%2)\n"
    "}\n";

/* The graph index of the node labelled `label` (the first), or -1. */
static long find_label(TsDataflowGraph graph, const char* label) {
  for (size_t i = 0; i < TsDataflowGraphGetNumNodes(graph); ++i) {
    TsStringRef ref = {NULL, 0};
    if (TsDataflowGraphGetNodeLabel(graph, i, &ref) == TS_OK && ref_is(ref, label)) return (long)i;
  }
  return -1;
}

/* A predicate accepting `add` calls and counting what it saw; fails when asked to. */
typedef struct {
  int calls, fail, destroyed;
} PredicateState;

static TsStatus accept_add(TsExpr call, int* result, void* user) {
  PredicateState* s = (PredicateState*)user;
  ++s->calls;
  if (s->fail) return fail_with(TS_ERROR_VALUE, "the predicate refuses");
  (void)call;
  *result = (s->calls == 2); /* post-DFS order: dense, add, relu, softmax */
  return TS_OK;
}

static void destroy_state(void* user) {
  ((PredicateState*)user)->destroyed++;
}

/* The printed text of a rule (NUL-terminated, to free). */
static char* rule_text(TsPartitionRule rule) {
  GrowingBuffer b = {NULL, 0};
  CHECK(TsPartitionRulePrint(rule, append_growing, &b) == TS_OK);
  return b.text;
}

/* Index set `kind` of `sub` as a bit mask (graphs here are small). */
static unsigned long mask_of(TsSubGraph sub, TsSubGraphIndexKind kind) {
  size_t n = 0, index = 0;
  unsigned long mask = 0;
  if (TsSubGraphGetNumIndexes(sub, kind, &n) != TS_OK) return ~0UL;
  for (size_t i = 0; i < n; ++i)
    if (TsSubGraphGetIndex(sub, kind, i, &index) == TS_OK) mask |= 1UL << index;
  return mask;
}

int main(void) {
  TsModule mod = NULL;
  CHECK(TsModuleParse(kModel, (size_t)-1, &mod) == TS_OK);
  TsDataflowGraph graph = NULL;
  CHECK(TsDataflowGraphCreate(mod, &graph) == TS_OK);
  size_t num_nodes = TsDataflowGraphGetNumNodes(graph);
  long dense = find_label(graph, "nn.dense"), add = find_label(graph, "add");
  long relu = find_label(graph, "nn.relu"), softmax = find_label(graph, "nn.softmax");
  CHECK(dense >= 0 && add > dense && relu > add && softmax > relu);
  TsStringRef label = {NULL, 0};
  CHECK(TsDataflowGraphGetNodeLabel(graph, 0, &label) == TS_OK && ref_is(label, "var"));
  CHECK(TsDataflowGraphGetNodeLabel(graph, num_nodes - 1, &label) == TS_OK && ref_is(label, "fn"));
  CHECK(TsDataflowGraphGetNodeLabel(graph, num_nodes, &label) == TS_ERROR_VALUE);
  TsExpr node = NULL;
  CHECK(TsDataflowGraphGetNode(graph, (size_t)relu, &node) == TS_OK && node != NULL);
  CHECK(TsDataflowGraphGetNode(graph, num_nodes + 3, &node) == TS_ERROR_VALUE);

  /* op_call_by_kind: a singleton per call of kind <= out_elemwise_fusable. */
  TsPartitionRule by_kind = NULL;
  CHECK(TsPartitionRuleOpCallByKindCreate("op_call_by_kind", &by_kind) == TS_OK);
  CHECK(ref_is(TsPartitionRuleGetName(by_kind), "op_call_by_kind"));
  TsCandidateList list = NULL;
  CHECK(TsPartitionRuleGetCandidates(by_kind, graph, NULL, NULL, NULL, &list) == TS_OK);
  size_t n = TsCandidateListGetNumCandidates(list);
  CHECK(n == 3); /* dense, add, relu: softmax is opaque */
  CHECK(TsCandidateListGetNumSpecs(list) == 1);
  size_t first = 9, count = 9;
  TsStringRef spec = {NULL, 0};
  CHECK(TsCandidateListGetSpec(list, 0, &spec, &first, &count) == TS_OK && ref_is(spec, "spec") &&
        first == 0 && count == 3);
  CHECK(TsCandidateListGetSpec(list, 1, &spec, NULL, NULL) == TS_ERROR_VALUE);
  TsCandidateListDestroy(list);

  /* The FuseOps-like tree: OnlyValid(Combine(OpCallByKind, [AllSimple, TupleArg, TupleProj])). */
  const char* up[3] = {"A", "B", "injective"};
  const char* down[3] = {"B", "R", "I"};
  TsCombinerRule combiners[3] = {NULL, NULL, NULL};
  CHECK(TsCombinerRuleAllSimpleCreate("all_simple", up, down, 3, &combiners[0]) == TS_OK);
  CHECK(TsCombinerRuleTupleArgCreate("tuple_arg", &combiners[1]) == TS_OK);
  CHECK(TsCombinerRuleTupleProjCreate("tuple_proj", &combiners[2]) == TS_OK);
  GrowingBuffer ctext = {NULL, 0};
  CHECK(TsCombinerRulePrint(combiners[0], append_growing, &ctext) == TS_OK);
  CHECK(ctext.text && strcmp(ctext.text, "AllSimple(A->B, B->R, I->I)") == 0);
  free(ctext.text);
  TsPartitionRule combine = NULL, valid = NULL;
  CHECK(TsPartitionRuleCombineCreate("combine", by_kind, combiners, 3, 4, &combine) == TS_OK);
  CHECK(TsPartitionRuleOnlyValidCreate("valid", combine, 1, 0, 4, &valid) == TS_OK);
  char* tree = rule_text(valid);
  CHECK(tree && strstr(tree, "OnlyValid(valid") == tree && strstr(tree, "\n  Combine(combine") &&
        strstr(tree, "\n    OpCallByKind(op_call_by_kind)") && tree[strlen(tree) - 1] != '\n');
  free(tree);
  TsTarget native = NULL;
  CHECK(TsTargetParse("native", &native) == TS_OK);
  CHECK(TsPartitionRuleGetCandidates(valid, graph, "native", native, "", &list) == TS_OK);
  n = TsCandidateListGetNumCandidates(list);
  /* dense, add, relu, dense+add, add+relu, dense+add+relu */
  CHECK(n == 6);
  int found_fused = 0;
  unsigned long fused = (1UL << dense) | (1UL << add) | (1UL << relu);
  for (size_t i = 0; i < n; ++i) {
    TsCandidate c = NULL;
    TsSubGraph sub = NULL;
    CHECK(TsCandidateListGetCandidate(list, i, &c) == TS_OK);
    CHECK(TsCandidateGetSubGraph(c, &sub) == TS_OK);
    CHECK(ref_is(TsCandidateGetSpecName(c), "native"));
    if (mask_of(sub, TS_SUB_GRAPH_INSIDE) == fused) {
      found_fused = 1;
      CHECK(ref_is(TsSubGraphGetLabel(sub), "nn.dense+add+nn.relu"));
      CHECK(ref_is(TsSubGraphGetKind(sub), "out_elemwise_fusable"));
      CHECK(ref_is(TsCandidateGetRuleName(c), "native.valid.combine.op_call_by_kind"));
      CHECK(TsSubGraphGetDepth(sub) == 3);
      CHECK(mask_of(sub, TS_SUB_GRAPH_EXITS) == 1UL << relu);
      CHECK(mask_of(sub, TS_SUB_GRAPH_ENTRIES) == ((1UL << dense) | (1UL << add)));
      CHECK(mask_of(sub, TS_SUB_GRAPH_OUTPUTS) == 1UL << softmax);
      CHECK(mask_of(sub, TS_SUB_GRAPH_INPUTS) == 7UL); /* the three parameters */
      CHECK(TsSubGraphGetNumNested(sub) == 0 && TsSubGraphGetNumAttributes(sub) == 0);
      TsExpr fn = NULL;
      CHECK(TsCandidateGetFunction(c, &fn) == TS_OK && fn != NULL);
      TsExprDestroy(fn);
      size_t bad = 0;
      CHECK(TsSubGraphGetIndex(sub, TS_SUB_GRAPH_INSIDE, 3, &bad) == TS_ERROR_VALUE);
      CHECK(TsSubGraphGetNumIndexes(sub, (TsSubGraphIndexKind)9, &bad) == TS_ERROR_VALUE);
      TsNamedAttribute attr;
      CHECK(TsSubGraphGetAttribute(sub, 0, &attr) == TS_ERROR_VALUE);
      TsSubGraph nested = NULL;
      CHECK(TsSubGraphGetNested(sub, 0, &nested) == TS_ERROR_VALUE);
    }
    TsSubGraphDestroy(sub);
    TsCandidateDestroy(c);
  }
  CHECK(found_fused);
  TsCandidate none = NULL;
  CHECK(TsCandidateListGetCandidate(list, n, &none) == TS_ERROR_VALUE);
  TsCandidateListDestroy(list);

  /* Op predicates by name and by C callback; a composite inside a primitive nests. */
  const char* relu_ops[1] = {"nn.relu"};
  TsPartitionRule by_name = NULL, by_fn = NULL, composite = NULL, primitive = NULL;
  CHECK(TsPartitionRuleOpPredicateCreate("relus", relu_ops, 1, NULL, &by_name) == TS_OK);
  tree = rule_text(by_name);
  CHECK(tree && strstr(tree, "op in nn.relu") != NULL);
  free(tree);
  PredicateState state = {0, 0, 0};
  CHECK(TsPartitionRuleOpPredicateCallbackCreate("adds", accept_add, &state, destroy_state,
                                                 "adds only", &by_fn) == TS_OK);
  CHECK(TsPartitionRuleGetCandidates(by_fn, graph, NULL, NULL, NULL, &list) == TS_OK);
  CHECK(state.calls == 4 && TsCandidateListGetNumCandidates(list) == 1);
  TsCandidate c = NULL;
  TsSubGraph sub = NULL;
  CHECK(TsCandidateListGetCandidate(list, 0, &c) == TS_OK &&
        TsCandidateGetSubGraph(c, &sub) == TS_OK);
  CHECK(mask_of(sub, TS_SUB_GRAPH_INSIDE) == 1UL << add);
  TsSubGraphDestroy(sub);
  TsCandidateDestroy(c);
  TsCandidateListDestroy(list);
  state.fail = 1;
  CHECK(TsPartitionRuleGetCandidates(by_fn, graph, NULL, NULL, NULL, &list) == TS_ERROR_VALUE);
  CHECK(error_has("the predicate refuses"));
  CHECK(TsPartitionRuleCompositeCreate("ext.relu", by_name, &composite) == TS_OK);
  CHECK(TsPartitionRulePrimitiveCreate("prim", composite, &primitive) == TS_OK);
  TsPartitionRuleDestroy(composite); /* the tree keeps its sub-rules */
  CHECK(TsPartitionRuleGetCandidates(primitive, graph, "ext", NULL, "ext", &list) == TS_OK);
  CHECK(TsCandidateListGetNumCandidates(list) == 1);
  CHECK(TsCandidateListGetCandidate(list, 0, &c) == TS_OK &&
        TsCandidateGetSubGraph(c, &sub) == TS_OK);
  /* The kernel function {Primitive, Compiler}, with the {Composite} function inside. */
  CHECK(TsSubGraphGetNumNested(sub) == 1);
  TsSubGraph nested = NULL, inner = NULL;
  CHECK(TsSubGraphGetNested(sub, 0, &nested) == TS_OK);
  CHECK(TsSubGraphGetNumAttributes(nested) == 2 && TsSubGraphGetNumNested(nested) == 1);
  CHECK(mask_of(nested, TS_SUB_GRAPH_INSIDE) == 1UL << relu);
  CHECK(TsSubGraphGetNested(nested, 0, &inner) == TS_OK);
  CHECK(TsSubGraphGetNumAttributes(inner) == 1 && TsSubGraphGetNumNested(inner) == 0);
  TsSubGraphDestroy(inner);
  TsSubGraphDestroy(nested);
  TsSubGraphDestroy(sub);
  TsCandidateDestroy(c);
  TsCandidateListDestroy(list);

  /* Union, host, max_coalesce and the FuseOps-like rule; the specs of a target list. */
  TsPartitionRule parts[2] = {by_name, by_kind}, uni = NULL, host = NULL, coalesce = NULL,
                  fuse = NULL;
  CHECK(TsPartitionRuleUnionCreate("union", parts, 2, &uni) == TS_OK);
  CHECK(TsPartitionRuleGetCandidates(uni, graph, NULL, NULL, NULL, &list) == TS_OK);
  CHECK(TsCandidateListGetNumCandidates(list) == 4); /* relu twice: by name and by kind */
  TsCandidateListDestroy(list);
  CHECK(TsPartitionRuleMaxCoalesceCreate("coalesce", by_kind, &coalesce) == TS_OK);
  CHECK(TsPartitionRuleGetCandidates(coalesce, graph, NULL, NULL, NULL, &list) == TS_OK);
  CHECK(TsCandidateListGetNumCandidates(list) == 1); /* dense+add+relu touch */
  TsCandidateListDestroy(list);
  CHECK(TsPartitionRuleHostCreate("host", &host) == TS_OK);
  CHECK(TsPartitionRuleGetCandidates(host, graph, NULL, NULL, NULL, &list) == TS_OK);
  size_t host_count = TsCandidateListGetNumCandidates(list);
  CHECK(host_count >= 4); /* the parameters and the function at least */
  int function_less = 0;
  for (size_t i = 0; i < host_count; ++i) {
    TsExpr fn = NULL;
    CHECK(TsCandidateListGetCandidate(list, i, &c) == TS_OK &&
          TsCandidateGetFunction(c, &fn) == TS_OK);
    function_less += fn == NULL; /* the function node itself */
    TsExprDestroy(fn);
    TsCandidateDestroy(c);
  }
  CHECK(function_less == 1);
  TsCandidateListDestroy(list);
  CHECK(TsPartitionRuleFuseOpsLikeCreate(4, &fuse) == TS_OK);
  CHECK(TsPartitionRuleGetCandidates(fuse, graph, NULL, NULL, NULL, &list) == TS_OK);
  CHECK(TsCandidateListGetNumCandidates(list) == 6);
  TsCandidateListDestroy(list);
  CHECK(TsCollageTargetCandidates(graph, &native, 1, 4, 1, &list) == TS_OK);
  CHECK(TsCandidateListGetNumSpecs(list) == 2);
  CHECK(TsCandidateListGetSpec(list, 0, &spec, &first, &count) == TS_OK && ref_is(spec, "native") &&
        first == 0 && count == 6);
  CHECK(TsCandidateListGetSpec(list, 1, &spec, &first, &count) == TS_OK && ref_is(spec, "host") &&
        first == 6 && count == host_count);
  TsCandidateListDestroy(list);

  /* Rewriting @main: dense+add into one function. */
  size_t idx[2] = {(size_t)dense, (size_t)add};
  TsCollagePart part = {idx, 2, NULL, 0};
  TsModule rewritten = NULL;
  CHECK(TsDataflowGraphRewrite(graph, &part, 1, &rewritten) == TS_OK);
  GrowingBuffer text = {NULL, 0};
  CHECK(TsModulePrint(rewritten, append_growing, &text) == TS_OK);
  CHECK(text.text && strstr(text.text, "fn (") != NULL);
  free(text.text);
  TsModuleDestroy(rewritten);
  TsCollagePart overlap[2] = {{idx, 2, NULL, 0}, {idx + 1, 1, NULL, 0}};
  CHECK(TsDataflowGraphRewrite(graph, overlap, 2, &rewritten) == TS_ERROR_VALUE);
  size_t fn_index = num_nodes - 1;
  TsCollagePart whole = {&fn_index, 1, NULL, 0};
  CHECK(TsDataflowGraphRewrite(graph, &whole, 1, &rewritten) == TS_ERROR_VALUE);

  /* PartitionForTesting: the same nodes as a Compiler function. */
  TsPass pass = NULL;
  const char* labels[2] = {"ext.dense_add", "ext.dense_add"};
  CHECK(TsCollagePartitionForTestingPassCreate(1, 0, "ext", idx, 2, labels, 2, &pass) == TS_OK);
  TsModule partitioned = NULL;
  CHECK(TsPassRun(pass, mod, NULL, &partitioned) == TS_OK);
  text.text = NULL;
  text.length = 0;
  CHECK(TsModulePrint(partitioned, append_growing, &text) == TS_OK);
  CHECK(text.text && strstr(text.text, "Compiler") && strstr(text.text, "Composite"));
  free(text.text);
  TsModuleDestroy(partitioned);
  TsPassDestroy(pass);
  CHECK(TsCollagePartitionForTestingPassCreate(-1, 0, "ext", idx, 2, NULL, 0, &pass) ==
        TS_ERROR_VALUE);

  /* Bad input. */
  TsPartitionRule bad = NULL;
  const char* unknown_ops[1] = {"nn.nope"};
  CHECK(TsPartitionRuleOpPredicateCreate("x", unknown_ops, 1, NULL, &bad) == TS_ERROR_NOT_FOUND);
  CHECK(TsPartitionRuleByocCreate("no_such_library", 4, "arbitrary", &bad) == TS_ERROR_NOT_FOUND);
  CHECK(TsPartitionRuleByocCreate("dnnl", 4, "sideways", &bad) == TS_ERROR_VALUE);
  CHECK(TsPartitionRuleCombineCreate("c", by_kind, combiners, 3, -1, &bad) == TS_ERROR_VALUE);
  CHECK(TsPartitionRuleOnlyValidCreate("v", by_kind, -2, 0, 0, &bad) == TS_ERROR_VALUE);
  CHECK(TsPartitionRuleCompositeCreate("c", NULL, &bad) == TS_ERROR_INVALID_ARGUMENT);
  TsPartitionRule with_null[2] = {by_kind, NULL};
  CHECK(TsPartitionRuleUnionCreate("u", with_null, 2, &bad) == TS_ERROR_VALUE);
  TsCombinerRule bad_combiner = NULL;
  const char* wrong[1] = {"Q"};
  CHECK(TsCombinerRuleAllSimpleCreate("s", wrong, down, 1, &bad_combiner) == TS_ERROR_VALUE);
  CHECK(TsPartitionRuleDFPatternCreate("p", NULL, NULL, NULL, NULL, &bad) ==
        TS_ERROR_INVALID_ARGUMENT);
  PredicateState pattern_state = {0, 0, 0};
  /* An expression is not a pattern; the predicate's user data is still destroyed. */
  CHECK(TsPartitionRuleDFPatternCreate("p", (TsPattern)node, accept_add, &pattern_state,
                                       destroy_state, &bad) == TS_ERROR_TYPE);
  CHECK(pattern_state.destroyed == 1);
  CHECK(TsDataflowGraphCreate(NULL, &graph) == TS_ERROR_INVALID_ARGUMENT);
  TsModule no_main = NULL;
  CHECK(TsModuleParse("def @other(%x: Tensor[(2), float32]) { nn.relu(%x) }", (size_t)-1,
                      &no_main) == TS_OK);
  TsDataflowGraph no_graph = NULL;
  CHECK(TsDataflowGraphCreate(no_main, &no_graph) == TS_ERROR_NOT_FOUND);
  TsModuleDestroy(no_main);

  TsPartitionRuleDestroy(by_fn);
  CHECK(state.destroyed == 1);
  TsPartitionRuleDestroy(primitive);
  TsPartitionRuleDestroy(by_name);
  TsPartitionRuleDestroy(uni);
  TsPartitionRuleDestroy(coalesce);
  TsPartitionRuleDestroy(host);
  TsPartitionRuleDestroy(fuse);
  TsPartitionRuleDestroy(valid);
  TsPartitionRuleDestroy(combine);
  TsPartitionRuleDestroy(by_kind);
  for (int i = 0; i < 3; ++i) TsCombinerRuleDestroy(combiners[i]);
  TsTargetDestroy(native);
  TsExprDestroy(node);
  TsDataflowGraphDestroy(graph);
  TsModuleDestroy(mod);
  return check_summary();
}
