"""Does a change of the code keep every table's bits? Train, measure and record small runs with
this checkout and with another commit's code, and compare every output bit for bit.

What is recorded (``record``), each with one torch thread: the quick profile's rotated-basis
pairs at seed 1 in both report regimes (8 runs trained with the eager step: final weights and
trajectories; every table of ``measure_pair`` with the direction sweep), one second-regime run
trained for 2 epochs with the compiled step, the premise row and ``where`` table of two
controls, and on one falloff run the head activity, the probe rows and three erasure directions.
These are the code paths the committed tables are made of, on runs small enough for minutes
(about 2 min a side on two cores). Frames are compared with ``check_exact``, tensors with
``torch.equal`` (NaN equal to NaN).

The other commit's code runs from a temporary ``git worktree`` with this file's recorder, so it
calls the functions by today's names: a commit from before one of them existed cannot be
compared this way.

usage: python -m anchorkit same-bits [--against REV]   (REV: default HEAD, so the uncommitted change)
exit status: 0 when every output is equal, 1 when some differ (each named), 2 for a bad REV.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import torch

ROOT = Path(__file__).resolve().parents[2]  # the repository: no import of the library here


def lib(name: str):
    """The library's module ``name`` from whichever tree is on the path: in its layer's folder
    (``anchorkit/core``, ``anchorkit/measures``, ``anchorkit/engine``), in its study's (``anchorkit/studies/diagnosis``,
    ``anchorkit/studies/scout``; ``anchorkit/diagnosis`` in a tree from before the study folders)
    or, in a tree from before the layers and those folders, at the package's top. Looked up by file in
    that tree, since the editable install would otherwise serve a folder the older tree lacks
    from this checkout."""
    import anchorkit

    home = Path(anchorkit.__path__[0])
    for layer in ("core", "measures", "engine", "studies/diagnosis", "studies", "diagnosis", ""):
        where = home / layer / name
        if where.with_suffix(".py").exists() or (where / "__init__.py").exists():
            return importlib.import_module(".".join(["anchorkit", *filter(None, layer.split("/")),
                                                     name]))
    raise ModuleNotFoundError(f"no module {name!r} in {home}", name=name)


def record(out: Path) -> None:
    """Record every output named in the module's docstring into ``out`` (``torch.save``)."""
    torch.set_num_threads(1)
    # the code under comparison, imported here from whichever tree is on the path
    geometry, rank, scout = (lib(m) for m in ("geometry", "rank", "scout"))
    try:  # the registry, in the engine; the studies' package itself in a tree from before
        studies = lib("registry")
    except ModuleNotFoundError:
        studies = lib("studies")
    e1, probe_set = lib("edit").e1, lib("task").probe_set
    load_model, train = lib("train").load_model, lib("train").train
    measure_pair = lib("pairs").measure_pair
    PAPER, QUICK = lib("profiles").PAPER, lib("profiles").QUICK
    SECOND, WEAK = lib("regimes").SECOND, lib("regimes").WEAK

    got = {}
    pairs = [p for r in (WEAK, SECOND) for p in studies.study("rotated-basis").pairs([1], QUICK, r)]
    trained = {t.config.hash: t for t in train(studies.runs_of(pairs), progress=False)}
    for h, t in trained.items():
        got[f"final/{h}"], got[f"trajectory/{h}"] = t.final, t.trajectory
    for i, p in enumerate(pairs):
        tables = measure_pair(p, trained[p.anchored.hash].final, trained[p.control.hash].final)
        got.update({f"pair{i}/{k}": v for k, v in tables.items()})
    for cfg in (pairs[0].control, pairs[-1].control):
        row, where = scout.premise(cfg, trained[cfg.hash].final, contexts=16)
        got[f"premise/{cfg.hash}"], got[f"where/{cfg.hash}"] = pd.DataFrame([row]), where
    cfg = pairs[0].anchored
    model, batch = load_model([cfg], [trained[cfg.hash].final]), probe_set(cfg.task).clean
    heads = geometry.head_activity(model, batch)
    got["heads/received"], got["heads/value_content"] = heads.received, heads.value_content
    got["probe_rows"] = pd.DataFrame(rank.probe_rows(model, batch))
    got["erasure_directions"] = rank.erasure_directions(model, batch, e1(cfg.model.d_model), 3)
    compiled = train([studies.run_config(3, "falloff", "rotated", PAPER, SECOND, epochs=2)],
                     progress=False)[0]
    got["compiled/final"], got["compiled/trajectory"] = compiled.final, compiled.trajectory
    torch.save(got, out)


def _same(x, y) -> bool:
    if isinstance(x, pd.DataFrame):
        try:
            pd.testing.assert_frame_equal(x, y, check_exact=True)
        except AssertionError:
            return False
        return True
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if not isinstance(y, torch.Tensor) or x.shape != y.shape or x.dtype != y.dtype:
        return False
    if not x.is_floating_point():
        return torch.equal(x, y)
    nan = x.isnan()  # NaN marks an undefined entry (a position no later query sees): equal there
    return torch.equal(nan, y.isnan()) and torch.equal(x[~nan], y[~nan])


def differences(a: dict, b: dict) -> list[str]:
    """The names of the outputs that differ between two records (or are in one only)."""
    only = sorted(set(a) ^ set(b))
    return [f"{k} (in one record only)" for k in only] + [k for k in a if k in b
                                                          and not _same(a[k], b[k])]


def _record_with(tree: Path, out: Path) -> None:
    """Run the recorder with the code of ``tree`` (a checkout) on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--record", str(out)],
                   cwd=tree, env=env, check=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", default="HEAD", help="the commit to compare with (default HEAD)")
    ap.add_argument("--record", type=Path, help=argparse.SUPPRESS)  # the recorder's own call
    args = ap.parse_args(argv)
    if args.record is not None:
        record(args.record)
        return 0
    rev = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{args.against}^{{commit}}"],
                         cwd=ROOT, capture_output=True, text=True)
    if rev.returncode != 0:
        print(f"same_bits: --against {args.against!r} names no commit here", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="same-bits-") as tmp:
        tmp = Path(tmp)
        old = tmp / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(old),
                        rev.stdout.strip()], cwd=ROOT, check=True)
        try:
            _record_with(old, tmp / "old.pt")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT)
        _record_with(ROOT, tmp / "new.pt")
        # weights_only=False: the records hold DataFrames, and these are the two files this command
        # wrote itself a moment ago in its own temporary folder (never a file from elsewhere)
        a, b = (torch.load(tmp / f"{w}.pt", weights_only=False) for w in ("old", "new"))
    bad = differences(a, b)
    for k in bad:
        print(f"differs: {k}")
    print(f"{len(a)} outputs against {args.against} ({rev.stdout.strip()[:7]}): "
          f"{len(a) - len(bad)} equal bit for bit, {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
