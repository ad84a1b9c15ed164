"""The optimizer scout (the optimizer scout's page, notebooks/optimizer-scout.ipynb): where Adam builds the privileged basis, and the regime decision.

Controls under plain and rotated Adam are trained in a few **regimes** (configuration: the regime
options of book/methods.md, *The model and its slices*, optimizer settings) at the calibration seeds only, each to the longest
training length; their weights are kept at every shorter length. At each length the **premise**
of the report is measured on every control with the library's measures: how much of the last
slice's energy the top basis vector holds (coordinate axes and the seed's rotated axes), its
ratio to the second, kurtosis, the syntax embeddings' largest |cos| with a basis vector, the
residual RMS, the lowest op score, and what projecting directions out at full dose costs the task
(the top direction of the run's own basis, the median of its other directions, 16 random ones).

The **decision rule** (``DECISION_RULE``, written before any scout run) then names, per regime and
length, the strongest level of basis both calibration seeds reach, and adopts the cheapest regime
at the highest level found, if any, once its falloff runs meet the anchor criteria of book/methods.md, *Training*.
"""


from anchorkit.studies.scout.rule import *  # noqa: F401,F403
from anchorkit.studies.scout.measuring import *  # noqa: F401,F403
from anchorkit.studies.scout.running import *  # noqa: F401,F403
from anchorkit.engine.study import Survey

# its value: its page computes at the calibration seeds and lengths, and stands in with its rule
STUDY = Survey(SCOUT, place=7, protocol="anchorkit.studies.scout.survey",  # noqa: F405
               pending=PENDING)  # noqa: F405
