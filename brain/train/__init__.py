"""Training of the policy/value network (torch). Never imported by the play path:
``brain.eval.network`` runs the exported weights in numpy.

Run ``python -m brain.train --help`` for the command line (supervised training on game
records, export of a checkpoint to a weights file).
"""
