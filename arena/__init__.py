"""The arena: rated tournaments of Gomocup brains (``python -m arena``).

``cli`` is the command line (``run``, ``rate``, ``check``, ``openings``, ``board``). A run
(``tournament``) plays its ``schedule`` of pairs, each game refereed by ``game`` with the
brains driven as processes (:mod:`driver.client`) and the rules of the game core
(:mod:`brain.game.referee`), keeps everything in its folder (``rundir``, games as
:mod:`brain.game.records`) and rates the brains (``stats``, ``report``, ``progress``).
``brainspec`` reads a brain argument, ``check`` tests one brain's protocol compliance,
``balance`` finds openings a judge brain rates even, ``cluster`` plays games as Ray tasks
and ``reaper`` ends brains a killed worker left behind; ``board/`` is the web board.

Every error of the arena derives from :class:`arena.errors.ArenaError`.
"""
