"""The brain typed at in a terminal, as a person trying it by hand would (pexpect).

On a terminal stdin and stdout are a pseudo-terminal, not pipes: line discipline, CR LF
output and interactive buffering differ, and a reply must still come out at once.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect

from brain import __version__

ROOT = Path(__file__).resolve().parents[1]
MOVE = r"\d+,\d+\r\n"


def spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "brain", *args], cwd=str(ROOT),
                         encoding="utf-8", timeout=30, echo=False)


def test_a_game_typed_at_the_terminal() -> None:
    child = spawn("--engine", "mcts")
    try:
        child.sendline("START 15")
        child.expect_exact("OK\r\n")
        child.sendline("INFO timeout_turn 300")
        child.sendline("BEGIN")
        child.expect("7,7\r\n")  # the centre of an empty board
        child.sendline("TURN 8,8")
        child.expect(MOVE)
        child.sendline("NONSENSE")
        child.expect("UNKNOWN [^\r\n]+\r\n")
        child.sendline("TURN 99,99")
        child.expect("ERROR [^\r\n]+\r\n")
        child.sendline("END")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def about(*args: str) -> str:
    """The ABOUT line of a brain started with ``args``, typed at the terminal."""
    child = spawn("--engine", "heuristic", *args)
    try:
        child.sendline("ABOUT")
        child.expect("([^\r\n]+)\r\n")
        line = child.match.group(1)
        child.sendline("END")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    return line


def test_about_names_no_country_unless_told() -> None:
    assert about() == (f'name="pbrain-heuristic", version="{__version__}", '
                       'author="pbrain-zero team"')
    told = about("--author", "Jane Roe", "--country", "Iceland")
    assert told.endswith('author="Jane Roe", country="Iceland"')
