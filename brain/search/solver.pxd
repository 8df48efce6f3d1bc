# Lets the compiled module call the board's moves and threat queries, and the tactics
# module's, as C methods and functions.
from brain.game.board cimport Board
from brain.game.tactics cimport (
    cells_with,
    five_cells,
    four_cells,
    is_legal,
    line_cells,
    makes_straight_four,
    open_four_points,
    three_defences,
)
