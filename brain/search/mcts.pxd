# Lets the compiled module call the board's moves and threat queries, and the tactics
# module's, as C methods and functions.
from brain.game.board cimport Board
from brain.game.tactics cimport (
    four_cells,
    line_cells,
    open_four_points,
    three_cells,
    three_defences,
)
