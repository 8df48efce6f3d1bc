"""The root of the arena's errors: :class:`ArenaError`.

Every error the arena raises for its caller (a bad command line, brain spec, tournament,
run folder, rating, opening search, board request or picture to read) derives from it,
so ``arena``'s command line catches :class:`ArenaError`, the brain package's
:class:`brain.errors.PbrainError` (rules, records, openings) and ``OSError``, and reports
each as one line. Each also keeps the built-in base it had.
"""


class ArenaError(Exception):
    """An error of the arena (see the module docstring)."""
