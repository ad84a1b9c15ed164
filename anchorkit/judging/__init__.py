"""Judging the source's claims: the kinds of rule and the source's figures (``rules``,
``base``), each claim as data in the folder of the study it is judged on, and the reproduction
ledger that gathers them (``claims``, ``ledger``).
"""
