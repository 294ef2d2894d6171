#!/usr/bin/env python3
"""The settings tables of README.md and docs/settings.md name exactly the layer's settings.

Usage: readme_settings_check.py SETTINGS_TABLE_DUMP README.md docs/settings.md

SETTINGS_TABLE_DUMP prints the layer's settings table (layer/core/settings.cpp) as JSON. In
each Markdown file, the table under the '## Settings' heading (README) or the first table
(docs/settings.md) must have one row per setting, no other, and for a setting whose values
are a list, the same values in the same order (default first). docs/settings.md also names
each setting's environment variable.
"""
import json
import re
import subprocess
import sys


def rows(path, heading):
    text = open(path, encoding='utf-8').read()
    if heading:
        text = text[text.index(heading):]
    out, started = [], False
    for line in text.split('\n'):
        if line.startswith('|'):
            started = True
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if set(cells[0]) <= set('-: '):
                continue
            out.append(cells)
        elif started:
            break
    return out[1:]  # without the header row


def codes(cell):
    return re.findall(r'`([^`]*)`', cell)


def main():
    table = json.loads(subprocess.run([sys.argv[1]], capture_output=True, check=True, text=True).stdout)
    settings = {s['key']: s for s in table}
    errors = []
    for path, heading, key_of, values_col, env_col in (
            (sys.argv[2], '## Settings', lambda c: codes(c)[0], 1, None),
            (sys.argv[3], None, lambda c: codes(c)[0].removeprefix('bindery.'), 2, 1)):
        seen = []
        for cells in rows(path, heading):
            key = key_of(cells[0])
            seen.append(key)
            if key not in settings:
                errors.append(f'{path}: `{key}` is not in the layer\'s settings table')
                continue
            s = settings[key]
            if s['values'] and codes(cells[values_col]) != s['values']:
                errors.append(f'{path}: `{key}` lists {codes(cells[values_col])}, the layer {s["values"]}')
            if env_col is not None and codes(cells[env_col]) != [s['env']]:
                errors.append(f'{path}: `{key}` names {codes(cells[env_col])}, the layer {s["env"]}')
        for key in settings:
            if seen.count(key) != 1:
                errors.append(f'{path}: `{key}` appears {seen.count(key)} times in the settings table')
    for e in errors:
        print(e)
    print(f'readme_settings_check: {len(settings)} settings, {len(errors)} errors')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
