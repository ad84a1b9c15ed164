"""The core: what a run is and how it is trained and kept, knowing no study.

The run's configuration (``config``), the task and its probe sets (``task``), the transformer and
its hooks (``model``), the projection edit (``edit``, which the routed recipe trains under), the
optimizers as values (``optimizers``) and their step (``optim``), the recipes' loss terms
(``recipes``), training over an ensemble of seeds (``train``), the scores a trajectory records
(``scores``), the run store (``store``), where things live (``paths``), the matmul kernels
(``kernels``) and progress bars (``progress``). A module here imports only the core
(``tests/acceptance/test_house.py`` checks it).
"""
