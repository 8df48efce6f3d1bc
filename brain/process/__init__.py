"""The brain process: Gomocup commands in, replies out.

:mod:`brain.process.loop`
    reads stdin on a thread (each line timestamped, END and YXSTOP handled at once) and
    hands the commands in order to the session; writes the reply lines.
:mod:`brain.process.session`
    one brain's game state and its answer to each command: board, rule, time settings,
    the engine's search in a worker thread watched by a hard deadline.
:mod:`brain.process.analysis`
    the search reports a manager may ask for (``INFO show_detail`` / ``show_analysis``).
:mod:`brain.process.logs`
    where the log goes: a file or nowhere, warnings as ``MESSAGE`` lines, never stderr.
:mod:`brain.process.memory`
    the memory the process holds, compared with a manager's ``INFO max_memory``.

``python -m brain`` (:mod:`brain.__main__`) builds the engine and runs the loop. These
modules use the searches through :mod:`brain.engine` and the wire format of
:mod:`protocol`; nothing below the process imports them.
"""
