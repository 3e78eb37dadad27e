"""Every ```python block of README.md and docs/*.md runs on its own in a fresh interpreter,
every ```cpp block of README.md is a program that compiles against the build and runs, and
the ```sh blocks of each file run in order in one folder, as a reader following the page
would run them (with `build/` the build and the page's `model.txt`; `model.onnx` is the
model of the README's ONNX section, batch dimension symbolic). A sh block preceded by `<!-- not run by the doc tests:
WHY -->` is not run (CI's own commands, installs, long runs); WHY must be given.
The ```cpp blocks of docs/extending.md are excerpts of files to add to: the op, its
compute rule and the pass are put into one program (each inside the function the page
says it goes in), which registers them, runs the op through the interpreter and the
native code generator, the pass over a module, and partitions a module with the pattern
table. Templates (with `...` for the rest of a file) carry the not-run marker."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

def fence(language):
    """A fence opening with ```<language> at the start of a line, closing at the next ```."""
    return re.compile(rf"^```{language}[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


NOT_RUN = re.compile(r"<!-- not run by the doc tests:(.*?)-->\s*$")


def blocks(language, paths, with_reasons=False):
    """(id, code) for each block; the id names the file and the fence's line so a failure
    points at the text to fix. `with_reasons`: (id, code, why it is not run or None)."""
    found = []
    for path in paths:
        text = path.read_text()
        for m in fence(language).finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = NOT_RUN.search(before)
            entry = (f"{path.relative_to(ROOT)}:{line}", m.group(1))
            found.append(entry + ((marker.group(1).strip() if marker else None),) if with_reasons
                         else entry)
    return found


BLOCKS = blocks("python", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
CPP_BLOCKS = blocks("cpp", [ROOT / "README.md"])
EXTENDING_BLOCKS = blocks("cpp", [ROOT / "docs" / "extending.md"], with_reasons=True)
BUILD = Path(os.environ.get("TESSERA_BUILD_DIR", ROOT / "build"))


def test_blocks_are_found():
    # A changed fence style must not turn this file into a suite that checks nothing.
    assert BLOCKS and CPP_BLOCKS


@pytest.mark.parametrize("code", [code for _, code in CPP_BLOCKS],
                         ids=[block_id for block_id, _ in CPP_BLOCKS])
def test_cpp_block_compiles_and_runs(code, tmp_path):
    source = tmp_path / "block.cc"
    source.write_text(code)
    compile_cmd = ["c++", "-std=c++20", "-O0", f"-I{ROOT / 'cpp' / 'include'}", str(source),
                   "-o", str(tmp_path / "block"), f"-L{BUILD}", "-ltessera", "-ltessera_runtime",
                   f"-Wl,-rpath,{BUILD}"]
    built = subprocess.run(compile_cmd, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    res = subprocess.run([str(tmp_path / "block")], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    status = res.returncode
    assert status == 0, f"exit code {status}\n{res.stderr}"


@pytest.mark.parametrize("code", [code for _, code in BLOCKS],
                         ids=[block_id for block_id, _ in BLOCKS])
def test_block_runs_alone(code, tmp_path):
    # A fresh process in an empty directory: a block may rely on nothing an earlier block
    # defined or wrote, as a reader copying it would not have it either.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    # Compared on its own so that pytest's report shows the block's stderr, not the repr
    # of the whole CompletedProcess.
    status = res.returncode
    assert status == 0, f"exit code {status}\n{res.stderr}"


SH_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def readme_onnx_model(path):
    """model.onnx for the pages' commands, as the README's ONNX section writes it: a Relu
    with input 'input' of shape [N, 3, 8, 8]."""
    import onnx
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 8, 8])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N", 3, 8, 8])
    graph = helper.make_graph([helper.make_node("Relu", ["input"], ["output"])], "relu", [x], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def first_plain_block(text):
    """The content of the first fenced block whose opening fence names no language."""
    inside, language, lines = False, "", []
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            if not inside:
                inside, language, lines = True, line[3:].strip(), []
            elif language == "":
                return "".join(lines)
            else:
                inside = False
        elif inside:
            lines.append(line)
    raise AssertionError("no plain block")


def test_sh_blocks_not_run_say_why():
    for page in SH_PAGES:
        for block_id, _, why in blocks("sh", [page], with_reasons=True):
            assert why is None or why, f"{block_id}: say why the block is not run"


@pytest.mark.parametrize("page", [p for p in SH_PAGES if blocks("sh", [p])],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_sh_blocks_run_in_order(page, tmp_path):
    (tmp_path / "build").symlink_to(BUILD.resolve())
    readme = (ROOT / "README.md").read_text()
    # The README's first block without a language is the module its commands call model.txt.
    (tmp_path / "model.txt").write_text(first_plain_block(readme))
    readme_onnx_model(str(tmp_path / "model.onnx"))
    env = dict(os.environ, TESSERA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("PYTHONPATH", None)  # the blocks set it themselves where they need it
    ran = 0
    for block_id, code, why in blocks("sh", [page], with_reasons=True):
        if why is not None:
            continue
        res = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=900)
        status = res.returncode
        assert status == 0, f"{block_id}: exit code {status}\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
        ran += 1
    print(f"{page.name}: {ran} sh block(s) ran")


# Where each docs/extending.md excerpt goes, by its first line: the code around it.
EXCERPT_PLACES = {
    "// cpp/src/op/<family>.cc": ("namespace tessera::op_defs {\n"
                                  "void RegisterMyOp(OpRegistry& registry) {\n",
                                  "}\n}  // namespace tessera::op_defs\n"),
    "// cpp/src/backend/lower/compute_<family>.cc": (
        "namespace tessera::lower {\nusing namespace tir;\n"
        "void RegisterMyCompute(ComputeRegistry& r) {\n", "}\n}  // namespace tessera::lower\n"),
    "// cpp/src/transform/my_pass.cc": ("", ""),
    "void RegisterMylibPatternTable(": ("namespace tessera {\n", "}  // namespace tessera\n"),
}

EXCERPT_MAIN = r"""
#include <cmath>
#include <cstdio>
#include "tessera/backend/build.h"
#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/runtime/executable.h"
#include "tessera/transform/byoc.h"

