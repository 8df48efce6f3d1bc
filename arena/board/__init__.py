"""The web board: play any brain the arena runs, watch its search, follow a tournament.

``python -m arena board [BRAIN ...]`` serves it (:mod:`arena.board.server`); ``arena run
--serve`` and ``arena rate --serve`` add the tournament page. The live game is
:mod:`arena.board.live`, the tournament page's data :mod:`arena.board.runview`, the page
itself ``static/`` (plain JavaScript and SVG). Needs the ``board`` extra (Starlette and
uvicorn): ``pip install -e ".[board]"``.
"""
