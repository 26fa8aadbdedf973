"""The applied curve's errors recomputed in Python; the same file on another device's
preset warns, naming both."""
import os
import subprocess
import sys

out = sys.argv[1]
subprocess.run([sys.executable, "tests/tools/check_calibration.py", "tests/data/hand/predict_calib.json",
                "1000", out, "tests/data/hand/predict_calib_curve.json"], check=True)
here = os.path.dirname(os.path.abspath(__file__))
text = open(os.path.join(here, "pipeline.yaml")).read().replace(
    "preset_file: tests/data/hand/predict_calib_device.yaml", "preset: a100_sxm4_80gb")
os.makedirs(out + "/mismatch", exist_ok=True)
open(out + "/mismatch/pipeline.yaml", "w").write(text)
r = subprocess.run([os.environ.get("TP_PIPELINE", "build/pipeline"), "run", out + "/mismatch/pipeline.yaml",
                    "--set", "out=" + out + "/mismatch"], capture_output=True, text=True)
want = "fitted on calib_test_gpu, not on this trace's preset a100_sxm4_80gb"
if r.returncode != 0 or want not in r.stderr:
    sys.exit(f"device mismatch: exit {r.returncode}, stderr {r.stderr!r}")
print("device mismatch warned:", next(l for l in r.stderr.splitlines() if want in l))
