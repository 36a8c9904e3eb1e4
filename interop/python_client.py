"""Drives an example server with the official Python SDK (`mcp==2.3.0`).

The leg is chosen on the command line:

  --http URL       Streamable HTTP on 2026-07-28: the SDK meets `input_required` results and
                   runs its own retry loop through the elicitation and sampling callbacks.
  --stdio CMD...   stdio on a legacy (initialize) session: the server sends real
                   `elicitation/create`, `sampling/createMessage` and `roots/list` requests
                   mid-call (`--era 2026-07-28` negotiates 2026-07-28 instead).
  --server NAME    which example's cases to run: `deploy_service` (default), `release_notes`
                   or `repo_tools`; the same cases pass against the port and, with
                   `--original`, against its legacy original (plain rmcp).

Prints one `PASS name` / `FAIL name: why` line per check and a final `N passed, N failed`
line; exits non-zero when any check failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters

SERVICE = "checkout-api"
SINCE = "2026-11-01T00:00:00Z"
# The canned completion the sampling callback returns; the tool must hand it back verbatim.
SUMMARY = "- db failover at 02:10\n- cache eviction storm\n- certificate renewed late"
VERSION = "4.2.0"
SERVERS = ("deploy_service", "release_notes", "repo_tools")


@dataclass
class Checks:
    leg: str
    passed: int = 0
    failed: int = 0

    def check(self, name: str, ok: bool, why: str = "") -> bool:
        if ok:
            self.passed += 1
            print(f"PASS python/{self.leg}/{name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL python/{self.leg}/{name}: {why}", flush=True)
        return ok


@dataclass
class ScriptedUser:
    """Answers the server's questions and remembers what it was asked."""

    environment: str = "staging"
    readers: str = "customers"
    elicit_action: str = "accept"
    roots: list[str] = field(default_factory=list)
    elicitations: list[types.ElicitRequestParams] = field(default_factory=list)
    samplings: list[types.CreateMessageRequestParams] = field(default_factory=list)
    roots_asked: int = 0

    async def on_elicit(self, _ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicitations.append(params)
        if self.elicit_action != "accept":
            return types.ElicitResult(action=self.elicit_action)
        # Each example's form has one field; answer the one this form asks for.
        properties = (schema_of(params) or {}).get("properties", {})
        content = {"readers": self.readers} if "readers" in properties else {"environment": self.environment}
        return types.ElicitResult(action="accept", content=content)

    async def on_roots(self, _ctx: ClientRequestContext) -> types.ListRootsResult:
        self.roots_asked += 1
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{root}") for root in self.roots])

    async def on_sample(
        self, _ctx: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.samplings.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(text=SUMMARY),
            model="interop-scripted-model",
            stop_reason="endTurn",
        )


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def schema_of(params: types.ElicitRequestParams) -> dict[str, Any] | None:
    schema = getattr(params, "requested_schema", None)
    if schema is None:
        return None
    return schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)


def enum_of(params: types.ElicitRequestParams, prop: str) -> Any:
    return (schema_of(params) or {}).get("properties", {}).get(prop, {}).get("enum")


def environment_enum(params: types.ElicitRequestParams) -> Any:
    return enum_of(params, "environment")


