#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Count fieldsync's public surface (issue #31).

Prints, per layer (include/fieldsync/<layer>/), the public types: the class, struct, union and
enum names declared at namespace scope outside any `detail` (or anonymous) namespace, each
counted once however often it is declared or specialised. A type only declared in include/
(`class CommunicatorState;`, the engine behind a public class) is listed as opaque and not
counted: a caller cannot use it. Type aliases (`using X = ...`) at namespace scope are counted
apart: an alias adds no new type to learn.
Then it prints the public members of `fieldsync::halo::Communicator`: the distinct names
declared in its public sections (an overload set counts once; constructors, the destructor and
assignment operators are left out). A name all of whose declarations are `[[deprecated]]` is
listed apart as "deprecated, leaving" and not counted: it goes with the next minor release.

    python3 tools/docs/publicSurface.py               # the counts and the names, per layer
    python3 tools/docs/publicSurface.py --quiet       # the counts only
    python3 tools/docs/publicSurface.py --max-types 45 --max-members 25   # exit 1 above them

Reads the headers only (no compiler): comments, string literals and preprocessor lines are
dropped, then braces are matched to know which namespace or class each declaration sits in.
"""

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|::|->|\d[\w.']*|\S")
TYPE_KEYS = {"class", "struct", "union", "enum"}


def strip(text):
    """Return the text without comments, string/char literals and preprocessor lines."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'R"(\w*)\(.*?\)\1"', '""', text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    lines, skipping = [], False
    for line in text.split("\n"):
        if skipping or line.lstrip().startswith("#"):
            skipping = line.rstrip().endswith("\\")
            continue
        lines.append(line)
    return "\n".join(lines)


def skipTemplateHeader(tokens, i):
    """From `template` at i, return the index after its matching `>`."""
    i += 1
    if i >= len(tokens) or tokens[i] != "<":
        return i
    depth = 0
    while i < len(tokens):
        t = tokens[i]
        if t in "([{":
            depth += 100
        elif t in ")]}":
            depth -= 100
        elif t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def matching(tokens, i, open_, close):
    """Return the index of the token that closes the bracket opened at i."""
    depth = 0
    while i < len(tokens):
        if tokens[i] == open_:
            depth += 1
        elif tokens[i] == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return i


