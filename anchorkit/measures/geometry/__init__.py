"""The essay's head-level measurements (the essay's page, notebooks/geometry-of-anchors.ipynb): Killing form, sinks, value content, alignment.

Every measure works per head of each block. Weights come as an ensemble model (leading run
dimension E) or as a state dict (one run's, keys like ``blocks.0.W_Q`` of shape (D, D), or an
ensemble's, shape (E, D, D)); either way the result carries a leading run axis E (1 for a single
state). Shapes below: E runs, L blocks, H heads, D = d_model, dh = D / H, B contexts, T positions.

Head h of a block reads columns ``h*dh:(h+1)*dh`` of W_Q, W_K, W_V and writes through rows
``h*dh:(h+1)*dh`` of W_O (row-vector convention, ``q = n @ W_Q + b_Q``), so its maps on the
residual stream are the D×D matrices

- W_OV_h = W_V[:, h] @ W_O[h, :]  (what the head writes, given what it attends to),
- W_QK_h = W_Q[:, h] @ W_K[:, h]ᵀ (which states attend to which).

The essay's "Killing form" of a layer is its heads' pairwise non-commutativity; the bilinear
Killing form on gl(D) is given too (``killing_form``). "Anchor" and "worker" here name classes of
heads (an anchor head), not the glossary's anchor (a concept put on a direction by a recipe).

The package's modules, each one idea: ``maps`` (the heads' maps and their algebra), ``heads``
(sinks, value content, anchor and worker classes, change), ``alignment`` (the gradient alignment)
and ``tables`` (the per-run head and layer tables); every name is read from here.
"""

from anchorkit.measures.geometry.maps import *  # noqa: F401,F403
from anchorkit.measures.geometry.heads import *  # noqa: F401,F403
from anchorkit.measures.geometry.alignment import *  # noqa: F401,F403
from anchorkit.measures.geometry.tables import *  # noqa: F401,F403
from anchorkit.measures.geometry.picture import *  # noqa: F401,F403
