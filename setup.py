"""Builds the tessera._runtime and tessera._core extensions with the project's CMake build
and packages them.

The extensions, libtessera_runtime.so, libtessera.so and libtessera_c.so are built in
$TESSERA_PIP_BUILD_DIR (default <repo>/build-pip) with an $ORIGIN rpath and copied next to the package's Python files,
so the installed package is self-contained. Extra CMake arguments can be passed in
$TESSERA_CMAKE_ARGS. Everything is local: `pip install --no-build-isolation .` works offline.
"""
import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
BUILD_DIR = pathlib.Path(os.environ.get("TESSERA_PIP_BUILD_DIR", ROOT / "build-pip"))


class CMakeExtension(Extension):
    """An extension whose sources CMake knows; setuptools only copies the result."""

    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        configure = ["cmake", "-S", str(ROOT), "-B", str(BUILD_DIR), *generator,
                     # The build type of scripts/setup.sh, so that ccache serves the
                     # objects a development build already compiled; debug info is
                     # stripped from the copies below.
                     "-DCMAKE_BUILD_TYPE=RelWithDebInfo", f"-DPython3_EXECUTABLE={sys.executable}",
                     "-DTESSERA_TESTS=OFF", "-DTESSERA_PYTHON=ON",
                     "-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON",
                     *shlex.split(os.environ.get("TESSERA_CMAKE_ARGS", ""))]
        # ccache serves what a development build (scripts/setup.sh) compiled, from any
        # folder of this checkout, as it does for that build.
        os.environ.setdefault("CCACHE_BASEDIR", str(ROOT))
        os.environ.setdefault("CCACHE_NOHASHDIR", "1")
        subprocess.check_call(configure)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        module = ext.name.rsplit(".", 1)[-1]  # the CMake target: _runtime or _core
        # _core also carries the process Collage measures candidates in.
        targets = [module] + (["tessera_measure_worker"] if module == "_core" else [])
        subprocess.check_call(["cmake", "--build", str(BUILD_DIR), "--target", *targets,
                               "--parallel", jobs])
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        built = sorted((BUILD_DIR / "python" / "tessera").glob(f"{module}*.so"))
        if not built:
            raise RuntimeError(f"CMake did not produce tessera/{module}*.so in {BUILD_DIR}")
        shutil.copy2(built[0], target)
        # The extensions find the libraries next to themselves ($ORIGIN rpath).
        compiler = ["libtessera.so", "libtessera_c.so", "tessera-measure-worker"]
        libraries = ["libtessera_runtime.so"] + (compiler if module == "_core" else [])
        copies = [target]
        for lib in libraries:
            shutil.copy2((BUILD_DIR / lib).resolve(), target.parent / lib)
            copies.append(target.parent / lib)
        if shutil.which("strip"):
            subprocess.check_call(["strip", "--strip-debug", *map(str, copies)])


(BUILD_DIR / "egg-info").mkdir(parents=True, exist_ok=True)
setup(
    ext_modules=[CMakeExtension("tessera._runtime"), CMakeExtension("tessera._core")],
    cmdclass={"build_ext": CMakeBuild},
    # Keep setuptools' scratch files out of the source tree and the CMake build dirs.
    options={"build": {"build_base": str(BUILD_DIR / "setuptools")},
             "egg_info": {"egg_base": str(BUILD_DIR / "egg-info")}},
    zip_safe=False,
)