async def call_outcome(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """(is an error, its text): a tool error result and a JSON-RPC error both count as refused."""
    try:
        result = await client.call_tool(name, arguments)
        return bool(result.is_error), text_of(result)
    except Exception as error:  # the SDK raises MCPError for a JSON-RPC error
        return True, str(error)


async def tool_names(client: Client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


def sampled_text(params: types.CreateMessageRequestParams) -> str:
    parts = []
    for message in params.messages:
        content = message.content if isinstance(message.content, list) else [message.content]
        parts.extend(block.text for block in content if isinstance(block, types.TextContent))
    return "\n".join(parts)


async def run_leg(checks: Checks, server: Any, mode: str, expect_version: str | None, cases: Any, user: ScriptedUser) -> None:
    async with Client(
        server,
        mode=mode,
        elicitation_callback=user.on_elicit,
        sampling_callback=user.on_sample,
        list_roots_callback=user.on_roots,
        client_info=types.Implementation(name="mrtr-interop-python", version="1.0.0"),
        read_timeout_seconds=30,
    ) as client:
        version = client.protocol_version
        if expect_version is not None:
            checks.check("negotiated-version", version == expect_version, f"got {version!r}")
        else:
            checks.check("negotiated-version", version is not None and version < "2026-07-28", f"got {version!r}")
        await cases(checks, client, user, expect_version is not None)


async def deploy_service_cases(checks: Checks, client: Client, user: ScriptedUser, modern: bool) -> None:
    names = await tool_names(client)
    checks.check(
        "lists-ported-tools",
        {"deploy_service", "summarize_incidents"} <= names,
        f"tools/list gave {sorted(names)}",
    )

    deployed = await client.call_tool("deploy_service", {"service": SERVICE})
    text = text_of(deployed)
    checks.check(
        "deploy-asked-once",
        len(user.elicitations) == 1,
        f"elicitation callback ran {len(user.elicitations)} times",
    )
    if user.elicitations:
        asked = user.elicitations[0]
        checks.check(
            "deploy-form-offers-staging-and-production",
            SERVICE in asked.message and sorted(environment_enum(asked) or []) == ["production", "staging"],
            f"message {asked.message!r}, environment enum {environment_enum(asked)!r}",
        )
    checks.check(
        "deploy-result-names-the-answer",
        not deployed.is_error and SERVICE in text and user.environment in text,
        f"is_error={deployed.is_error}, text {text!r}",
    )

    user.elicit_action = "decline"
    declined = await client.call_tool("deploy_service", {"service": SERVICE})
    declined_text = text_of(declined)
    checks.check(
        "declined-deploy-deploys-nothing",
        len(user.elicitations) == 2 and "declin" in declined_text.lower() and user.environment not in declined_text,
        f"{len(user.elicitations)} elicitations, text {declined_text!r}",
    )

    summary = await client.call_tool("summarize_incidents", {"since": SINCE})
    summary_text = text_of(summary)
    checks.check(
        "summary-sampled-once",
        len(user.samplings) == 1,
        f"sampling callback ran {len(user.samplings)} times",
    )
    if user.samplings:
        asked = user.samplings[0]
        checks.check(
            "summary-request-is-well-formed",
            asked.max_tokens > 0 and bool(sampled_text(asked)),
            f"maxTokens {asked.max_tokens}, prompt {sampled_text(asked)!r}",
        )
    checks.check(
        "summary-result-is-the-sampled-text",
        not summary.is_error and SUMMARY in summary_text,
        f"is_error={summary.is_error}, text {summary_text!r}",
    )

    if modern:
        await check_manual_round(checks, client)


async def release_notes_cases(checks: Checks, client: Client, user: ScriptedUser, _modern: bool) -> None:
    """The cases of tests/tests/examples_release_notes.rs that a client with forms and a model meets."""
    names = await tool_names(client)
    checks.check("lists-release-notes", "release_notes" in names, f"tools/list gave {sorted(names)}")

    published = await client.call_tool("release_notes", {"version": VERSION})
    text = text_of(published)
    checks.check(
        "form-and-draft-asked-once-each",
        len(user.elicitations) == 1 and len(user.samplings) == 1,
        f"{len(user.elicitations)} forms, {len(user.samplings)} drafts",
    )
    if user.elicitations:
        asked = user.elicitations[0]
        readers = sorted(enum_of(asked, "readers") or [])
        checks.check(
            "form-offers-customers-and-engineers",
            "who are they for" in asked.message and readers == ["customers", "engineers"],
            f"message {asked.message!r}, readers enum {readers!r}",
        )
    if user.samplings:
        asked = user.samplings[0]
        checks.check(
            "draft-request-lists-the-changes",
            asked.max_tokens > 0 and "checkout-api" in sampled_text(asked),
            f"maxTokens {asked.max_tokens}, prompt {sampled_text(asked)!r}",
        )
    checks.check(
        "both-answers-are-published",
        not published.is_error
        and text.startswith(f"Published release notes for {VERSION} (customers)")
        and text.endswith(SUMMARY),
        f"is_error={published.is_error}, text {text!r}",
    )

    # A cancelled form beside an accepted draft: each answer is handled on its own.
    user.elicit_action = "cancel"
    cancelled = await client.call_tool("release_notes", {"version": VERSION})
    cancelled_text = text_of(cancelled)
    checks.check(
        "cancelled-form-keeps-the-accepted-draft",
        not cancelled.is_error
        and cancelled_text.startswith(f"Published release notes for {VERSION} (engineers)")
        and cancelled_text.endswith(SUMMARY),
        f"is_error={cancelled.is_error}, text {cancelled_text!r}",
    )


class Workspace:
    """A directory tree like the one of tests/tests/examples_repo_tools.rs: `api/` is the root,
    `private/` sits beside it, and `api/link` is a symlink into `private/`."""

    def __init__(self) -> None:
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="mrtr-interop-repo-"))
        self.api = os.path.join(self.base, "api")
        os.makedirs(os.path.join(self.api, "src"))
        os.makedirs(os.path.join(self.base, "private"))
        with open(os.path.join(self.api, "src", "lib.rs"), "w") as f:
            f.write("pub fn api() {}")
        with open(os.path.join(self.base, "private", "token"), "w") as f:
            f.write("secret")
        os.symlink(os.path.join(self.base, "private"), os.path.join(self.api, "link"))

    def remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def repo_tools_cases(workspace: Workspace, original: bool) -> Any:
    """The cases of tests/tests/examples_repo_tools.rs. The port's boundary is its configuration
    (ALLOWED_ROOTS) and it never asks for roots; the original asks the client every call."""

    async def cases(checks: Checks, client: Client, user: ScriptedUser, _modern: bool) -> None:
        names = await tool_names(client)
        checks.check("lists-repo-tools", {"read_file", "list_dir"} <= names, f"tools/list gave {sorted(names)}")
        failed, text = await call_outcome(client, "read_file", {"path": f"{workspace.api}/src/lib.rs"})
        checks.check("reads-a-file-inside-the-root", not failed and text == "pub fn api() {}", f"{failed}: {text!r}")
        failed, text = await call_outcome(client, "list_dir", {"path": f"{workspace.api}/src"})
        checks.check("lists-a-directory-inside-the-root", not failed and text == "lib.rs", f"{failed}: {text!r}")
        escapes = {
            "dot-dot": f"{workspace.api}/../private/token",
            "symlink": f"{workspace.api}/link/token",
            "sibling": f"{workspace.base}/private/token",
            "absolute": "/etc/passwd",
        }
        for label, path in escapes.items():
            failed, text = await call_outcome(client, "read_file", {"path": path})
            checks.check(
                f"{label}-escape-is-refused",
                failed and "outside" in text and "secret" not in text,
                f"{failed}: {text!r}",
            )
        if original:
            checks.check("roots-asked-of-the-client", user.roots_asked >= 1, f"roots/list sent {user.roots_asked} times")
        else:
            checks.check("roots-never-asked", user.roots_asked == 0, f"roots/list sent {user.roots_asked} times")

    return cases


