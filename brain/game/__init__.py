"""The game core: the rules of play and nothing about choosing a move.

Boards with incremental line patterns (``board``, ``patterns``), the rule variants
(``rules``), renju fouls (``forbidden``), the referee that judges a move (``referee``),
threat queries on a position (``tactics``), board symmetries (``symmetry``), coordinate
notation (``notation``), opening positions (``openings``) and game records with their
files, JSON lines, PSQ and SGF (``records``, for the arena and the trainer alike).

May import: numpy and the standard library, and other modules of this package. Never
``brain.eval``, ``brain.search``, the protocol loop, ``protocol`` or ``arena``: everything
else builds on this layer, and the arena uses it to referee games.
"""
