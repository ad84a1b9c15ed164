"""The studies, one folder each: ``anchorkit/studies/<name>/`` holds a study's value (``STUDY``)
and what only it needs (its rules, its claims, its page's texts in ``findings``). The registry,
``anchorkit.engine.registry``, finds every folder by name; nothing here names one.
"""
