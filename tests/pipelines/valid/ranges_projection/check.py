"""ranges_projection: the `all` table recomputed from the JSON by tests/tools/check_ranges.py
(each host range and each GPU projection counted once, a GPU range's work on its stream)."""
import os
import subprocess
import sys

sys.exit(subprocess.call([sys.executable, "tests/tools/check_ranges.py",
                          "tests/data/hand/ranges_projection.json",
                          os.path.join(sys.argv[1], "all.csv")]))
