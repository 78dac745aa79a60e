"""A client of `git-qwen-memory mcp` on the official MCP Python SDK (PyPI `mcp`), driven by
tests/mcp.rs: `python client.py <scenario> <binary> <project dir>`. It prints one JSON object
with what it saw; the Rust test asserts on it and on the files."""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def field(obj, *names):
    for n in names:
        if hasattr(obj, n):
            return getattr(obj, n)
    return None


def texts(result):
    return "\n".join(getattr(c, "text", "") for c in (result.content or []))


def tool_result(result):
    return {
        "is_error": bool(field(result, "is_error", "isError")),
        "text": texts(result),
        "structured": field(result, "structured_content", "structuredContent"),
    }


def params(binary, cwd):
    return StdioServerParameters(
        command=binary, args=["mcp"], cwd=cwd, env=dict(os.environ)
    )


class Notes:
    def __init__(self):
        self.methods = []

    async def __call__(self, message):
        root = getattr(message, "root", message)
        method = getattr(root, "method", None)
        if method:
            self.methods.append(method)


async def session(binary, cwd, notes=None, name="python-test-client"):
    from mcp.types import Implementation

    ctx = stdio_client(params(binary, cwd))
    read, write = await ctx.__aenter__()
    s = ClientSession(
        read,
        write,
        message_handler=notes,
        client_info=Implementation(name=name, version="9.8.7"),
    )
    await s.__aenter__()
    init = await s.initialize()
    return ctx, s, init


async def close(ctx, s):
    await s.__aexit__(None, None, None)
    await ctx.__aexit__(None, None, None)


async def basic(binary, cwd):
    out = {}
    notes = Notes()
    ctx, s, init = await session(binary, cwd, notes)
    info = field(init, "server_info", "serverInfo")
    caps = init.capabilities
    out["server_name"] = info.name
    out["resources_list_changed"] = bool(
        caps.resources and field(caps.resources, "list_changed", "listChanged")
    )
    tools = await s.list_tools()
    out["tools"] = {
        t.name: {
            "description": t.description,
            "schema": field(t, "input_schema", "inputSchema"),
        }
        for t in tools.tools
    }
    call = lambda name, args: s.call_tool(name, args)
    out["remember"] = tool_result(
        await call(
            "remember",
            {
                "text": "Release builds are signed with the hardware key in the safe",
                "why": "the auditors require it",
            },
        )
    )
    out["remember_again"] = tool_result(
        await call(
            "remember",
            {"text": "Release builds are signed with the hardware key in the safe"},
        )
    )
    out["remember_user"] = tool_result(
        await call(
            "remember",
            {"text": "The user prefers answers in short bullet lists", "type": "user"},
        )
    )
    out["remember_secret"] = tool_result(
        await call(
            "remember",
            {"text": "Deploy token is " + sys.argv[4]},
        )
    )
    out["remember_empty"] = tool_result(await call("remember", {"text": "   "}))
    out["remember_bad_type"] = tool_result(
        await call("remember", {"text": "x y z", "type": "gossip"})
    )
    out["remember_unknown_arg"] = tool_result(
        await call("remember", {"text": "x y z", "colour": "red"})
    )
    out["list"] = tool_result(await call("list", {}))
    out["list_user"] = tool_result(await call("list", {"type": "user"}))
    ids = [m["id"] for m in (out["list"]["structured"] or {}).get("memories", [])]
    project_id = next((i for i in ids if i.startswith("project/")), None)
    out["show"] = tool_result(await call("show", {"id": project_id or "none"}))
    out["show_missing"] = tool_result(await call("show", {"id": "project/nope.md"}))
    out["recall"] = tool_result(
        await call("recall", {"query": "how are release builds signed?", "session_id": "s-py"})
    )
    out["recall_again"] = tool_result(
        await call("recall", {"query": "how are release builds signed?", "session_id": "s-py"})
    )
    out["recall_other_session"] = tool_result(
        await call("recall", {"query": "how are release builds signed?", "session_id": "s-other"})
    )
    resources = await s.list_resources()
    out["resources"] = [str(r.uri) for r in resources.resources]
    doc_uri = next((u for u in out["resources"] if "project/" in u), None)
    index_uri = next((u for u in out["resources"] if u.endswith("/MEMORY.md")), None)
    out["read_doc"] = (
        (await s.read_resource(doc_uri)).contents[0].text if doc_uri else None
    )
    out["read_index"] = (
        (await s.read_resource(index_uri)).contents[0].text if index_uri else None
    )
    try:
        await s.read_resource("memory://private/../../etc/passwd.md")
        out["read_escape"] = "read"
    except Exception as e:  # the server refuses
        out["read_escape"] = "error: " + str(e)
    try:
        await call("no_such_tool", {})
        out["unknown_tool"] = "answered"
    except Exception as e:
        out["unknown_tool"] = "error: " + str(e)
    out["forget_dry"] = tool_result(
        await call("forget", {"query": "hardware key", "dry_run": True})
    )
    out["forget_nothing"] = tool_result(await call("forget", {}))
    out["forget_both"] = tool_result(
        await call("forget", {"query": "x", "ids": ["project/a.md"]})
    )
    out["forget"] = tool_result(await call("forget", {"query": "hardware key"}))
    out["list_after"] = tool_result(await call("list", {"scope": "private"}))
    # A file written by someone else: the watcher notices within a few seconds.
    before = len([m for m in notes.methods if "list_changed" in m])
    with open(sys.argv[5], "w") as f:
        f.write(
            "---\nname: Outside write\ndescription: written beside the server\ntype: project\n---\n\nWritten beside the server.\n"
        )
    for _ in range(60):
        await asyncio.sleep(0.1)
        if len([m for m in notes.methods if "list_changed" in m]) > before:
            break
    out["notifications"] = notes.methods
    out["notified_after_outside_write"] = (
        len([m for m in notes.methods if "list_changed" in m]) > before
    )
    await close(ctx, s)
    return out


