"""The builds of pbrain-zero: ``python -m brain.build [--target windows]``.

:mod:`brain.build.bundle`
    the PyInstaller build (one folder, one file) and the Gomocup submission zip; the
    command line (``python -m brain.build``).
:mod:`brain.build.windows`
    the Windows build made on Linux: a Windows CPython under wine runs the bundle.
:mod:`brain.build.extensions`
    the C that Cython generates for the compiled search core (:mod:`brain.native` lists
    its modules), and the extensions ``pip install`` builds from it (``setup.py``).

Nothing here is on the play path, and no build ships this package.
"""
