"""Split-anti and falloff under plain Adam at the same seeds: whether falloff removes as well as
split-anti."""

from anchorkit.engine.study import Study

STUDY = Study("split-anti-seeds", (("split-anti", "adam"), ("falloff", "adam")), place=2)