async def check_manual_round(checks: Checks, client: Client) -> None:
    """One round by hand: the raw `input_required` result must parse in the SDK's own model."""
    first = await client.session.call_tool("deploy_service", {"service": SERVICE}, allow_input_required=True)
    is_irr = isinstance(first, types.InputRequiredResult)
    checks.check("manual-round-is-input-required", is_irr, f"got {type(first).__name__}")
    if not is_irr:
        return
    requests = first.input_requests or {}
    request = requests.get("target_env")
    checks.check(
        "manual-round-asks-target-env",
        request is not None and request.method == "elicitation/create" and bool(first.request_state),
        f"inputRequests keys {sorted(requests)}, requestState {'set' if first.request_state else 'missing'}",
    )
    # Retry with the state but no answer: the server must ask again, not fail or finish.
    again = await client.session.call_tool(
        "deploy_service", {"service": SERVICE}, request_state=first.request_state, allow_input_required=True
    )
    checks.check(
        "unanswered-retry-asks-again",
        isinstance(again, types.InputRequiredResult) and "target_env" in (again.input_requests or {}),
        f"got {type(again).__name__}",
    )
    # A forged state must be refused with -32602, whatever else the request carries.
    try:
        await client.session.call_tool(
            "deploy_service",
            {"service": SERVICE},
            input_responses={"target_env": {"action": "accept", "content": {"environment": "production"}}},
            request_state=(first.request_state or "") + "-TAMPERED",
            allow_input_required=True,
        )
        checks.check("tampered-state-is-rejected", False, "the server accepted a tampered requestState")
    except Exception as error:  # the SDK raises MCPError carrying the JSON-RPC error
        code = getattr(getattr(error, "error", None), "code", None)
        checks.check("tampered-state-is-rejected", code == -32602, f"got {type(error).__name__} code {code}: {error}")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    leg = parser.add_mutually_exclusive_group(required=True)
    leg.add_argument("--http", metavar="URL")
    leg.add_argument("--stdio", nargs=argparse.REMAINDER, metavar="CMD")
    parser.add_argument(
        "--era",
        choices=["legacy", "2026-07-28"],
        default=None,
        help="stdio only: open a legacy initialize session (default) or negotiate 2026-07-28",
    )
    parser.add_argument("--server", choices=SERVERS, default="deploy_service", help="whose cases to run")
    parser.add_argument("--original", action="store_true", help="the server is the legacy original")
    args = parser.parse_args()

    # deploy_service keeps its historical labels; the others are prefixed with their name.
    prefix = "" if args.server == "deploy_service" else f"{args.server}/"
    suffix = "-original" if args.original else ""
    workspace = Workspace() if args.server == "repo_tools" else None
    user = ScriptedUser()
    env: dict[str, str] = {}
    if workspace is not None:
        user.roots = [workspace.api]
        env["ALLOWED_ROOTS"] = workspace.api
    cases: Any = {
        "deploy_service": deploy_service_cases,
        "release_notes": release_notes_cases,
    }.get(args.server) or repo_tools_cases(workspace, args.original)  # type: ignore[arg-type]

    if args.http:
        checks = Checks(f"{prefix}http-2026-07-28{suffix}")
        target: Any = args.http
        # `auto` probes `server/discover` first, so the era itself is negotiated, not assumed.
        mode, expect = "auto", "2026-07-28"
    elif args.era == "2026-07-28":
        checks = Checks(f"{prefix}stdio-2026-07-28{suffix}")
        target = StdioServerParameters(command=args.stdio[0], args=args.stdio[1:], env=env)
        mode, expect = "auto", "2026-07-28"
    else:
        checks = Checks(f"{prefix}stdio-legacy{suffix}")
        target = StdioServerParameters(command=args.stdio[0], args=args.stdio[1:], env=env)
        mode, expect = "legacy", None
    try:
        await run_leg(checks, target, mode, expect, cases, user)
    except Exception as error:  # a crash is a failed check, never a silent pass
        checks.check("leg-completes", False, f"{type(error).__name__}: {error}")
    finally:
        if workspace is not None:
            workspace.remove()
    print(f"{checks.passed} passed, {checks.failed} failed", flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
