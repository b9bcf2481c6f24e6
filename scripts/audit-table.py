#!/usr/bin/env python3
"""Prints mrtr-audit reports side by side (one column per server, one line per row) and checks
each against what is expected of it. Exit 1 on any difference.

usage: audit-table.py EXPECTED.json LABEL=REPORT.json ...

EXPECTED maps a label to {row id: "pass" | "fail" | "skipped"}, or to the rule
"guard:NAME" for a server with one check turned off: exactly the rows that check guards
fail, every other row passes.
"""
import json
import sys

SYMBOL = {"pass": "✓", "fail": "✗", "skipped": "–"}


def expected_for(rule, report):
    if isinstance(rule, str) and rule.startswith("guard:"):
        name = rule.split(":", 1)[1]
        return {r["id"]: ("fail" if r["guard"] == name else "pass") for r in report["rows"]}
    if rule == "all-pass":
        return {r["id"]: "pass" for r in report["rows"]}
    return rule


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        expected = json.load(f)
    reports = []
    for arg in sys.argv[2:]:
        label, path = arg.split("=", 1)
        try:
            with open(path) as f:
                reports.append((label, json.load(f)))
        except (OSError, ValueError) as e:
            print(f"{label}: no report ({e})")
            return 1
    rows = [r["id"] for r in reports[0][1]["rows"]]
    width = max(len(r) for r in rows)
    for i, (label, rep) in enumerate(reports):
        print(f"  {i + 1:>2}  {label}: tool {rep['tool']} {json.dumps(rep['arguments'])}, {rep['requests']} requests")
    print()
    print(" " * (width + 2) + "".join(f"{i + 1:>3} " for i in range(len(reports))))
    diffs = []
    for row in rows:
        cells = []
        for label, rep in reports:
            got = next((r["status"] for r in rep["rows"] if r["id"] == row), "?")
            want = expected_for(expected.get(label, {}), rep).get(row, "?")
            cells.append(f"{SYMBOL.get(got, '?'):>3}" + ("!" if got != want else " "))
            if got != want:
                evidence = next((r["evidence"] for r in rep["rows"] if r["id"] == row), "")
                diffs.append(f"{label}: {row} is {got}, expected {want}: {evidence}")
        print(f"  {row:<{width}}" + "".join(cells))
    print("  ✓ pass   ✗ fail (the server accepted what it should refuse)   – skipped   ! not as expected")
    for d in diffs:
        print("DIFFERS " + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
