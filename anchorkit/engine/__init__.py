"""The engine: what runs a study, knowing no study by name. Regimes and profiles as values, a
pair's measuring (``pairs``), the study value (``study``) and its task graph (``pipeline``) on
the executor, tables written with their provenance, the reader's request, the registry that finds
the studies' folders, running a study as a request asks (``protocol``) and what that will do
(``plan``); ``formatting``, how numbers read, for every layer above.
"""
