"""Batch planning on Spark: every position of a CSV through `rotate select --positions -`, one
process per partition (RDD.pipe), in local mode. Run by Benchmarks/spark/run.sh.

Usage: plan.py ROTATE PLACES POSITIONS OUT_DIR PARTITIONS
Prints the job's wall time in seconds on stdout."""
import shlex
import sys
import time

from pyspark import SparkConf, SparkContext

rotate, places, positions, out, partitions = sys.argv[1:6]
conf = SparkConf().setMaster("local[2]").setAppName("rotate-batch-planning").set("spark.ui.enabled", "false")
sc = SparkContext(conf=conf)
sc.setLogLevel("ERROR")
started = time.monotonic()
rows = sc.textFile(positions, minPartitions=int(partitions))
header = rows.first()
# Each partition is a positions CSV of its own: the header, then its rows. `rotate select`
# keeps no state across rows, so any split gives the same rows; its `line` column counts within
# the partition and is not compared.
inner = "(echo {}; cat) | {} select --places {} --positions - 2>/dev/null".format(
    shlex.quote(header), shlex.quote(rotate), shlex.quote(places))
planned = rows.filter(lambda row: row != header).pipe(shlex.join(["sh", "-c", inner]), checkCode=True)
planned.filter(lambda row: not row.startswith("line,")).saveAsTextFile(out)
print(f"{time.monotonic() - started:.2f}")
sc.stop()
