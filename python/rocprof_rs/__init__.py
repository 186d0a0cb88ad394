"""rocprof-rs from Python: profile an application or this process, read the Parquet dataset as
pyarrow/pandas/polars, and get the CLI's statistics, analysis, diffs and scores without a
subprocess.

>>> import rocprof_rs                                             # doctest: +SKIP
>>> ds = rocprof_rs.run(["python", "train.py"], kernel_trace=True) # doctest: +SKIP
>>> ds.stats()[0]["rows"][0]["name"]                               # doctest: +SKIP
"""

from ._native import RocprofError, version as _native_version
from .dataset import Dataset, Score
from .fitness import Evaluation, Evaluator
from .runner import Profile, dump, profile, run, start

__version__ = _native_version()

__all__ = [
    "Dataset",
    "Evaluation",
    "Evaluator",
    "Profile",
    "RocprofError",
    "Score",
    "__version__",
    "dump",
    "profile",
    "run",
    "start",
]
