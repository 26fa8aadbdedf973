# Every linked launch counted once in overheads' T4 and in launch_stats
# alike, on every corpus trace (tests/tools/check_vocabulary.py recomputes
# the linked launches per API from each trace's JSON).
import glob, os, subprocess, sys
traces = sorted(glob.glob("tests/data/kineto/corpus/*.json.gz"))
traces += sorted(glob.glob("/work/shared/corpus/kineto/**/*.json.gz", recursive=True))
pipeline = os.environ.get("TP_PIPELINE", "build/pipeline")
subprocess.run([sys.executable, "tests/tools/check_vocabulary.py", "--pipeline", pipeline] + traces,
               check=True, stdout=subprocess.DEVNULL)
