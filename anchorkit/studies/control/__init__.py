"""The un-anchored control under plain Adam: the baseline every anchored run is paired with."""

from anchorkit.engine.study import Study

STUDY = Study("control", (("control", "adam"),), place=1)
