# The C interface of brain/game/tactics.py: the compiled searches (solver, mcts) call
# these queries as C functions. Colours are C ints (1 black, 2 white).
from brain.game.board cimport Board

cpdef bint is_legal(Board board, int color, int index)
cpdef list cells_with(Board board, int color, int low, int high)
cpdef bint may_be_foul(Board board, int cell)
cpdef list five_cells(Board board, int color)
cpdef list four_cells(Board board, int color)
cpdef list three_cells(Board board, int color)
cpdef list open_four_points(Board board, int color)
cpdef bint makes_straight_four(Board board, int color, int index)
cpdef list line_cells(Board board, int index, int direction, int reach=*)
cpdef list three_defences(Board board, int attacker, list points)
