#!/usr/bin/env python3
# Checks that Tessera's C++ layers only include downward, per the ALLOWED table below.
import argparse
import collections
import os
import re
import sys

# Each layer lists the layers it may include directly (a layer may always include itself).
_CORE = ["runtime", "support"]
ALLOWED = {
    "support": [],
    "runtime": ["support"],
    "capi_runtime": _CORE,
    "worker": _CORE,
    "ir": _CORE,
    # What a layout is (IndexMap, layout strings) sits on the IR, below the ops that take
    # layouts as attributes (layout_transform).
    "layout": ["ir"] + _CORE,
    "op": ["layout", "ir"] + _CORE,
    "target": ["ir"] + _CORE,
    "pattern": ["op", "layout", "ir"] + _CORE,
    "transform": ["pattern", "op", "target", "layout", "ir"] + _CORE,
    "backend": ["transform", "pattern", "op", "target", "layout", "ir"] + _CORE,
    "collage": ["backend", "transform", "pattern", "op", "target", "layout", "ir"] + _CORE,
    "frontend": ["transform", "op", "layout", "ir"] + _CORE,
    "registry": ["frontend", "collage", "layout", "backend", "transform", "pattern", "op",
                 "target", "ir"] + _CORE,
}
ALLOWED["tools"] = ["registry"] + ALLOWED["registry"] + ["capi", "capi_runtime"]
ALLOWED["capi"] = ["capi_runtime", "registry"] + ALLOWED["registry"]
# The Python bindings stand on the flat C API alone (no C++ core header), as MLIR's do.
ALLOWED["bindings_common"] = ["capi_runtime"]
ALLOWED["bindings_runtime"] = ["bindings_common", "capi_runtime"]
ALLOWED["bindings"] = ["bindings_common", "capi", "capi_runtime"]

SCAN_DIRS = ["cpp", "capi", "bindings/python"]
SOURCE_EXTS = (".h", ".cc", ".c")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(path):
    """Return (layer, is_private) for a root-relative posix path, or (None, False)."""
    parts = path.split("/")
    if parts[:3] == ["cpp", "include", "tessera"] and len(parts) > 4:
        return parts[3], False
    if parts[:2] == ["cpp", "src"] and len(parts) > 3:
        return parts[2], True
    if parts[0] == "capi":
        runtime = parts[-1].startswith("c_runtime_")
        return ("capi_runtime" if runtime else "capi"), parts[1] == "src"
    if parts[:3] == ["bindings", "python", "runtime"]:
        return "bindings_runtime", False
    if parts[:3] == ["bindings", "python", "common"]:
        return "bindings_common", False
    if parts[:2] == ["bindings", "python"]:
        return "bindings", False
    return None, False


def resolve(root, src, inc):
    """Map an include of root-relative file `src` to a root-relative path, or None."""
    if inc.startswith("tessera/"):
        top = "capi/include" if "/" not in inc[len("tessera/"):] else "cpp/include"
        return f"{top}/{inc}"
    for base in (os.path.dirname(src), "cpp/src"):
        cand = os.path.normpath(os.path.join(base, inc)).replace(os.sep, "/")
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def sources(root):
    """Yield root-relative posix paths of every C/C++ source under the scanned folders."""
    for top in SCAN_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTS):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def violations(root):
    """Return sorted (path, line, from_layer, to_label, include) for every upward arrow."""
    found = []
    for src in sources(root):
        frm, _ = layer_of(src)
        if frm is None:
            continue
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
            for lineno, text in enumerate(f, 1):
                m = INCLUDE_RE.match(text)
                target = m and resolve(root, src, m.group(1))
                to, private = layer_of(target) if target else (None, False)
                if to is None or to == frm:
                    continue
                same_folder = os.path.dirname(target) == os.path.dirname(src)
                if private and target.endswith(".h") and not same_folder:
                    found.append((src, lineno, frm, f"{to} private header", m.group(1)))
                elif to not in ALLOWED.get(frm, []):
                    found.append((src, lineno, frm, to, m.group(1)))
    return sorted(found)


def main(argv=None):
    """Parse arguments, print the report and return the exit status."""
    default_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description="Check that include arrows only point down.")
    ap.add_argument("--root", default=default_root, help="repository root (default: %(default)s)")
    ap.add_argument("--summary", action="store_true", help="print a count per (from, to) pair")
    args = ap.parse_args(argv)
    found = violations(args.root)
    if args.summary:
        counts = collections.Counter((frm, to) for _, _, frm, to, _ in found)
        for (frm, to), n in sorted(counts.items()):
            print(f"{frm} includes {to}: {n}")
    else:
        for path, line, frm, to, inc in found:
            print(f'{path}:{line}: {frm} includes {to} ("{inc}")')
    print(f"{len(found)} arrow(s) point up" if found else "layers OK: no arrow points up")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
