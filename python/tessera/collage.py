"""Collage: candidate partitions (kernels) of a module, for experimenting with fusion rules.

Build rule trees from the primitives and run them on a module's ``@main``::

    from tessera import collage
    rule = collage.only_valid("valid", collage.combine(
        "combine", collage.op_call_by_kind(),
        [collage.all_simple("all_simple", [("A", "B"), ("B", "R"), ("I", "I")])], max_depth=4),
        max_exits=1, max_depth=4)
    for c in collage.candidates(rule, mod):
        print(c["indexes"], c["label"], c["kind"])   # c["function"]: the extracted Function

Pattern rules use the DFPattern language of ``tessera.pattern``; a library backend's rule
is built from its registered pattern table, and ``target_candidates`` gathers the specs
of a target list (``-compiler=dnnl`` / ``-libs=blas`` add the library's spec)::

    from tessera.pattern import is_op, wildcard
    conv_relu = collage.composite("conv_relu", collage.dfpattern(
        "", is_op("nn.relu")(is_op("nn.conv2d")(wildcard(), wildcard()))))
    dnnl_rule = collage.byoc("dnnl", max_depth=4, fusion="arbitrary")   # or "none", "tvm"
    per_spec = collage.target_candidates(mod, ["native -compiler=dnnl"])  # {"native": [...], "dnnl": [...]}

Indices are post-DFS indices of ``@main``'s dataflow graph: parameters first, each call's
callee before its arguments, the function itself last. ``node_labels(mod)`` lists them:
calls by op name (``'nn.conv2d'``), ``'op'`` for the op node a call calls (copied into
every function, so never part of a partition: name the call), ``'var'``, ``'const'``,
``'tuple'``, ``'proj'``, and ``'fn'`` for the function itself (last). The indexes of a
module depend on its structure; look them up with ``node_labels`` (or
``tessera collage candidates FILE``, which prints them).

Each candidate is a dict with ``indexes``, ``label``, ``kind``, ``rule_name``, ``spec``,
``depth``, ``entries``, ``exits``, ``inputs``, ``outputs``, ``nested`` (a list of
``(indexes, attrs, nested)``: the kernel function and, inside it, e.g. its Composite
functions) and ``function`` (the candidate extracted as a standalone Function).

Kinds (``all_simple`` pairs take letters or names), lowest first: ``E`` elemwise, ``B``
broadcast, ``I`` injective, ``R`` comm_reduce, ``A`` out_elemwise_fusable (conv2d,
dense), ``T`` tuple, ``O`` opaque. ``("A", "B")`` combines an upstream candidate of kind
<= A with a downstream one of kind <= B. ``max_depth=0`` means no depth limit (as in TVM);
``max_exits=0`` no exit limit. Predicates get the match's root (or the op's) Call and
must return a bool.
"""
from . import _core
from .transform import wrap_pass as _wrap_pass

_c = _core.collage

PartitionRule = _c.PartitionRule
CombinerRule = _c.CombinerRule
op_predicate = _c.op_predicate
dfpattern = _c.dfpattern
byoc = _c.byoc
op_call_by_kind = _c.op_call_by_kind
composite = _c.composite
primitive = _c.primitive
union = _c.union
combine = _c.combine
only_valid = _c.only_valid
host = _c.host
max_coalesce = _c.max_coalesce
fuse_ops_like = _c.fuse_ops_like
all_simple = _c.all_simple
tuple_arg = _c.tuple_arg
tuple_proj = _c.tuple_proj
constant = _c.constant
candidates = _c.candidates
target_candidates = _c.target_candidates
candidate_counts = _c.candidate_counts
node_labels = _c.node_labels
rewrite = _c.rewrite


def PartitionForTesting(max_exits, allow_taps, compiler, indexes, labels=None):  # noqa: N802
    """A pass turning the given post-DFS indices of ``@main`` into one partition function
    (``Compiler=compiler``), with nodes labelled L grouped into ``Composite=L`` functions."""
    return _wrap_pass(
        _c.partition_for_testing(max_exits, allow_taps, compiler, list(indexes), list(labels or [])))


# ---- The search: CollagePartition, cost estimators and reports -------------------------

CostEstimator = _c.CostEstimator
MockCostEstimator = _c.MockCostEstimator
MeasuringCostEstimator = _c.MeasuringCostEstimator
register_estimator = _c.register_estimator
list_estimators = _c.list_estimators
CostDatabase = _c.CostDatabase
machine_fingerprint = _c.machine_fingerprint
runner_fingerprint = _c.runner_fingerprint
fingerprint_hash = _c.fingerprint_hash


