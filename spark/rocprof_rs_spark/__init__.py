"""rocprof-rs's analyses on Apache Spark: a run directory as one DataFrame per table, and
``rocprof-rs stats``, ``rocprof-rs ranks`` and the per-kernel counter aggregation as Spark
SQL, for runs too large for one machine.

    from pyspark.sql import SparkSession
    from rocprof_rs_spark import Dataset, stats

    spark = SparkSession.builder.getOrCreate()
    run = Dataset(spark, "s3a://bucket/run")
    run.require("kernel_dispatch").groupBy("rank").count().show()
    sections = stats.compute(run)

The command line prints the same JSON as the Rust commands:
``python -m rocprof_rs_spark stats|ranks|counters DIR --format json``.
"""

from .dataset import TABLES, Dataset, read_table

__all__ = ["TABLES", "Dataset", "read_table"]
__version__ = "0.1.0"
