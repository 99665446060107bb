#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Count the library's lines (issue #31): include/ and src/, compat/ left out.

Prints, per layer (include/fieldsync/<layer>/ and src/<layer>/), the lines of code, of comment
and blank: a line is blank if it holds only white space, comment if all it holds besides white
space is comment (`//`, `/* */`, Doxygen's `/** */` and `/**< */` included), code otherwise
(a line of code with a comment at its end is code).

    python3 tools/docs/lineCount.py                   # the table
    python3 tools/docs/lineCount.py --max-lines 31000 # exit 1 above 31,000 lines in all

The ceiling is set in test/CMakeLists.txt (test docs.line_count) to the count after the last
deletion: a change that adds lines to the library raises it as a conscious edit, with its
reason in doc/notes/surface.md; a change that removes lines lowers it.
"""

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUFFIXES = {".hpp", ".cpp", ".h", ".cc", ".in"}


# string and character literals (kept: a "//" inside one is code) and comments (blanked, their
# line breaks kept); a digit separator (1'000) is no character literal
LEXEMES = re.compile(
    r'"(?:\\.|[^"\\\n])*"'                     # a string literal
    r"|(?<![0-9A-Za-z_])'(?:\\.|[^'\\\n])*'"   # a character literal
    r"|//[^\n]*|/\*.*?\*/",                     # a comment
    re.S,
)


def classify(text):
    """Return (code, comment, blank) line counts of one C++ source."""
    bare = LEXEMES.sub(
        lambda m: m.group() if m.group()[0] in "\"'" else re.sub(r"[^\n]", " ", m.group()), text
    )
    code = comment = blank = 0
    for line, kept in zip(text.split("\n"), bare.split("\n")):
        if kept.strip():
            code += 1
        elif line.strip():
            comment += 1
        else:
            blank += 1
    # a file ending in a newline has no line after it
    if text.endswith("\n"):
        blank -= 1
    return code, comment, blank


def layerOf(root, path):
    parts = path.relative_to(root).parts
    if parts[0] == "include":
        parts = parts[2:]  # include/fieldsync/<layer>/...
    else:
        parts = parts[1:]  # src/<layer>/...
    return parts[0] if len(parts) > 1 else "(umbrella)"


def count(root):
    """Return {(top, layer): [code, comment, blank]}, top 'include' or 'src'."""
    table = {}
    for top in ("include", "src"):
        for path in sorted((root / top).rglob("*")):
            if not path.is_file() or path.suffix not in SUFFIXES:
                continue
            row = table.setdefault((top, layerOf(root, path)), [0, 0, 0])
            for k, value in enumerate(classify(path.read_text(encoding="utf-8"))):
                row[k] += value
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=ROOT, help="the repository root")
    parser.add_argument("--max-lines", type=int,
                        help="exit 1 if include/ and src/ hold more lines than this in all")
    args = parser.parse_args()

    table = count(args.root)
    layers = sorted({layer for _, layer in table})
    print(f"  {'layer':12} {'where':8} {'code':>7} {'comment':>8} {'blank':>7} {'lines':>7}")
    total = [0, 0, 0]
    for layer in layers:
        rows = [(top, table[(top, layer)]) for top in ("include", "src") if (top, layer) in table]
        if len(rows) > 1:
            rows.append(("both", [sum(column) for column in zip(*(row for _, row in rows))]))
        for top, row in rows:
            print(f"  {layer:12} {top:8} {row[0]:7,} {row[1]:8,} {row[2]:7,} {sum(row):7,}")
        total = [a + b for a, b in zip(total, rows[-1][1])]
    for top in ("include", "src"):
        sums = [0, 0, 0]
        for (where, _), row in table.items():
            if where == top:
                sums = [a + b for a, b in zip(sums, row)]
        print(f"  {'total':12} {top:8} {sums[0]:7,} {sums[1]:8,} {sums[2]:7,} {sum(sums):7,}")
    lines = sum(total)
    print(f"  {'total':12} {'both':8} {total[0]:7,} {total[1]:8,} {total[2]:7,} {lines:7,}")

    if args.max_lines is not None and lines > args.max_lines:
        print(f"the library holds {lines:,} lines, more than the ceiling {args.max_lines:,} "
              f"(test/CMakeLists.txt, docs.line_count): remove lines, or raise the ceiling "
              f"with its reason in doc/notes/surface.md", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
