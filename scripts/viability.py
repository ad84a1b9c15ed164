"""The second regime's viability check (anchorkit.studies.scout.viability): train what is missing at the
calibration seeds, measure, decide, and write ``reports/<regime>/viability/``.

usage: python -m scripts.viability [--scheduler in-process|tcp://host:8786]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from anchorkit.studies.scout import viability
from anchorkit.core.config import ParameterError
from anchorkit.executor import check_scheduler

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scheduler")
    args = p.parse_args(argv)
    try:
        check_scheduler(args.scheduler)
    except ParameterError as e:
        p.error(str(e))
    # this command's one purpose is the committed check at the calibration seeds
    tables = viability.run_viability(ROOT / "reports", scheduler=args.scheduler, publish=True)
    print(viability.decision_text(tables))


if __name__ == "__main__":
    main()
