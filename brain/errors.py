"""The root of the errors the brain package raises for its callers to handle.

Every error class of ``brain`` derives from :class:`PbrainError` (bad input such as a board
size, a move, a rule, a notation, an opening, record, weights or checkpoint file; a
failed build or teacher run; a command the brain cannot carry out), so a caller can catch
them all at once. Each also keeps the built-in base it had (``ValueError`` or
``RuntimeError``), so handlers written for those still catch it.
"""


class PbrainError(Exception):
    """An error of the brain package (see the module docstring)."""
