#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Docs that cannot drift: every C++ code block of README.md and doc/**/*.md is a region of a
source file that the build compiles (and, for test sources, runs), or says why it is not.

The line right before a block's opening fence names its origin, as an HTML comment that the
rendered page does not show:

    <!-- code: test/mpi/docExamples.cpp [allReduce] -->
    ```cpp
    ...
    ```

and the source holds the same lines between two `// [allReduce]` marker lines. The comparison
ignores the common indentation and trailing blanks. A block that cannot be compiled here (another
project's code, as the "before" of a port) says so: `<!-- code: not compiled: <reason> -->`.

Usage: checkSnippets.py <source dir>. Exits 1 naming each block that differs (with a diff), has
no annotation, or names a region that does not exist; prints what it checked.
"""
import difflib
import pathlib
import re
import sys
import textwrap

ANNOTATION = re.compile(r"^<!-- code: (?:(?P<skip>not compiled: .+)|(?P<path>\S+) \[(?P<name>[^\]]+)\]) -->$")
FENCE = re.compile(r"^```(cpp|c\+\+)\s*$")


def normalise(lines):
    """The lines without their common indentation and trailing blanks, blank lines at the ends
    dropped."""
    text = textwrap.dedent("\n".join(line.rstrip() for line in lines))
    return text.strip("\n").split("\n")


def region(source, name):
    """The lines between the first two `// [name]` marker lines of @p source, or None."""
    marker = f"// [{name}]"
    lines = source.read_text().split("\n")
    marks = [k for k, line in enumerate(lines) if line.strip() == marker]
    if len(marks) < 2:
        return None
    return lines[marks[0] + 1 : marks[1]]


def blocks(page):
    """(line number of the fence, annotation line or None, the block's lines) per C++ block."""
    lines = page.read_text().split("\n")
    k = 0
    while k < len(lines):
        if FENCE.match(lines[k]):
            start = k
            end = k + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            annotation = lines[start - 1] if start > 0 else None
            yield start + 1, annotation, lines[start + 1 : end]
            k = end
        k += 1


def main(root):
    root = pathlib.Path(root)
    pages = [root / "README.md"] + sorted((root / "doc").rglob("*.md"))
    failures = []
    checked = skipped = 0
    for page in pages:
        for line, annotation, body in blocks(page):
            where = f"{page.relative_to(root)}:{line}"
            match = ANNOTATION.match(annotation or "")
            if match is None:
                failures.append(f"{where}: a C++ block without `<!-- code: <source> [<region>] -->` "
                                "on the line before it")
                continue
            if match["skip"]:
                skipped += 1
                print(f"{where}: {match['skip']}")
                continue
            source = root / match["path"]
            if not source.is_file():
                failures.append(f"{where}: names {match['path']}, which does not exist")
                continue
            expected = region(source, match["name"])
            if expected is None:
                failures.append(f"{where}: {match['path']} has no region `// [{match['name']}]` "
                                "(two marker lines)")
                continue
            if normalise(body) != normalise(expected):
                diff = difflib.unified_diff(normalise(expected), normalise(body),
                                            f"{match['path']} [{match['name']}]", where, lineterm="")
                failures.append(f"{where}: differs from {match['path']} [{match['name']}]:\n"
                                + "\n".join(diff))
                continue
            checked += 1
    print(f"{checked} C++ blocks equal to compiled sources, {skipped} marked not compiled")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
