"""pbrain-zero: a Gomocup brain with a pattern-based game core, a threat solver and search.

The package is layered; each layer imports only the ones below it:

``brain.game``
    the rules: boards, patterns, renju fouls, referee, symmetry, notation, openings.
``brain.eval``
    evaluators: the pattern model, the policy/value network (numpy), heuristics.
``brain.search``
    the tree search, the alpha-beta baseline, the threat solver, time control.
``brain.engine``
    the engines ``python -m brain`` can run, built by name (the names in ``catalog``).
``brain.process``
    the process that speaks the protocol: the stdin loop, the session, the search
    reports, the log, the memory check; ``brain.__main__`` starts it.
``brain.build``
    the builds (PyInstaller, the Windows build, the compiled core's C extensions).
``brain.train``
    the PyTorch training pipeline; the only place torch is imported.

``brain.native`` (the compiled search core: its module list and the choice between each
module's extension and its Python, installed below), ``brain.resources`` (where data
files live) and ``brain.catalog`` import nothing of the project and may be used from
every layer, and by ``arena``. Submodules are imported lazily by their users so that
``python -m brain`` answers the manager's first command quickly.
"""

__version__ = "0.1.0"

from brain import native as _native

# Before any module of the package loads: each compiled module of the search core is
# imported as its extension where it is built and fresh, else as Python (brain.native).
_native.install()
