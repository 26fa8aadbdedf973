"""The fit, its file and its leave-one-iteration-out GMAE recomputed in Python."""
import subprocess
import sys

subprocess.run([sys.executable, "tests/tools/check_calibration.py", "tests/data/hand/predict_calib.json",
                "1000", sys.argv[1]], check=True)
