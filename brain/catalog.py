"""The engines ``python -m brain`` can run, by name.

Kept apart from :mod:`brain.engine`, which builds them, so that the arena can compose a
brain's command line without loading any evaluator or search.
"""

from __future__ import annotations

#: The values of ``--engine``.
ENGINE_NAMES = ("heuristic", "mcts", "linenet", "alphabeta")
#: The line-pattern network's weights in the weights folder (``--engine linenet``).
LINE_NETWORK_FILE = "linenet.npz"
#: The engine pbrain-zero plays with unless told otherwise.
DEFAULT_ENGINE = "linenet"
#: What the network does in the tree search: re-rank the moves of the nodes the search
#: returns to, the pattern model valuing every leaf ("priors"); or value every leaf
#: and give its priors ("leaves").
NETWORK_ROLES = ("priors", "leaves")
#: Playouts' worth of weight the network's value of each node it re-ranks gets in the
#: ``priors`` role (``--network-value``): with the network fine-tuned on Rapfi's labels, 8
#: against 0 scored 13-9-2 and 16 against 8 24-21-3 (1 s/move, docs/network.md).
DEFAULT_NETWORK_VALUE = 8
