"""The measures: functions of runs and of tables, above the core and below every study.

The measurements on the probe sets (``measure``), the answers a measurement reads
(``answers``), the syntax directions (``directions``), the essay's head-level geometry
(``geometry``), the method's thresholds (``criteria``), the statistics and the verdict rules
(``stats``, ``verdicts``). A module here imports only the core and the measures
(``tests/acceptance/test_house.py`` checks it).
"""
