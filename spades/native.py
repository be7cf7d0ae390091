"""The bots' hot modules compiled to C with mypyc, and loaded when they match the source.

Hard's strength is the number of deals its search plays out in its 0.5 s, and nearly all
of a decision is Python running card play (``policy``, ``punisher``), the search's loop
and its deals (``search``, ``deals``), the endgame solver (``solver``) and the bid model's
weights (``bidmodel``); at a house-rules table, the house bots' parts (``slots``,
``house``, ``house_bid``, ``house_play``), their search (``house_search``) and the house
solver (``house_solver``), which the analysis of a house hand runs too. Compiled, the
same source runs about 3.4 times as fast (the house bots' play-outs about 3.3 times) and
chooses exactly the same cards for the same work: ``spades.bots.search.COMPILED`` and
``house_search.COMPILED`` tell which runs, and their ``PLAYS_PER_SECOND`` turn Hard's
time into the work that code does in it.

``python -m spades.native`` (run by ``scripts/setup``) compiles ``COMPILED`` into
``build/native/<key>/``, where the key is a hash of the sources they are built from
(``SOURCES``), the Python and the compiler. ``spades.bots`` calls ``load`` before it
imports its modules: it puts that folder first on the package's path only when the
folder for today's sources exists, so an edited module runs as Python until the next
build (never a stale build), and a machine with no C compiler runs the same bots,
slower. ``SPADES_NATIVE=0`` runs the Python source whatever is built.

Imports: the standard library only (``mypyc`` and ``setuptools`` when building).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "spades" / "bots"
BUILDS = ROOT / "build" / "native"
# the modules compiled, and every module whose source they are compiled against
COMPILED = ("policy", "punisher", "solver", "bidmodel", "deals", "search",
            "slots", "house", "house_bid", "house_play", "house_search", "house_solver")
SOURCES = tuple(BOTS / f"{m}.py" for m in (*COMPILED, "knowledge")) + tuple(
    ROOT / "spades" / f"{m}.py" for m in ("cards", "rules", "rules_config", "scoring"))
GROUP = "spades_bots_native"  # the name of the library the compiled modules share


def key() -> str:
    """The build's name: a hash of the sources, the Python ABI and the compiler's version."""
    h = hashlib.sha256()
    for path in SOURCES:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(str(sysconfig.get_config_var("EXT_SUFFIX")).encode())
    try:
        h.update(importlib.metadata.version("mypy").encode())
    except importlib.metadata.PackageNotFoundError:
        pass
    return h.hexdigest()[:16]


def load(package_path: list[str]) -> bool:
    """Put the compiled modules first on ``spades.bots``' path (``package_path``) when they
    were built from today's sources; whether they were."""
    if os.environ.get("SPADES_NATIVE", "1") == "0":
        return False
    try:
        where = BUILDS / key()
    except OSError:
        return False
    if not (where / "done").is_file():
        return False
    package_path.insert(0, str(where / "spades" / "bots"))
    if str(where) not in sys.path:
        sys.path.append(str(where))  # the library the modules share is a top-level module
    return True


def _build_ext() -> type:
    """setuptools' ``build_ext``, compiling an extension's C files side by side, one
    compiler a processor (it runs them one after another)."""
    from concurrent.futures import ThreadPoolExecutor

    from setuptools.command.build_ext import build_ext

    class ParallelBuild(build_ext):
        def build_extension(self, ext):
            one = self.compiler.compile

            def compile(sources, *args, **kwargs):
                with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
                    return [o for objs in pool.map(lambda s: one([s], *args, **kwargs), sources) for o in objs]

            self.compiler.compile = compile
            try:
                super().build_extension(ext)
            finally:
                del self.compiler.compile

    return ParallelBuild


def build() -> Path:
    """Compile ``COMPILED`` into ``build/native/<key>`` (nothing to do when it is there),
    the compiler's output in ``build.log`` beside it; older builds are removed. When the
    compiler fails, its output goes to stderr and the error is raised.

    mypyc writes a C file a module (``multi_file``) and they compile side by side: on two
    processors 30 s instead of 80 s for one file, and the code is as fast
    (``bench.house_bots --playouts 3000`` and ``bench.analysis`` within their noise)."""
    where = BUILDS / key()
    if (where / "done").is_file():
        return where
    from mypyc.build import mypycify
    from setuptools import setup

    BUILDS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=BUILDS, prefix="tmp") as tmp:
        out, cwd = Path(tmp) / "out", os.getcwd()
        log_path = Path(tmp) / "build.log"
        try:
            with open(log_path, "w") as log, contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                os.chdir(ROOT)  # mypyc names the modules by their paths from here
                modules = mypycify([f"spades/bots/{m}.py" for m in COMPILED], opt_level="3",
                                   group_name=GROUP, multi_file=True, target_dir=str(Path(tmp) / "c"))
                os.chdir(tmp)  # away from the project's own setuptools settings
                setup(name=GROUP, ext_modules=modules, cmdclass={"build_ext": _build_ext()}, script_args=[
                    "--quiet", "build_ext", "--build-lib", str(out), "--build-temp", str(Path(tmp) / "o")])
        except BaseException:
            sys.stderr.write(log_path.read_text())
            raise
        finally:
            os.chdir(cwd)
        shutil.copy(log_path, out / "build.log")
        (out / "done").write_text(where.name + "\n")
        for old in BUILDS.iterdir():
            if old.is_dir() and old.name != where.name and not old.name.startswith("tmp"):
                shutil.rmtree(old, ignore_errors=True)
        with contextlib.suppress(OSError):  # another set-up built the same meanwhile
            out.rename(where)
    return where


if __name__ == "__main__":
    print(f"compiled bots: {build().relative_to(ROOT)}")
