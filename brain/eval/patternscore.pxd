# Lets the compiled module read the board's own typed views.
from brain.game.board cimport Board
