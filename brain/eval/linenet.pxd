# The C interface of brain/eval/linenet.py, so that the compiled playout loop updates and
# reads the network's state as C methods. The attributes are documented in linenet.py.

cdef class LineNet:
    cdef public object weights
    cdef public int dim, hidden, policy_dim
    cdef public float policy_b
    cdef readonly object _table, _w1, _b1, _w2, _b2, _w3, _b3, _pdw, _pdb, _pw
    cdef short[:, ::1] table_v
    cdef float[:, ::1] w1_v
    cdef float[::1] b1_v
    cdef float[:, ::1] w2_v
    cdef float[::1] b2_v
    cdef float[:, ::1] w3_v
    cdef float[::1] b3_v
    cdef float[:, ::1] pdw_v
    cdef float[::1] pdb_v
    cdef float[::1] pw_v

cdef class LineNetState:
    cdef public LineNet net
    cdef public int width, height, size
    cdef readonly object _geo, _codes, _features, _pooled, _scratch, _relu
    cdef float[:, ::1] relu_v
    cdef public int padded_width
    cdef int[::1] touch_start
    cdef int[::1] touch_line
    cdef int[::1] touch_unit
    cdef int[::1] touch_cell
    cdef int[::1] line_cell
    cdef int[::1] cell_pad
    cdef int[:, ::1] codes_v
    cdef int[:, ::1] shown_v
    cdef int[:, ::1] pending_v
    cdef unsigned char[:, ::1] is_pending_v
    cdef int pending_count[2]
    cdef readonly object _shown, _pending, _is_pending
    cdef short[:, :, ::1] features_v
    cdef int[:, ::1] pooled_v
    cdef float[::1] scratch_v
    cdef public double win, draw, loss

    cpdef play(self, int index, int color)
    cpdef undo(self, int index, int color)
    cdef void _update(self, int index, int color, int sign)
    cdef void _refresh(self, int frame)
    cdef void _head(self, int to_move, bint renju)
    cdef void _softmax(self, double l0, double l1, double l2)
    cpdef double value(self, int to_move, bint renju)
    cpdef policy(self, int to_move, int[::1] cells, float[::1] out)
