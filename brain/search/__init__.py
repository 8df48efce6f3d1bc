"""Search: choosing a move within a time budget.

The searcher interface every engine implements and the one record of what a search did
(``searcher``: :class:`~brain.search.searcher.Searcher`,
:class:`~brain.search.searcher.SearchInfo`), the Monte Carlo tree search of pbrain-zero
(``mcts``), the classic alpha-beta baseline (``alphabeta``), the VCF/VCT threat solver
both rely on (``solver``) and the split of the game's time into move budgets
(``timecontrol``).

May import: ``brain.game``, ``brain.eval``, numpy. Never the protocol loop, ``protocol``
or ``arena``: a search knows positions and deadlines, not managers.
"""