class DaskRunner(str):
    """Where to measure Collage's candidates: the workers of a Dask cluster, by scheduler
    address (``"tcp://host:8786"``) or by a ``dask.distributed.Client``. It is the string
    ``"dask://host:8786"``, so it goes where a runner is taken::

        with transform.PassContext(config={"collage.enable": True,
                                           "collage.runner": collage.DaskRunner(client)}):
            ex = tessera.build(mod, target=["native", "dnnl"])
        estimator = collage.MeasuringCostEstimator(runner=collage.DaskRunner("tcp://h:8786"))

    Candidates are built here and measured on workers whose machine fingerprint for the
    target matches this machine's (``machine_fingerprint``); results go to this machine's
    cost database. Workers need the ``tessera`` package and one thread each."""

    def __new__(cls, address):
        scheduler = getattr(address, "scheduler", None)   # a dask.distributed.Client
        if scheduler is not None:
            address = scheduler.address
        if not isinstance(address, str):
            raise TypeError("DaskRunner takes a scheduler address or a dask.distributed.Client")
        for prefix in ("tcp://", "dask://"):
            if address.startswith(prefix):
                address = address[len(prefix):]
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"DaskRunner: expected a scheduler address tcp://HOST:PORT or a "
                             f"dask.distributed.Client, got {address!r}")
        return super().__new__(cls, "dask://" + address)

    def __repr__(self):
        return f"DaskRunner({str(self)!r})"


def set_progress(progress):
    """Calls ``progress(done, total)`` as a Collage search on this thread estimates
    candidates, also inside ``tessera.build`` (``None`` removes it)."""
    _c.set_progress(progress)


def CustomCostEstimator(fn):  # noqa: N802
    """An estimator calling ``fn(mod, target) -> seconds`` (``target`` is its text, e.g.
    ``"dnnl -num_threads=1"``; ``mod``'s @main runs the candidate kernel once). Raising
    makes that candidate invalid; the search goes on. A plain function given where an
    estimator is expected is wrapped the same way."""
    return _c.CustomCostEstimator(fn)


def CollagePartition(targets, cost_estimator=None, progress=None):  # noqa: N802
    """The Collage pass over ``targets`` (a target string or a list, as ``tessera.build``
    takes them). It picks the backend of every kernel by estimated cost: the default
    estimator (``collage.estimator``, "measure") builds and times each candidate;
    ``progress(done, total)`` is called as candidates are estimated. The result's
    ``mod.attrs["collage.report"]`` holds the choices (see :class:`CollageReport`)."""
    if isinstance(targets, str):
        targets = [targets]
    return _wrap_pass(_c.collage_partition(list(targets), cost_estimator, progress))


class CollageReport:
    """What Collage chose: per kernel its ops, backend, estimated cost and the cheapest other
    kernel starting at the same node (which may cover other ops); the estimated total; the
    guard's end-to-end timings. ``str()`` is a text table; :meth:`save_html` writes a page
    with the graph coloured by backend."""

    def __init__(self, text, measured_ms=None):
        import json
        self.json = text
        self.data = json.loads(text)
        self.measured_ms = measured_ms

    @property
    def kernels(self):
        """Every chosen kernel (dicts), over all partitioned functions."""
        return [k for f in self.data["functions"] for k in f["kernels"]]

    @property
    def estimated_total_us(self):
        return self.data["estimated_total_us"]

    @property
    def chosen(self):
        """What the program runs: "collage" (Collage's plan) or the fixed configuration the
        guard timed faster ("native", "partition_for_dnnl", ...), whose kernels then differ
        from :attr:`kernels`."""
        guard = self.data.get("guard")
        return guard.get("chosen", "collage") if isinstance(guard, dict) else "collage"

    @property
    def additive_error_us(self):
        """Measured end-to-end latency minus the estimated total (None unless measured, and
        when the guard kept another configuration than Collage's plan)."""
        if self.measured_ms is None or self.chosen != "collage":
            return None
        return self.measured_ms * 1e3 - self.estimated_total_us

    def to_html(self):
        return _c.report_html(self.json, -1.0 if self.measured_ms is None else self.measured_ms)

    def save_html(self, path):
        """Writes the report as one self-contained HTML page (SVG from Graphviz ``dot``)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_html())

    def __str__(self):
        return _c.report_text(self.json, -1.0 if self.measured_ms is None else self.measured_ms)

    __repr__ = __str__
