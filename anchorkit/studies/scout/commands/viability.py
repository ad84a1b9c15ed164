"""The second regime's viability check (anchorkit.studies.scout.viability): train what is missing at the
calibration seeds, measure, decide, and write the tables: into the committed
``reports/<regime>/viability/`` with ``--publish``, else into the run store's scratch folder.

usage: python -m anchorkit viability [--publish] [--scheduler in-process|tcp://host:8786]
"""

from __future__ import annotations

import argparse

from anchorkit.core.paths import REPO
from anchorkit.studies.scout import viability
from anchorkit.core.config import ParameterError
from anchorkit.engine.executor import check_scheduler
from anchorkit.engine.provenance import scratch_root

ROOT = REPO  # the repository (a clone: its book, reports, calibration)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scheduler")
    p.add_argument("--publish", action="store_true",
                   help="write the committed reports/<regime>/viability/ (else the scratch folder)")
    args = p.parse_args(argv)
    try:
        check_scheduler(args.scheduler)
    except ParameterError as e:
        p.error(str(e))
    where = ROOT / "reports" if args.publish else scratch_root()
    tables = viability.run_viability(where, scheduler=args.scheduler, publish=args.publish)
    print(viability.decision_text(tables))
    print(f"tables written under {where}")


if __name__ == "__main__":
    main()
