"""This study's own verbs of ``python -m anchorkit`` (``anchorkit.__main__`` lists them apart)."""