async def concurrent(binary, cwd):
    async def one(tag):
        ctx, s, _ = await session(binary, cwd, name="client-" + tag)
        results = await asyncio.gather(
            *[
                s.call_tool(
                    "remember",
                    {"text": f"Concurrent fact {tag} number {i} about the build cache"},
                )
                for i in range(8)
            ]
        )
        await close(ctx, s)
        return [tool_result(r) for r in results]

    a, b = await asyncio.gather(one("alpha"), one("beta"))
    return {"a": a, "b": b}


async def guarded(binary, cwd):
    """What a client can see: `list`, `show` of the ids and a read of the resources named in
    the JSON spec of argv[4] ({"show": [...], "read": [...]})."""
    spec = json.loads(sys.argv[4])
    out = {}
    ctx, s, _ = await session(binary, cwd)
    out["list"] = tool_result(await s.call_tool("list", {}))
    out["show"] = {i: tool_result(await s.call_tool("show", {"id": i})) for i in spec["show"]}
    resources = await s.list_resources()
    out["resources"] = [str(r.uri) for r in resources.resources]
    out["resource_names"] = [r.name for r in resources.resources]
    out["read"] = {}
    for uri in spec["read"]:
        try:
            out["read"][uri] = {"text": (await s.read_resource(uri)).contents[0].text}
        except Exception as e:  # the server refuses
            out["read"][uri] = {"error": str(e)}
    await close(ctx, s)
    return out


def main():
    scenario, binary, cwd = sys.argv[1], sys.argv[2], sys.argv[3]
    fn = {"basic": basic, "concurrent": concurrent, "guarded": guarded}[scenario]
    print(json.dumps(asyncio.run(fn(binary, cwd)), default=str))


if __name__ == "__main__":
    main()
