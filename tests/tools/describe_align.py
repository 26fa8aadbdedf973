"""Checks that `pipeline describe STAGE` lines up, for every stage
`pipeline plugins` lists: in the options table and in each result's columns
table, every row's TYPE, DEFAULT/UNIT and RANGE cells start where the
header's words do (a space before, text at the column).  Prints
"stages N, misaligned lines M" (and each misaligned line)."""
import subprocess
import sys

pipeline = sys.argv[1]
listing = subprocess.run([pipeline, "plugins"], capture_output=True, text=True, check=True).stdout
stages = [line.split()[1] for line in listing.splitlines()[1:] if len(line.split()) > 1]
bad = 0
for stage in stages:
    text = subprocess.run([pipeline, "describe", stage], capture_output=True, text=True).stdout
    starts = None
    for line in text.splitlines():
        if line.startswith("  OPTION ") or line.startswith("    COLUMN "):
            words = line.split()
            starts = [line.index(w) for w in words[1:]]
            continue
        if not line.strip():
            starts = None
        if starts is None or line.startswith("  result") or line.startswith("  (no"):
            continue
        # a cell starts where its header word does: a space before it; every
        # cell but an option's RANGE/CHOICES (often empty) has text there
        empty_ok = {2} if len(starts) == 4 else set()
        if any(c > len(line) or line[c - 1] != " " or
               (i not in empty_ok and (c == len(line) or line[c] == " "))
               for i, c in enumerate(starts)):
            print("misaligned: %s: %s" % (stage, line[:100]))
            bad += 1
print("stages %d, misaligned lines %d" % (len(stages), bad))
