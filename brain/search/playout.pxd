# The C interface of brain/search/playout.py: the board's, the network state's and the
# tactics' queries are C calls from the playout loop.
from brain.eval.linenet cimport LineNet, LineNetState
from brain.game.board cimport Board
from brain.game.tactics cimport is_legal, may_be_foul

cdef class Tree:
    cdef public int max_nodes, max_edges, nodes, edges
    cdef public object first, count, visits, total, proven
    cdef public object move, prior, edge_visits, edge_total, child, key, slots
    cdef public unsigned long long slot_mask
    cdef int[::1] first_v
    cdef int[::1] count_v
    cdef int[::1] visits_v
    cdef double[::1] total_v
    cdef signed char[::1] proven_v
    cdef int[::1] move_v
    cdef float[::1] prior_v
    cdef int[::1] edge_visits_v
    cdef double[::1] edge_total_v
    cdef int[::1] child_v
    cdef unsigned long long[::1] key_v
    cdef int[::1] slots_v

    cpdef int find(self, unsigned long long key)
    cpdef void insert(self, int node)
    cpdef void index_all(self)

cdef class Playouts:
    cdef public Board board
    cdef public LineNetState state
    cdef public Tree tree
    cdef public double c_puct, fpu_reduction
    cdef public int max_children, to_move, stones, max_depth, applied
    cdef public long long depth_sum
    cdef public bint renju, full
    cdef readonly object _near, _cells, _logits, _path, _nodes_path, _applied
    cdef int[::1] applied_v
    cdef int[::1] near_v
    cdef int[::1] cells_v
    cdef float[::1] logits_v
    cdef int[::1] path_v
    cdef int[::1] nodes_path_v
    cdef const unsigned long long[::1] keys_v

    cdef void _mark(self, int q, int step)
    cdef void _make(self, int q)
    cdef void _unmake(self, int q)
    cdef int _find(self, int color, int low, int high, int skip)
    cdef double _expand(self)
    cdef void _keep_best(self, int n, int k)
    cdef bint _legal(self, int color, int q)
    cdef int _select(self, int node)
    cdef void _prove(self, int node)
    cpdef int run(self, int playouts)
    cpdef rewind(self)
