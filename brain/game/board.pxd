# The C interface of brain/game/board.py's Board, so that the compiled search modules
# (tactics, solver, mcts) call its moves and threat queries as C methods instead of
# through Python. The attributes are documented in board.py.

cdef class Board:
    cdef public int width, height, size
    cdef public object rule
    cdef public bint black_fouls
    cdef public bytearray cells
    cdef public object keys, patterns, threats
    cdef public list history
    cdef public object to_move, hash
    cdef public list stone_count
    cdef readonly object _geo
    cdef readonly tuple _zobrist
    cdef readonly object _tables, _threat_table, _double_four, _key_steps
    cdef unsigned char[::1] _cells_v
    cdef unsigned int[::1] _keys_v
    cdef unsigned int[::1] _steps_v
    cdef unsigned char[::1] _patterns_v
    cdef unsigned char[::1] _threats_v
    cdef unsigned char[:, ::1] _tables_v
    cdef unsigned char[::1] _threat_table_v
    cdef int[::1] _touch_start
    cdef int[::1] _touch_line
    cdef unsigned int[::1] _touch_unit
    cdef int[::1] _cell_start
    cdef int[::1] _cell_list
    cdef unsigned char[::1] _double_four_v
    # Compiled only: empty cells per colour and threat level, kept by _update.
    cdef int _level_count[3][16]

    cpdef place(self, int index, object color)
    cpdef play(self, int index)
    cpdef tuple undo(self)
    cpdef bint is_full(self)
    cdef void _update(self, int index, int color, bint add)
    cdef void _count_levels(self)
    cdef void _copy_levels(self, Board source)
    cdef int _count_between(self, int color, int low, int high)
    cpdef int line_pattern(self, int color, int index, int direction)
    cpdef int threat_at(self, int color, int index)
    cpdef list threat_cells(self, int color, int low, int high)
    cpdef bint has_threat(self, int color, int low, int high)
    cpdef bint line_double_four(self, int index, int direction)
    cpdef bint any_threat_after(self, int color, list cells, int stone, int stone_color,
                                int level)
    cdef void _lay_steps(self, int stone, unsigned int unit)
    cdef int _threat_with_steps(self, int own, int q)
