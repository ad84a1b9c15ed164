"""Presentation: what only the book's pages read. Each module words, lays out or draws what the
core (``anchorkit``'s other modules: the task, model, training, measures, store, studies,
executor, ledger and verdicts) computed; the core never imports from here (tests/acceptance/test_house.py).

- ``page``: a page's first step (check the parameters, train or load, measure, provenance, glue);
- ``findings``, ``report_page``, ``screens``: the report's figures, answers and first screens;
- ``supporting``: the other pages' texts and tables (the scout's and the diagnosis's are their
  folders', ``anchorkit.studies.scout.findings`` and ``anchorkit.studies.diagnosis.findings``);
- ``charts``, ``diagnosis_charts``: the figures, drawn in the book's theme (``theme``);
- ``standalone``: an executed notebook as one offline HTML page (a re-run's page).
"""
