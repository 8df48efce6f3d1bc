"""Evaluation: how good a position is and which moves look worth searching.

The evaluator interface and the pattern-model evaluator (``evaluator``), the fitted
pattern model (``patternmodel``), the policy/value network run with numpy (``network``)
and its input planes (``features``), the static evaluation and move ordering of the
alpha-beta baseline (``evaluation``) and the one-ply heuristic (``heuristic``).

May import: ``brain.game``, ``brain.resources`` (where weights live), numpy. Never
``brain.search`` (the search calls evaluators, not the other way round), never torch
(this layer is on the play path; training lives in ``brain.train``).
"""
