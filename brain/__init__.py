"""pbrain-zero: a Gomocup brain with a pattern-based game core, a threat solver and search.

Submodules are imported lazily by their users so that ``python -m brain`` answers the
manager's first command quickly.
"""

__version__ = "0.1.0"
