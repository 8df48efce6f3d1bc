"""Driving Gomocup engines from outside: what the arena and the trainer share.

:mod:`driver.client`
    :class:`~driver.client.BrainProcess`, one brain process over pipes: spawned in its own
    session, every request timed, every failure a typed
    :class:`~driver.client.BrainError`.
:mod:`driver.teacher`
    a teacher: any brain asked for its move in positions, with its judgement of them
    (labelling training positions, judging openings).
:mod:`driver.judgement`
    what an engine said about a position, read from its ``MESSAGE`` lines (our
    ``ANALYSIS``, Yixin-Board's ``REALTIME``, Rapfi's search lines).
:mod:`driver.cluster`
    a connection to a Ray cluster, which runs the arena's games and the trainer's
    self-play on many machines (the job ships this checkout).

Every error of the package derives from :class:`driver.errors.DriverError`. The wire
format itself (commands, replies, their syntax) is :mod:`protocol`; this package
only uses it. ``arena`` and ``brain.train`` may import it; nothing of ``brain``'s play
path does.
"""