int main() {
  using namespace tessera;
  op_defs::RegisterMyOp(OpRegistry::Global());
  lower::RegisterMyCompute(lower::ComputeRegistry::Global());
  IRModule mod = ParseModule(R"(
def @main(%x: Tensor[(2, 3), float32]) {
  nn.my_op(%x, alpha=0.5f)
})");
  NDArray x = NDArray::Empty({2, 3}, DType::kFloat32);
  for (int i = 0; i < 6; ++i) x.SetFloat(i, i - 3.0);
  NDArray want = RunMain(mod, {{"x", x}}).tensor();
  auto exe = Build(mod, {Target::Parse("native -num_threads=1")});
  NDArray got = runtime::Executor(exe).Run({{"x", x}})[0];
  for (int i = 0; i < 6; ++i) {
    double expect = i - 3.0 > 0 ? i - 3.0 : 0.5 * (i - 3.0);
    if (std::fabs(want.GetFloat(i) - expect) > 1e-6 || std::fabs(got.GetFloat(i) - expect) > 1e-6) {
      std::fprintf(stderr, "element %d: interpreter %g, native %g, expected %g\n", i,
                   want.GetFloat(i), got.GetFloat(i), expect);
      return 1;
    }
  }
  IRModule out = MyPass(2)(mod);
  if (!StructuralEqual(out, mod) || MyPassRegistration().name != "MyPass") return 2;
  // The pattern table: dense+relu goes to "mylib" as one partition.
  RegisterMylibPatternTable(PatternTableRegistry::Global());
  IRModule dense = ParseModule(R"(
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]) {
  nn.relu(nn.dense(%x, %w))
})");
  IRModule parted = PartitionFor(dense, "mylib");
  int partitions = 0;
  for (const auto& [name, f] : parted.functions())
    if (const auto* fn = f.as<FunctionNode>())
      partitions += fn->attrs.Has(attr::kCompiler) && fn->attrs.GetString(attr::kCompiler) == "mylib";
  if (partitions != 1) return 3;
  std::printf("excerpts ok\n");
  return 0;
}
"""


def test_extending_excerpts_build_a_working_op_and_pass(tmp_path):
    parts, placed = [], set()
    for block_id, code, why in EXTENDING_BLOCKS:
        first = code.split("\n", 1)[0]
        place = next((k for k in EXCERPT_PLACES if first.startswith(k)), None)
        if why is not None:
            continue
        assert place, f"{block_id}: an excerpt this test does not place ({first!r})"
        before, after = EXCERPT_PLACES[place]
        parts.append(before + code + after)
        placed.add(place)
    assert placed == set(EXCERPT_PLACES), placed
    # The pass file first (its includes), then the op and the rule, then main.
    parts.sort(key=lambda p: not p.startswith("// cpp/src/transform"))
    source = tmp_path / "excerpts.cc"
    source.write_text("#include \"op_util.h\"\n#include \"tessera/backend/lower/compute.h\"\n"
                      "#include \"tessera/ir/op.h\"\n#include \"tessera/pattern/library_patterns.h\"\n"
                      "#include \"tessera/pattern/pattern_table.h\"\n" + "\n".join(parts) +
                      EXCERPT_MAIN)
    cmd = ["c++", "-std=c++20", "-O0", f"-I{ROOT / 'cpp' / 'include'}",
           f"-I{ROOT / 'cpp' / 'src' / 'transform'}", f"-I{ROOT / 'cpp' / 'src' / 'op'}",
           str(source), "-o", str(tmp_path / "excerpts"), f"-L{BUILD}", "-ltessera",
           "-ltessera_runtime", f"-Wl,-rpath,{BUILD}"]
    built = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[:4000]  # the first error is the one to fix
    res = subprocess.run([str(tmp_path / "excerpts")], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    status = res.returncode
    assert status == 0, f"exit code {status}\n{res.stderr}"
