"""Drives the `deploy_service` example server with the official Python SDK (`mcp==2.3.0`).

Two legs, chosen on the command line:

  --http URL       Streamable HTTP on 2026-07-28: the SDK meets `input_required` results and
                   runs its own retry loop through the elicitation and sampling callbacks.
  --stdio CMD...   stdio on a legacy (initialize) session: the server sends real
                   `elicitation/create` and `sampling/createMessage` requests mid-call.

Prints one `PASS name` / `FAIL name: why` line per check and a final `N passed, N failed`
line; exits non-zero when any check failed.
"""

from __future__ import annotations

import argparse
import sys
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
    elicit_action: str = "accept"
    elicitations: list[types.ElicitRequestParams] = field(default_factory=list)
    samplings: list[types.CreateMessageRequestParams] = field(default_factory=list)

    async def on_elicit(self, _ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicitations.append(params)
        if self.elicit_action != "accept":
            return types.ElicitResult(action=self.elicit_action)
        return types.ElicitResult(action="accept", content={"environment": self.environment})

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


def environment_enum(params: types.ElicitRequestParams) -> Any:
    schema = getattr(params, "requested_schema", None)
    if schema is None:
        return None
    dumped = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)
    return dumped.get("properties", {}).get("environment", {}).get("enum")


def sampled_text(params: types.CreateMessageRequestParams) -> str:
    parts = []
    for message in params.messages:
        content = message.content if isinstance(message.content, list) else [message.content]
        parts.extend(block.text for block in content if isinstance(block, types.TextContent))
    return "\n".join(parts)


async def run_leg(checks: Checks, server: Any, mode: str, expect_version: str | None) -> None:
    user = ScriptedUser()
    async with Client(
        server,
        mode=mode,
        elicitation_callback=user.on_elicit,
        sampling_callback=user.on_sample,
        client_info=types.Implementation(name="mrtr-interop-python", version="1.0.0"),
        read_timeout_seconds=30,
    ) as client:
        version = client.protocol_version
        if expect_version is not None:
            checks.check("negotiated-version", version == expect_version, f"got {version!r}")
        else:
            checks.check("negotiated-version", version is not None and version < "2026-07-28", f"got {version!r}")

        names = {tool.name for tool in (await client.list_tools()).tools}
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

        if expect_version is not None:
            await check_manual_round(checks, client)


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
    args = parser.parse_args()

    if args.http:
        checks = Checks("http-2026-07-28")
        target: Any = args.http
        # `auto` probes `server/discover` first, so the era itself is negotiated, not assumed.
        mode, expect = "auto", "2026-07-28"
    elif args.era == "2026-07-28":
        checks = Checks("stdio-2026-07-28")
        target = StdioServerParameters(command=args.stdio[0], args=args.stdio[1:])
        mode, expect = "auto", "2026-07-28"
    else:
        checks = Checks("stdio-legacy")
        target = StdioServerParameters(command=args.stdio[0], args=args.stdio[1:])
        mode, expect = "legacy", None
    try:
        await run_leg(checks, target, mode, expect)
    except Exception as error:  # a crash is a failed check, never a silent pass
        checks.check("leg-completes", False, f"{type(error).__name__}: {error}")
    print(f"{checks.passed} passed, {checks.failed} failed", flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
