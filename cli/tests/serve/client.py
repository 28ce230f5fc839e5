"""An MCP client built on the official Python SDK (`mcp`), driven by
cli/tests/serve/python.rs against `skillhost serve`.

It connects over stdio (starting the server itself) or HTTP, in `legacy`
mode (initialize, 2025-11-25: notifications through message_handler) or
`auto` mode (server/discover, 2026-07-28: notifications through
subscriptions/listen). It lists the skills with a raw `skills/list`,
reads every file and checks its size and digest, gets a prompt, calls the
`skill` tool, then creates a skill folder and makes a body-only edit on
disk, recording what it is told. It prints one JSON report on stdout; the
Rust test judges it.
"""

import argparse
import base64
import hashlib
import json
import os
import sys
import warnings
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import ConfigDict

# resources/subscribe is what 2025-11-25 clients send; the SDK warns that
# 2026-07-28 replaced it, which is the point of testing both.
warnings.simplefilter("ignore", MCPDeprecationWarning)


class ListSkillsRequest(types.PaginatedRequest[Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"


class ListSkillsResult(types.PaginatedResult):
    model_config = ConfigDict(extra="allow")
    skills: list[dict[str, Any]]


class GetSkillParams(types.RequestParams):
    uri: str


class GetSkillRequest(types.Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"


class GetSkillResult(types.Result):
    model_config = ConfigDict(extra="allow")
    skill: dict[str, Any]


LIST_CHANGED = {
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
    "notifications/tools/list_changed",
}


async def all_skills(client: Client) -> list[dict[str, Any]]:
    out, cursor = [], None
    while True:
        page = await client.session.send_request(
            ListSkillsRequest(params=types.PaginatedRequestParams(cursor=cursor)), ListSkillsResult
        )
        out += page.skills
        cursor = page.next_cursor
        if not cursor:
            return out


def bytes_of(contents: Any) -> bytes:
    if getattr(contents, "text", None) is not None:
        return contents.text.encode("utf-8")
    return base64.b64decode(contents.blob)


def create_skill(root: str, name: str) -> None:
    staging = os.path.join(os.path.dirname(root), f".staging-{name}")
    os.makedirs(staging, exist_ok=True)
    with open(os.path.join(staging, "SKILL.md"), "w") as f:
        f.write(f"---\nname: {name}\ndescription: Created while connected\n---\nNew.\n")
    os.rename(staging, os.path.join(root, name))


def edit_body(root: str) -> None:
    path = os.path.join(root, "review", "SKILL.md")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text + "\nOne more line of body.\n")


async def wait_for(events: list[str], wanted: set[str], seconds: float) -> None:
    with anyio.move_on_after(seconds):
        while not wanted.issubset(events):
            await anyio.sleep(0.02)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    events: list[str] = []

    async def on_message(message: Any) -> None:
        method = getattr(message, "method", None)
        if isinstance(method, str) and method.startswith("notifications/"):
            events.append(method)

    if args.transport == "stdio":
        env = {k: os.environ[k] for k in ("PATH", "HOME", "SKILLHOST_CACHE_DIR") if k in os.environ}
        server: Any = StdioServerParameters(
            command=args.skillhost,
            args=["serve", "--no-bundled", "--root", args.root],
            env=env,
            cwd=os.path.dirname(args.root),
        )
    else:
        server = args.url
    report: dict[str, Any] = {}
    async with Client(server, mode=args.mode, cache=None, message_handler=on_message) as client:
        report["protocol_version"] = client.protocol_version
        capabilities = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        report["extensions"] = capabilities.get("extensions")
        report["capabilities"] = sorted(capabilities)
        skills = await all_skills(client)
        report["skills"] = [s["uri"] for s in skills]
        verified = {}
        for entry in skills:
            for resource in entry["resources"]:
                read = await client.read_resource(resource["uri"])
                data = bytes_of(read.contents[0])
                digest = "sha256:" + hashlib.sha256(data).hexdigest()
                verified[resource["uri"]] = len(data) == resource["size"] and digest == resource["digest"]
        report["verified"] = verified
        got = await client.session.send_request(
            GetSkillRequest(params=GetSkillParams(uri=skills[0]["uri"])), GetSkillResult
        )
        report["get_matches_list"] = got.skill == skills[0]
        prompts = await client.list_prompts()
        report["prompts"] = [p.name for p in prompts.prompts]
        prompt = await client.get_prompt("review", {"arguments": "HEAD~1 'two words'"})
        report["prompt_text"] = prompt.messages[0].content.text
        tools = await client.list_tools()
        report["tools"] = [t.name for t in tools.tools]
        report["tool_description"] = tools.tools[0].description
        called = await client.call_tool("skill", {"name": "review", "arguments": "HEAD~1"})
        report["tool_text"] = called.content[0].text
        report["tool_error"] = bool(called.is_error)
        refused = await client.call_tool("skill", {"name": "deploy"})
        report["refused_error"] = bool(refused.is_error)
        report["refused_text"] = refused.content[0].text

        review = "skill://review/SKILL.md"
        if args.mode == "legacy":
            await client.subscribe_resource(review)
            await anyio.sleep(0.5)
            events.clear()
            create_skill(args.root, "fresh")
            await wait_for(events, LIST_CHANGED, 15)
            report["after_create"] = sorted(set(events))
            await anyio.sleep(0.3)
            events.clear()
            edit_body(args.root)
            await wait_for(events, {"notifications/resources/updated"}, 15)
            await anyio.sleep(1.0)
            report["after_body_edit"] = sorted(set(events))
        else:
            names = {
                "ResourcesListChanged": "notifications/resources/list_changed",
                "PromptsListChanged": "notifications/prompts/list_changed",
                "ToolsListChanged": "notifications/tools/list_changed",
                "ResourceUpdated": "notifications/resources/updated",
            }
            async with client.listen(
                resources_list_changed=True,
                prompts_list_changed=True,
                tools_list_changed=True,
                resource_subscriptions=[review],
            ) as subscription:
                report["honored_subscriptions"] = list(subscription.honored.resource_subscriptions or [])

                async def collect() -> None:
                    async for event in subscription:
                        events.append(names.get(type(event).__name__, type(event).__name__))

                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(collect)
                    await anyio.sleep(0.3)
                    events.clear()
                    create_skill(args.root, "fresh")
                    await wait_for(events, LIST_CHANGED, 15)
                    report["after_create"] = sorted(set(events))
                    await anyio.sleep(0.3)
                    events.clear()
                    edit_body(args.root)
                    await wait_for(events, {"notifications/resources/updated"}, 15)
                    await anyio.sleep(1.0)
                    report["after_body_edit"] = sorted(set(events))
                    tasks.cancel_scope.cancel()
        report["skills_after"] = [s["uri"] for s in await all_skills(client)]
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["stdio", "http"], required=True)
    parser.add_argument("--mode", choices=["legacy", "auto"], required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--skillhost")
    parser.add_argument("--url")
    args = parser.parse_args()
    report = anyio.run(run, args)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
