"""oneDNN partitions of a layout-planned graph: the blocked (NCHW16c) convolutions, pools and
epilogues go to oneDNN, compute the interpreter's numbers, and run without a single oneDNN
reorder at run time (counted from oneDNN's own verbose log in a child process)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera
from tessera import op, transform
from tessera.op import nn

pytestmark = pytest.mark.skipif(
    "dnnl" not in {t["name"] for t in tessera.list_targets()}, reason="built without oneDNN")

RNG = np.random.default_rng(3)


def const(*shape):
    return tessera.const((RNG.standard_normal(shape) * 0.2).astype("float32"))


def resnet_block():
    """conv+bias+relu, conv+bias+residual add (a 1x1 projection)+relu, max pool, depthwise
    conv+relu, global pool: NCHW as imported."""
    x = tessera.var("x", shape=(1, 16, 14, 14))
    r1 = nn.relu(op.add(nn.conv2d(x, const(32, 16, 3, 3), padding=(1, 1)), const(32, 1, 1)))
    c2 = op.add(nn.conv2d(r1, const(32, 32, 3, 3), padding=(1, 1)), const(32, 1, 1))
    out = nn.relu(op.add(c2, nn.conv2d(x, const(32, 16, 1, 1))))
    pooled = nn.max_pool2d(out, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))
    dw = nn.relu(nn.conv2d(pooled, const(32, 1, 3, 3), padding=(1, 1), groups=32))
    return tessera.IRModule.from_expr(tessera.Function([x], nn.global_avg_pool2d(dw)))


def calls(mod, name):
    """The calls of op `name` in every graph function of `mod`, each with its function's
    Compiler attribute (None outside partitions)."""
    found, seen = [], set()

    def walk(e, compiler):
        if e in seen:
            return
        seen.add(e)
        if isinstance(e, tessera.Function):
            walk(e.body, compiler)
        elif isinstance(e, tessera.Call):
            if getattr(e.op, "name", None) == name:
                found.append((e, compiler))
            walk(e.op, compiler)
            for a in e.args:
                walk(a, compiler)
        elif isinstance(e, tessera.Tuple):
            for f in e.fields:
                walk(f, compiler)

    for f in mod.functions.values():
        if isinstance(f, tessera.Function):
            walk(f.body, f.attrs.get("Compiler"))
    return found


def test_planned_convolutions_partition_to_dnnl_blocked():
    with transform.PassContext(opt_level=3):
        planned = transform.Sequential([transform.AlterOpLayout(), transform.PlanLayouts()])(
            resnet_block())
        parts = transform.PartitionFor("dnnl")(planned)
    convs = calls(parts, "nn.conv2d")
    assert len(convs) == 4
    for call, compiler in convs:
        assert compiler == "dnnl"
        assert call.attrs["data_layout"] == "NCHW16c"
    # The graph's edges, the input's and the output's transform, are oneDNN reorders.
    transforms = calls(parts, "layout_transform")
    assert len(transforms) == 2 and all(compiler == "dnnl" for _, compiler in transforms)


@pytest.mark.parametrize("opt_level", [2, 3])
def test_build_matches_interpreter(opt_level):
    mod = resnet_block()
    x = RNG.standard_normal((1, 16, 14, 14)).astype("float32")
    with transform.PassContext(opt_level=opt_level):
        ex = tessera.build(mod, "native -num_threads=1 -compiler=dnnl")
    np.testing.assert_allclose(ex(x=x), tessera.run(mod, x=x), rtol=1e-4, atol=1e-4)
    symbols = [r["symbol"] for r in ex.profile(x=x, repeat=1)["rows"]]
    assert any(s.startswith("dnnl") for s in symbols)
    if opt_level == 3:  # one oneDNN partition, the edge transforms included
        assert symbols == ["dnnl_main_0"]


CHILD = textwrap.dedent("""
    import ctypes, os, sys
    import numpy as np
    import tessera
    from tessera import transform
    sys.path.insert(0, {here!r})
    from test_dnnl_blocked import resnet_block
    libc = ctypes.CDLL(None)
    mod = resnet_block()
    x = np.ones((1, 16, 14, 14), "float32")
    with transform.PassContext(opt_level={opt_level}):
        ex = tessera.build(mod, "native -num_threads=1 -compiler=dnnl")
    libc.fflush(None)
    os.write(1, b"RUNS\\n")
    for _ in range(3):
        ex(x=x)
    libc.fflush(None)
    os.write(1, b"END\\n")
""")


def run_verbose(opt_level):
    """oneDNN's exec log lines of three runs: (primitive kind, implementation, formats)."""
    env = dict(os.environ, DNNL_VERBOSE="1", ONEDNN_VERBOSE="1")
    code = CHILD.format(here=os.path.dirname(os.path.abspath(__file__)), opt_level=opt_level)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=600, check=True).stdout
    runs = out[out.index("RUNS\n"):out.index("END\n")]
    return [line.split(",")[3:5] + line.split(",")[6:7] for line in runs.splitlines()
            if ",exec," in line]


def test_blocked_data_path_has_no_reorders_at_run_time():
    planned = run_verbose(3)
    kinds = [k for k, _, _ in planned]
    assert kinds.count("convolution") == 3 * 4
    assert kinds.count("pooling_v2") == 3 * 2
    assert not [impl for _, impl, _ in planned if impl.startswith("ref")]
    # Two reorders per run, both at the graph's edges: the NCHW input (abcd) into NCHW16c
    # and the pooled result back. Between them the data stays blocked, never reordered.
    reorders = [formats for k, _, formats in planned if k == "reorder"]
    assert len(reorders) == 3 * 2
    assert all("blocked:abcd:" in f for f in reorders), reorders
    # The plain partitioning, by contrast, also copies the residual into the destination of
    # the convolution that adds it (oneDNN's sum post-op), from oneDNN's format to itself.
    plain = [formats for k, _, formats in run_verbose(2) if k == "reorder"]
    assert len(plain) == 3 * 2
    assert len([f for f in plain if "blocked:abcd:" not in f]) == 3, plain
