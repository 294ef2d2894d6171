#!/usr/bin/env python3
"""The layer manifests declare exactly the settings the layer reads (docs/architecture.md, settings).

Compares features.settings of each manifest given with the layer's own settings table
(printed by settings_table_dump): same keys, same environment variables, ENUM flags equal
to the accepted values with the table's first value as the default, free-text settings
declared as files. Exit status 1 with one line per difference.

Usage: manifest_settings_check.py TABLE_DUMP_EXECUTABLE MANIFEST...
"""
import json
import subprocess
import sys


def check(manifest_path, table):
    problems = []
    with open(manifest_path) as f:
        manifest = json.load(f)
    declared = {s["key"]: s for s in manifest["layer"].get("features", {}).get("settings", [])}
    for key in sorted(set(table) - set(declared)):
        problems.append(f"{key}: read by the layer, missing from the manifest")
    for key in sorted(set(declared) - set(table)):
        problems.append(f"{key}: in the manifest, not read by the layer")
    for key in sorted(set(table) & set(declared)):
        ours, theirs = table[key], declared[key]
        if theirs.get("env") != ours["env"]:
            problems.append(f"{key}: manifest env {theirs.get('env')!r}, layer reads {ours['env']!r}")
        if ours["values"]:
            flags = [flag["key"] for flag in theirs.get("flags", [])]
            if theirs.get("type") != "ENUM":
                problems.append(f"{key}: manifest type {theirs.get('type')!r}, expected 'ENUM'")
            if sorted(flags) != sorted(ours["values"]):
                problems.append(f"{key}: manifest values {flags}, layer accepts {ours['values']}")
            if theirs.get("default") != ours["values"][0]:
                problems.append(f"{key}: manifest default {theirs.get('default')!r}, layer default {ours['values'][0]!r}")
        elif theirs.get("type") not in ("SAVE_FILE", "LOAD_FILE", "STRING"):
            problems.append(f"{key}: free-text setting declared as {theirs.get('type')!r}")
    return problems


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    dump = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
    table = {s["key"]: s for s in json.loads(dump)}
    failed = False
    for manifest_path in sys.argv[2:]:
        problems = check(manifest_path, table)
        for p in problems:
            print(f"{manifest_path}: {p}")
        if not problems:
            print(f"{manifest_path}: {len(table)} settings match the layer's table")
        failed = failed or bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
