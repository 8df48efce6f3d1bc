"""The root of the driver's errors: :class:`DriverError`.

A brain process that fails (:class:`driver.client.BrainError` and its kinds), a teacher
that cannot label (:class:`driver.teacher.TeacherError`) and a Ray cluster that cannot be
reached (:class:`driver.cluster.ClusterUnavailable`) all derive from it.
"""


class DriverError(Exception):
    """An error while driving an engine or a cluster (see the module docstring)."""
