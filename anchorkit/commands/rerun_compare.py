"""Re-execute a study from scratch (fresh training in an empty run store, published weights
ignored) for some seeds and compare its tables with the committed ones, seed by seed.

Writes, with ``--publish`` (else the same under the run store's scratch folder),
``reports/rerun/<cpu>/comparison.csv`` (``<cpu>`` names this machine's CPU model, so that
re-runs on several machines stand side by side; one row per seed and numeric column of
``results``: the published value, the re-run value, their difference and whether it is within the
tolerance) and ``reports/rerun/<cpu>/provenance.json``, which records what the re-run ran on
(``kernels.record``: CPU, vector extensions, torch's CPU capability, MKL/oneDNN versions, the
kernel pins, threads) and whether each retrained run's final weights equal the published ones bit
for bit. The kernels are pinned to AVX2 (``anchorkit.core.kernels``) so that training gives the same
bits across x86-64 machines; the re-runs say on which machines it did. The measures are float32
reductions whose rounding depends on the thread count, so two values agree when they differ by at
most ``TOLERANCE`` (a few float32 units in the last place of numbers of order one).

usage: python -m anchorkit check --study control --seeds 704 [--threads 2] [--publish]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd
import torch

from anchorkit.core.paths import REPO
from anchorkit.core import kernels
from anchorkit.core.config import ParameterError, check_int, check_seeds
from anchorkit.engine.provenance import read_tables, scratch_root, source_state, write_study
from anchorkit.core.store import RunStore
from anchorkit.engine.protocol import run_study
from anchorkit.engine.registry import STUDIES, study_runs

ROOT = REPO  # the repository (a clone: its book, reports, calibration)
TOLERANCE = 1e-6  # float32 measures of order one: a few units in the last place


def compare(published: pd.DataFrame, rerun: pd.DataFrame, tolerance: float = TOLERANCE
            ) -> pd.DataFrame:
    """One row per run and numeric column of the re-run results table, beside the published."""
    key = ["run", "control_run"]
    numeric = [c for c in rerun.columns if c not in key and c != "seed"
               and pd.api.types.is_numeric_dtype(rerun[c])]
    merged = rerun.merge(published, on=key, suffixes=("_rerun", "_published"))
    rows = []
    for _, r in merged.iterrows():
        for c in numeric:
            a, b = (float("nan") if pd.isna(r[f"{c}_{w}"]) else float(r[f"{c}_{w}"])
                    for w in ("published", "rerun"))  # NA: undefined (a run with no spike)
            same = (a == b) or (pd.isna(a) and pd.isna(b)) or abs(a - b) <= tolerance
            rows.append({"run": r["run"], "seed": r["seed_rerun"], "column": c, "published": a,
                         "rerun": b, "difference": b - a, "within_tolerance": bool(same)})
    return pd.DataFrame(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--study", choices=tuple(STUDIES), default="control")
    p.add_argument("--seeds", type=int, nargs="+", default=[704])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--publish", action="store_true", help="write the committed "
                   "reports/rerun/<cpu>/ (else rerun/<cpu>/ in the run store's scratch folder)")
    args = p.parse_args(argv)
    try:
        check_seeds(args.seeds)
        check_int("threads", args.threads, 1)
    except ParameterError as e:
        p.error(str(e))
    published = read_tables(ROOT / "reports" / args.study)["results"]  # checked before any work
    torch.set_num_threads(args.threads)
    t0, source = time.perf_counter(), source_state()
    runs = study_runs(args.study, args.seeds, "paper")
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "store", published=None)  # train from scratch
        tables = run_study(args.study, args.seeds, "paper", reports_dir=None, store=store,
                           scheduler="in-process")
        weights = {c.name: weights_equal(store.load_final(c), RunStore().load_final(c))
                   for c in runs}
    out = compare(published, tables["results"])
    where = (ROOT / "reports" if args.publish else scratch_root()) / "rerun" / cpu_folder(
        kernels.cpu_model())
    write_study(where, {"comparison": out}, args.study, args.seeds, "paper", runs,
                time.perf_counter() - t0, source, publish=args.publish,
                extra={"tolerance": TOLERANCE, "executor": "in-process",
                       "step": runs[0].train.step, "weights_bitwise_equal": weights})
    bad = out[~out.within_tolerance]
    print(f"{len(out)} values compared, {len(bad)} outside {TOLERANCE}; weights bitwise equal to "
          f"published: {sum(weights.values())} of {len(weights)} runs; written to {where}")


def cpu_folder(cpu: str) -> str:
    """A folder name for a CPU model: ``Intel(R) Xeon(R) Processor`` → ``intel-xeon-processor``."""
    import re

    words = re.sub(r"\((r|tm)\)", " ", cpu.lower())
    return "-".join(re.findall(r"[a-z0-9]+", words)) or "unknown-cpu"


def weights_equal(a: dict, b: dict) -> bool:
    """Whether two weight sets are equal bit for bit."""
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


if __name__ == "__main__":
    main()
