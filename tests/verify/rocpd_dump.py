"""Prints every row of every table of the rocpd databases in a folder, in a stable order, so two
exports can be compared by content whatever SQLite's page layout. Each export draws its own
GUID, which names its tables and fills a column; it is printed as GUID.

usage: rocpd_dump.py DIR
"""
import pathlib
import re
import sqlite3
import sys

GUID = re.compile(r"[0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}")


def main() -> None:
    for db in sorted(pathlib.Path(sys.argv[1]).glob("*.db")):
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for table in tables:
            rows = con.execute(f'SELECT * FROM "{table}"').fetchall()
            lines = sorted(GUID.sub("GUID", repr(row)) for row in rows)
            print(f"{db.name} {GUID.sub('GUID', table)}: {len(rows)} rows")
            print("\n".join(lines))
        con.close()


if __name__ == "__main__":
    main()
