# Lets the compiled module call the board's moves and threat queries as C methods.
from brain.game.board cimport Board
