"""The method's criteria, in one place: the values a run or a measure is judged against (the
Methods page, *Training* and *Measurements*). Fixed by the calibration; every module and page
imports them from here rather than typing them."""

SCORE_MIN = 0.95  # every op scores at least this in every run (control and anchored, both optimizers)
ALIGNMENT_HIGH = 0.8  # falloff's alignment at the difference answers, slices 3 and 4
ALIGNMENT_LOW = 0.2  # |alignment| at the other ops' answers, any slice
REMOVAL_MIN = 0.8  # falloff's raw removal at full dose (the bounded definition)
SPILL_MAX = 0.02  # the selectivity criterion: spill at every dose
KEPT = 0.5  # the kept/lost rule: net removal at full dose (also applied to raw removal)
