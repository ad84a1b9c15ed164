"""The reader's commands, each a verb of ``python -m anchorkit`` (``anchorkit.__main__``): build the
book's pages, re-run a study, train runs, publish them, check a study against its committed tables,
compare two commits' bits, adopt a run store. The top layer: a command may read every other.
A study's own verbs are in its folder (``studies/<name>/commands/``).
"""
