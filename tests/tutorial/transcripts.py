#!/usr/bin/env python3
"""The tutorial's sample output against what its commands printed (scripts/test-tutorial).

    transcripts.py TRANSCRIPTS.json OUT_DIR TMPDIR      exit 0: every transcript matches

TRANSCRIPTS.json lists each `text` block of docs/TUTORIAL.md with the number of the `sh`
block it follows; OUT_DIR/N is what block N printed (standard output and error). Both
sides are normalised the same way, then compared line by line. The normalisation
forgives only what truly varies from one run to the next:

- a date or a time of day (RFC 3339, `2026-12-06 10:37`, `10:37:02`, a weekday's
  name), each read as `<time>`;
- the temporary directory the tutorial made (`mktemp -d` under TMPDIR), read as `$wd`,
  as the tutorial writes it;
- the widths that follow from those: a run of spaces, and a run of a box's `─`, count
  as one (a box is as wide as its longest line).

Everything else, words, order, values, the box's lines themselves, must be the same.
"""

import json
import os
import re
import sys

TIMES = [
    # RFC 3339 and ISO 8601 date-times, with or without seconds, fraction and zone.
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}| ?[A-Z]{2,5}\b)?",
    r"\d{4}-\d{2}-\d{2}",
    r"\b\d{1,2}:\d{2}(:\d{2})?( ?[AP]M)?( [A-Z]{2,5}\b)?",
    r"\b(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b",
]


def normalise(text, tmpdir):
    if tmpdir:
        text = re.sub(re.escape(tmpdir.rstrip("/")) + r"/[^/\s'\"]+", "$wd", text)
    for pattern in TIMES:
        text = re.sub(pattern, "<time>", text)
    text = re.sub(r"─{2,}", "─", text)
    text = re.sub(r" {2,}", " ", text)
    return [line.rstrip() for line in text.rstrip("\n").split("\n")]


def main(arguments):
    transcripts_path, out_dir, tmpdir = arguments
    with open(transcripts_path) as f:
        transcripts = json.load(f)
    failed = 0
    for transcript in transcripts:
        with open(os.path.join(out_dir, str(transcript["block"])), encoding="utf-8", errors="replace") as f:
            printed = f.read()
        expected = normalise("\n".join(transcript["text"]), tmpdir)
        actual = normalise(printed, tmpdir)
        if expected == actual:
            continue
        failed += 1
        print(f"transcripts: docs/TUTORIAL.md line {transcript['line']}: the sample output of block "
              f"{transcript['block']} is not what it printed", file=sys.stderr)
        for number, (want, got) in enumerate(zip(expected + [""] * len(actual), actual + [""] * len(expected)), 1):
            if want != got:
                print(f"  first difference, line {number} (normalised):\n    shown:   {want!r}\n    printed: {got!r}",
                      file=sys.stderr)
                break
        print("  what it printed:\n" + "\n".join("    " + line for line in printed.rstrip("\n").split("\n")),
              file=sys.stderr)
    print(f"test-tutorial: {len(transcripts) - failed} of {len(transcripts)} transcripts are what the commands print")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
