"""Judge the diagnosis study's committed rank and probe measurements again by today's rules
(``anchorkit.studies.diagnosis.running.rejudge_rank``): nothing is trained or measured; the derived tables
(``ranks``, ``rank_verdicts``, ``probe_verdicts``) of every report regime are rewritten where
today's rules judge otherwise than the committed tables say, and no file where they agree.

usage: python -m anchorkit rejudge-diagnosis
"""

from __future__ import annotations

from anchorkit.studies.diagnosis.running import rejudge_rank
from anchorkit.core.paths import REPORTS
from anchorkit.engine.regimes import REPORT


def main():
    for regime in REPORT:
        tables = rejudge_rank(REPORTS, regime, publish=True)
        print(regime.name, tables["rank_verdicts"][["optimizer", "verdict"]].to_dict("records"))


if __name__ == "__main__":
    main()
