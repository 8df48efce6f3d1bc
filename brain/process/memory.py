"""The memory this process holds, as the operating system counts it.

A manager's ``INFO max_memory`` limits the brain's whole process, so the brain compares
it with what the process already holds (interpreter, numpy, weights, line tables) before
its tree search grows: :func:`resident_bytes` reads the resident set (the working set on
Windows, where Gomocup's managers measure it).
"""

from __future__ import annotations

import os
import sys


def resident_bytes() -> int | None:
    """The process's resident memory now, in bytes, or None where it cannot be read.

    Linux: ``/proc/self/statm``. Windows: the working set (``GetProcessMemoryInfo``).
    Elsewhere: the peak resident set (``getrusage``), an upper bound of the current one.
    """
    try:
        if sys.platform == "win32":
            return _windows_working_set()
        if os.path.exists("/proc/self/statm"):
            with open("/proc/self/statm") as statm:
                return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # macOS counts bytes
    except (OSError, ValueError, AttributeError, ImportError):
        return None


def _windows_working_set() -> int | None:
    import ctypes
    from ctypes import wintypes

    class Counters(ctypes.Structure):
        _fields_ = [("cb", wintypes.DWORD), ("PageFaultCount", wintypes.DWORD),
                    *((name, ctypes.c_size_t) for name in (
                        "PeakWorkingSetSize", "WorkingSetSize", "QuotaPeakPagedPoolUsage",
                        "QuotaPagedPoolUsage", "QuotaPeakNonPagedPoolUsage",
                        "QuotaNonPagedPoolUsage", "PagefileUsage", "PeakPagefileUsage"))]

    counters = Counters()
    counters.cb = ctypes.sizeof(Counters)
    kernel32 = ctypes.WinDLL("kernel32")  # type: ignore[attr-defined]
    kernel32.GetCurrentProcess.restype = wintypes.HANDLE
    if not kernel32.K32GetProcessMemoryInfo(kernel32.GetCurrentProcess(),
                                            ctypes.byref(counters), counters.cb):
        return None
    return int(counters.WorkingSetSize)
