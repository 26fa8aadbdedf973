"""Helpers of the independent checkers (tests/pipelines/*/check.py,
tests/tools/check_*.py): plain Python, no tracepipe code."""
from decimal import Decimal


def union(intervals):
    """Length of the union of [start, end) intervals (touching ones merge)."""
    total, end = 0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def ns(us):
    """Exact integer nanoseconds of a JSON microsecond value read as Decimal
    (as the reader converts the decimal text)."""
    return int(Decimal(us) * 1000)


def load_events(path):
    """The traceEvents of a Kineto JSON trace (.json or .json.gz), numbers with a
    fraction read as Decimal (exact, for ns)."""
    import gzip
    import json
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f, parse_float=Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data
