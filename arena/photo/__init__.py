"""Reading a Gomoku position from a picture: a phone photo at an angle, a scan, a
screenshot; stones on the intersections or in the cells; any board size whose grid
shows. Not on the brain's play path: the arena's ``photo`` command
(:mod:`arena.photo.cli`) and the web board's "open a photo" use it.

:func:`arena.photo.read.read_board` does the work: the grid (:mod:`arena.photo.grid`),
the stones (:mod:`arena.photo.stones`), the position (:mod:`arena.photo.position`), and a
:class:`~arena.photo.errors.PhotoError` saying what was wrong when there is no position
to read. :mod:`arena.photo.synth` draws and photographs boards with known positions (the
test and measurement data), :mod:`arena.photo.fit` fits the stone classifier on them.
Needs the ``photo`` extra (OpenCV): ``pip install -e ".[photo]"``.
"""
