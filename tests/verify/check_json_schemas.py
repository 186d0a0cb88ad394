"""Validates rocprof-rs's `--format json` documents against the published JSON Schemas.

    check_json_schemas.py SCHEMAS_DIR DOCUMENTS_DIR [--expect NAME ...]

Each document (a *.json file in DOCUMENTS_DIR) names its schema (`"schema": "rocprof-rs/NAME"`),
which is SCHEMAS_DIR/NAME.schema.json; every document must validate (draft 2020-12). With
--expect, each NAME listed must have been seen at least once. With --current-only, a document of
another schema_version than its schema's is passed over (kept results of an older release). A folder without documents fails. Exits 1 naming each failure: the
document, the JSON path of the value and what is wrong with it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import jsonschema


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("schemas", type=Path)
    parser.add_argument("documents", type=Path)
    parser.add_argument("--expect", nargs="*", default=[])
    parser.add_argument("--current-only", action="store_true")
    args = parser.parse_args()

    validators = {}
    for path in sorted(args.schemas.glob("*.schema.json")):
        schema = json.loads(path.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        validators[path.name.removesuffix(".schema.json")] = jsonschema.Draft202012Validator(schema)

    failures, seen = [], {}
    documents = sorted(args.documents.glob("*.json"))
    for path in documents:
        try:
            document = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as error:
            failures.append(f"{path.name}: not one JSON document ({error})")
            continue
        name = str(document.get("schema", "")).removeprefix("rocprof-rs/") if isinstance(document, dict) else ""
        validator = validators.get(name)
        if validator is None:
            failures.append(f"{path.name}: names no published schema ({name!r})")
            continue
        current = validator.schema["properties"]["schema_version"].get("const")
        if args.current_only and document.get("schema_version") != current:
            print(f"{path.name}: schema_version {document.get('schema_version')!r}, not {current!r}: passed over")
            continue
        seen[name] = seen.get(name, 0) + 1
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
            where = "$" + "".join(f"[{p!r}]" if isinstance(p, str) else f"[{p}]" for p in error.absolute_path)
            failures.append(f"{path.name}: {where}: {error.message}")
    if not documents:
        failures.append(f"no *.json document in {args.documents}")
    for name in args.expect:
        if name not in seen:
            failures.append(f"no document of schema {name!r} among {len(documents)}")
    for failure in failures[:200]:
        print(failure)
    print(f"{len(documents)} documents, {len(seen)} schemas: "
          + ", ".join(f"{n} ×{c}" for n, c in sorted(seen.items()))
          + (f"; {len(failures)} failures" if failures else "; all valid"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
