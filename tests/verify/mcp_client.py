#!/usr/bin/env python3
"""Drives `rocprof-rs mcp` with the reference MCP client (the `mcp` package) over stdio, as an
agent would, and prints what it got as one JSON object (tests/mcp_server.rs judges it).

    mcp_client.py CLI FOLDER RUN_A RUN_B OUTSIDE [--allow-run PROGRAM ARGS...]

RUN_A and RUN_B are datasets in FOLDER (relative to it); OUTSIDE is a dataset outside it. With
--allow-run, the server may run PROGRAM, and the client runs it with ARGS into a new dataset.
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def main() -> None:
    cli, folder, run_a, run_b, outside, *rest = sys.argv[1:]
    program, program_args = (rest[1], rest[2:]) if rest[:1] == ["--allow-run"] else (None, [])
    server_args = ["mcp", "--folder", folder] + (["--allow-run", program] if program else [])
    params = StdioServerParameters(command=cli, args=server_args)
    out: dict = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = init.serverInfo.name
            out["protocol"] = init.protocolVersion
            out["tools"] = sorted(t.name for t in (await session.list_tools()).tools)

            async def call(name: str, arguments: dict) -> dict:
                result = await session.call_tool(name, arguments)
                body = text(result)
                parsed = None
                if not result.isError:
                    try:
                        parsed = json.loads(body)
                    except json.JSONDecodeError:
                        parsed = None
                return {"error": bool(result.isError), "text": body[:2000], "json": parsed, "content": result.content}

            listed = await call("list_datasets", {})
            out["datasets"] = [d["path"] for d in listed["json"]["datasets"]] if listed["json"] else listed["text"]
            stats = await call("stats", {"dataset": run_a, "sections": ["kernel"], "top": 3})
            out["stats"] = stats["json"]
            analyze = await call("analyze", {"dataset": run_a})
            out["analyze_keys"] = sorted(analyze["json"]) if analyze["json"] else analyze["text"]
            diff = await call("diff", {"baseline": run_a, "candidate": run_b})
            out["diff_keys"] = sorted(diff["json"]) if diff["json"] else diff["text"]
            ranks = await call("ranks", {"dataset": run_a})
            out["ranks_keys"] = sorted(ranks["json"]) if ranks["json"] else ranks["text"]
            report = await session.call_tool("report", {"dataset": run_a, "top": 5})
            resource = report.content[0].resource if report.content and hasattr(report.content[0], "resource") else None
            out["report"] = {"error": report.isError, "mime": getattr(resource, "mimeType", None),
                             "starts": getattr(resource, "text", "")[:15]}
            refused = {}
            for name, arguments in [("stats", {"dataset": outside}), ("stats", {"dataset": "../"}),
                                    ("diff", {"baseline": run_a, "candidate": outside}),
                                    ("list_datasets", {"folder": "/"}),
                                    ("stats", {"dataset": run_a, "sections": ["nonsense"]}),
                                    ("analyze", {"dataset": run_a, "kernel": "(unclosed"}),
                                    ("diff", {"baseline": run_a, "candidate": run_b, "threshold": 7})]:
                result = await call(name, arguments)
                refused[f"{name} {json.dumps(arguments)}"] = {"error": result["error"], "text": result["text"][:300]}
            out["refused"] = refused
            if program:
                ran = await call("run", {"program": program, "args": program_args, "output": "mcp-run", "trace": ["kernel"]})
                out["run"] = ran["json"] if ran["json"] else {"error": ran["text"]}
                again = await call("run", {"program": program, "args": program_args, "output": "../escape"})
                out["run_outside"] = {"error": again["error"], "text": again["text"][:300]}
                other = await call("run", {"program": "/bin/sh", "args": ["-c", "true"], "output": "x"})
                out["run_unlisted"] = {"error": other["error"], "text": other["text"][:300]}
    print(json.dumps(out))


asyncio.run(main())
