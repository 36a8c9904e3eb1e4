"""The flow benchmark's python-sdk reference server (mcp 2.3): `deploy_service`,
`summarize_incidents` and `staged_rollout`, written the way the SDK's documentation writes MRTR
tools on `MCPServer`.

- `deploy_service` and `summarize_incidents` ask through resolvers (`Resolve` returning `Elicit`
  or `Sample`): on 2026-07-28 the framework batches the asks into `input_required`, records the
  answers in its sealed `request_state` (AES-GCM, the default) and re-runs the resolvers each
  round; on a legacy session it sends live requests.
- `staged_rollout` is a sequence of dependent asks, which a resolver graph fixed at registration
  cannot express, so it uses the explicit form: it returns `InputRequiredResult` with its own
  state (sealed by the same boundary) and reads `ctx.input_responses` on the retry.

The pretend back end mirrors `examples/ops.rs`: a plan digest, a log line per effect.

Run: python python_server.py PORT  (Streamable HTTP at http://127.0.0.1:PORT/mcp)
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Literal

from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    DeclinedElicitation,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
    Sample,
)
from mcp_types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel, Field

WAVES = ["canary", "25%", "50%", "100%"]

mcp = MCPServer("python-reference", log_level="WARNING")


class Ops:
    """The pretend back end: what ran, in order."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.digests: dict[str, str] = {}

    def build_deploy_plan(self, service: str) -> dict[str, str]:
        if not service.strip():
            raise ValueError("service must not be empty")
        digest = f"{fnv(service.encode()):016x}"
        plan = {"id": f"plan-{service}-{digest[:6]}", "digest": digest}
        self.log.append(f"build_plan {service} {plan['id']}")
        return plan

    def run_deploy(self, service: str, environment: str, plan_id: str) -> str:
        self.log.append(f"deploy {service} {environment} {plan_id}")
        return f"https://{environment}.example.invalid/{service}"

    def run_wave(self, service: str, wave: str, plan_id: str) -> None:
        self.log.append(f"wave {service} {wave} {plan_id}")

    def fetch_incidents(self, since: str) -> list[dict[str, str]]:
        self.log.append(f"fetch_incidents {since}")
        return [
            {"id": "INC-101", "service": "checkout-api", "severity": "sev2", "title": "Elevated 5xx on /pay"},
            {"id": "INC-102", "service": "search", "severity": "sev3", "title": "Slow autocomplete in eu-west"},
            {"id": "INC-103", "service": "checkout-api", "severity": "sev1", "title": "Card authorisations failing"},
        ]

    def record_summary(self, digest_key: str, summary: str) -> None:
        self.log.append(f"record_summary {digest_key} {len(summary)} chars")


def fnv(data: bytes) -> int:
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def render_digest(incidents: list[dict[str, str]]) -> str:
    ordered = sorted(incidents, key=lambda i: (i["severity"], i["id"]))
    return "\n".join(f"{i['id']} [{i['severity']}] {i['service']}: {i['title']}" for i in ordered)


ops = Ops()


class Target(BaseModel):
    environment: Literal["staging", "production"] = Field(description="Deployment target")


class Proceed(BaseModel):
    proceed: bool = Field(description="Roll out to this wave")


def ask_target(service: str) -> Elicit[Target]:
    return Elicit(f"Deploy {service} — which environment?", Target)


@mcp.tool(description="Deploy a service to staging or production")
def deploy_service(
    service: str, target: Annotated[ElicitationResult[Target], Resolve(ask_target)]
) -> str:
    if isinstance(target, DeclinedElicitation):
        return "Deployment declined by user."
    if not isinstance(target, AcceptedElicitation):
        return "Deployment cancelled by user."
    plan = ops.build_deploy_plan(service)
    environment = target.data.environment
    url = ops.run_deploy(service, environment, plan["id"])
    return f"Deployed {service} to {environment}: {url}"


def ask_summary(since: str) -> Sample:
    digest = render_digest(ops.fetch_incidents(since))
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=digest))],
        max_tokens=400,
        system_prompt="Summarise these incidents in three bullets. No preamble.",
    )


@mcp.tool(description="Summarise recent incidents in three bullets")
def summarize_incidents(
    since: str, summary: Annotated[CreateMessageResult, Resolve(ask_summary)]
) -> str:
    content = summary.content
    if not isinstance(content, TextContent):
        return "Unusable sampling response. Nothing was recorded."
    ops.record_summary(f"digest-{fnv(since.encode()):016x}", content.text)
    return content.text


@mcp.tool(description="Roll a service out wave by wave, confirming each wave")
def staged_rollout(service: str, ctx: Context) -> str | InputRequiredResult:
    if ctx.request_state is None:
        state = {"plan": ops.build_deploy_plan(service), "done": []}
    else:
        state = json.loads(ctx.request_state)
    done: list[str] = state["done"]
    wave = WAVES[len(done)]
    answer = (ctx.input_responses or {}).get("confirm_wave")
    if ctx.request_state is not None and isinstance(answer, ElicitResult):
        proceed = answer.action == "accept" and bool((answer.content or {}).get("proceed"))
        if not proceed:
            return f"Rollout of {service} stopped before {wave} after {len(done)} waves."
        ops.run_wave(service, wave, state["plan"]["id"])
        done.append(wave)
        if len(done) == len(WAVES):
            return f"Rolled {service} out in {len(done)} waves: {', '.join(done)}"
    ask = ElicitRequest(
        params=ElicitRequestFormParams(
            message=f"Roll {service} out to {WAVES[len(done)]}?",
            requested_schema=render_elicitation_schema(Proceed),
        )
    )
    return InputRequiredResult(input_requests={"confirm_wave": ask}, request_state=json.dumps(state))


if __name__ == "__main__":
    mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