class Scanner:
    """Walks one header's tokens, collecting namespace-scope types and class members."""

    def __init__(self, tokens):
        self.tokens = tokens
        self.types = []  # (qualified name, kind, public?)
        self.aliases = []  # (qualified name, public?)
        self.opaque = []  # declared but not defined here: (qualified name, public?)
        # qualified class name -> {member name: [declarations, of them [[deprecated]]]}
        self.members = {}

    def run(self):
        self.namespaceBody(0, len(self.tokens), [], True)
        return self

    def namespaceBody(self, i, end, names, public):
        t = self.tokens
        while i < end:
            if t[i] == "namespace":
                j = i + 1
                parts = []
                while j < end and t[j] not in ("{", "=", ";"):
                    if t[j] not in ("::", "inline"):
                        parts.append(t[j])
                    j += 1
                if j < end and t[j] == "{":
                    close = matching(t, j, "{", "}")
                    inner = public and bool(parts) and "detail" not in parts
                    self.namespaceBody(j + 1, close, names + parts, inner)
                    i = close + 1
                else:
                    i = self.skipStatement(i, end)
                continue
            if t[i] == "extern" and i + 2 < end and t[i + 1] == '""' and t[i + 2] == "{":
                close = matching(t, i + 2, "{", "}")
                self.namespaceBody(i + 3, close, names, public)
                i = close + 1
                continue
            i = self.declaration(i, end, names, public)

    def skipStatement(self, i, end):
        """Skip to after the next `;` at this level (a `{...}` body ends a statement too)."""
        t = self.tokens
        while i < end:
            if t[i] == ";":
                return i + 1
            if t[i] in "([":
                i = matching(t, i, t[i], ")" if t[i] == "(" else "]") + 1
                continue
            if t[i] == "{":
                close = matching(t, i, "{", "}")
                j = close + 1
                # a class or enum definition or an initialiser is followed by `;`
                if j < end and t[j] == ";":
                    return j + 1
                return j
            i += 1
        return i

    def declaration(self, i, end, names, public, className=None, access=None):
        """Read one declaration at namespace scope (className None) or class scope."""
        t = self.tokens
        start = i
        if t[i] == "template":
            i = skipTemplateHeader(t, i)
        if i < end and t[i] == "friend":
            return self.skipStatement(i, end)
        if i < end and t[i] == "using":
            j = i + 1
            if j + 1 < end and t[j + 1] == "=":
                self.record(names, className, access, public, t[j], alias=True)
            elif t[j] != "namespace":
                k = j
                while k < end and t[k] != ";":
                    k += 1
                self.record(names, className, access, public, t[k - 1], alias=True)
            return self.skipStatement(i, end)
        # class/struct/union/enum head: `[attr] class [attr] Name [final] [: bases] {` or `;`
        j = i
        while j < end and t[j] in ("typedef", "constexpr", "inline"):
            j += 1
        if j < end and t[j] in TYPE_KEYS:
            kind = t[j]
            k = j + 1
            if kind == "enum" and k < end and t[k] in ("class", "struct"):
                kind, k = "enum class", k + 1
            while k < end and t[k] == "[":
                k = matching(t, k, "[", "]") + 1
            if k < end and re.match(r"[A-Za-z_]", t[k]) and t[k] not in ("final",):
                name = t[k]
                k += 1
                if k < end and t[k] == "<":  # a specialisation: the same name again
                    k = matching(t, k, "<", ">") + 1
                while k < end and t[k] not in ("{", ";", "(", "=") and t[k] != ")":
                    k += 1
                if k < end and t[k] in ("{", ";"):
                    self.record(names, className, access, public, name,
                                kind=kind if t[k] == "{" else None)
                    if t[k] == "{":
                        close = matching(t, k, "{", "}")
                        if kind in ("class", "struct"):
                            self.classBody(k + 1, close, names + [name], public,
                                           "private" if kind == "class" else "public")
                        k = close + 1
                        # `struct X {...} x;` declares a variable too; skip to the `;`
                        return self.skipStatement(k, end) if k < end and t[k] != ";" else k + 1
                    return k + 1
        if className is not None:
            self.member(start, end, names, className, access, public)
        return self.skipStatement(i, end)

    def classBody(self, i, end, names, public, access):
        t = self.tokens
        className = "::".join(names)
        self.members.setdefault(className, {})
        while i < end:
            if t[i] in ("public", "private", "protected") and i + 1 < end and t[i + 1] == ":":
                access = t[i]
                i += 2
                continue
            if t[i] == ";":
                i += 1
                continue
            i = self.declaration(i, end, names, public, className=names[-1], access=access)

    def member(self, i, end, names, className, access, public):
        """Record the name a member declaration (function or data) introduces."""
        if access != "public" or not public:
            return
        t = self.tokens
        if t[i] == "template":
            i = skipTemplateHeader(t, i)
        name = None
        deprecated = False
        k = i
        while k < end and t[k] not in (";", "{"):
            if t[k] == "operator":
                op = []
                k += 1
                while k < end and not (t[k] == "(" and op):
                    op.append(t[k])
                    k += 1
                name = "operator" + "".join(op)
                break
            if t[k] == "(":
                name = t[k - 1] if k > i else None
                break
            if t[k] == "[" and k + 1 < end and t[k + 1] == "[":
                close = matching(t, k, "[", "]")
                deprecated = deprecated or "deprecated" in t[k:close]
                k = close + 1  # an attribute
                continue
            if t[k] in ("=", "["):
                break
            if t[k] == "<":
                k = matching(t, k, "<", ">") + 1
                continue
            if re.match(r"[A-Za-z_]", t[k]):
                name = t[k]
            k += 1
        if not name or name in ("static_assert",):
            return
        if name == className or name == "~" or name == "operator=":
            return  # constructors, destructor, assignment
        if k > 0 and t[k - 2 if t[k - 1] == name else k - 1] == "~":
            return
        table = self.members.setdefault("::".join(names), {})
        counts = table.setdefault(name, [0, 0])
        counts[0] += 1
        counts[1] += 1 if deprecated else 0

    def record(self, names, className, access, public, name, kind=None, alias=False):
        if className is not None:
            if access == "public" and public:
                table = self.members.setdefault("::".join(names), {})
                table.setdefault(name, [0, 0])[0] += 1
            return
        qualified = "::".join(names + [name])
        if alias:
            self.aliases.append((qualified, public))
        elif kind is None:
            self.opaque.append((qualified, public))
        else:
            self.types.append((qualified, kind, public))


