"""The brain typed at in a terminal, as a person trying it by hand would (pexpect).

On a terminal stdin and stdout are a pseudo-terminal, not pipes: line discipline, CR LF
output and interactive buffering differ, and a reply must still come out at once.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect

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


def test_about_names_no_country_unless_told() -> None:
    child = spawn("--engine", "heuristic")
    try:
        child.sendline("ABOUT")
        child.expect('name="[^"]+", version="[^"]+", author="pbrain-zero team"\r\n')
        child.sendline("END")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    told = spawn("--engine", "heuristic", "--author", "Jane Roe", "--country", "Iceland")
    try:
        told.sendline("ABOUT")
        told.expect('author="Jane Roe", country="Iceland"\r\n')
        told.sendline("END")
        told.expect(pexpect.EOF)
    finally:
        told.close(force=True)
