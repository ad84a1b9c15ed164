"""The diagnosis page's texts and tables ("Why our runs differ from the source's"), read
from the committed tables of both report regimes: each regime's ``diagnosis/`` folder and its
rotated-basis study's ``results`` and ``alignment``. Every number the page prints comes from
those tables; nothing here loads weights.

The package's modules, each one idea: ``tables`` (what the page reads), ``words`` (each
part's result in words), ``summary`` (part 4 and the tables' styles) and ``screens`` (what the
other pages read); every name is read from here.
"""

from anchorkit.studies.diagnosis.findings.tables import *  # noqa: F401,F403
from anchorkit.studies.diagnosis.findings.words import *  # noqa: F401,F403
from anchorkit.studies.diagnosis.findings.summary import *  # noqa: F401,F403
from anchorkit.studies.diagnosis.findings.screens import *  # noqa: F401,F403