def layerOf(path):
    parts = path.relative_to(ROOT / "include" / "fieldsync").parts
    return parts[0] if len(parts) > 1 else "(umbrella)"


def scan(root):
    layers = {}
    members = {}
    for path in sorted((root / "include").rglob("*.hpp")):
        tokens = TOKEN.findall(strip(path.read_text(encoding="utf-8")))
        found = Scanner(tokens).run()
        entry = layers.setdefault(layerOf(path), {"types": {}, "aliases": set(), "opaque": set()})
        for name, kind, public in found.types:
            if public:
                entry["types"].setdefault(name, (kind, path.relative_to(root)))
        entry["aliases"].update(name for name, public in found.aliases if public)
        entry["opaque"].update(name for name, public in found.opaque if public)
        for cls, table in found.members.items():
            merged = members.setdefault(cls, {})
            for name, (count, deprecated) in table.items():
                counts = merged.setdefault(name, [0, 0])
                counts[0] += count
                counts[1] += deprecated
    return layers, members


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=ROOT, help="the repository root")
    parser.add_argument("--quiet", action="store_true", help="print the counts only")
    parser.add_argument("--max-types", type=int, help="exit 1 if more public types than this")
    parser.add_argument("--max-members", type=int,
                        help="exit 1 if Communicator has more public members than this")
    args = parser.parse_args()

    layers, members = scan(args.root)
    total = 0
    print("public types outside detail, per layer (include/fieldsync/<layer>/):")
    defined = {name for entry in layers.values() for name in entry["types"]}
    for layer in sorted(layers):
        types = layers[layer]["types"]
        opaque = sorted(layers[layer]["opaque"] - defined)
        total += len(types)
        print(f"  {layer:12} {len(types):3} types, {len(layers[layer]['aliases']):3} aliases, "
              f"{len(opaque):3} opaque")
        if not args.quiet:
            for name in sorted(types):
                kind, path = types[name]
                print(f"      {kind:10} {name:48} {path}")
            for name in opaque:
                print(f"      {'opaque':10} {name}")
    print(f"  {'total':12} {total:3} types")

    declared = members.get("fieldsync::halo::Communicator", {})
    communicator = {name: c[0] for name, c in declared.items() if c[1] < c[0]}
    leaving = {name: c[0] for name, c in declared.items() if c[1] == c[0]}
    print(f"public members of fieldsync::halo::Communicator: {len(communicator)} names, "
          f"{sum(communicator.values())} declarations; {len(leaving)} deprecated, leaving "
          f"(not counted)")
    if not args.quiet:
        for name in sorted(communicator):
            count = communicator[name]
            print(f"      {name}" + (f" ({count} overloads)" if count > 1 else ""))
        if leaving:
            print("    deprecated, leaving:")
        for name in sorted(leaving):
            count = leaving[name]
            print(f"      {name}" + (f" ({count} overloads)" if count > 1 else ""))

    failed = False
    if args.max_types is not None and total > args.max_types:
        print(f"more than {args.max_types} public types", file=sys.stderr)
        failed = True
    if args.max_members is not None and len(communicator) > args.max_members:
        print(f"Communicator has more than {args.max_members} public members", file=sys.stderr)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
