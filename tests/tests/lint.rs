//! Lint test (pin-project's `tests/lint` idea): handlers of every shape the lowering opens,
//! built with warnings denied. `cargo test` checks rustc's lints; `scripts/test.sh` also runs
//! `cargo clippy -p mrtr-tests --test lint -- -D warnings`, which checks clippy's. Any lint the
//! generated scaffolding trips fails here, since the machine adds no blanket `allow` over the
//! user's code.
#![deny(warnings)]
#![deny(clippy::all)]

use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Json, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default)]
struct Args {
    items: Vec<String>,
    note: Option<String>,
    tries: u32,
    prod: bool,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Report {
    approved: Vec<String>,
}

fn reply(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

struct Linted;

#[tool_router]
#[mrtr_tool]
impl Linted {
    #[mrtr_tool]
    #[tool(description = "no ask at all")]
    async fn plain(&self) -> Result<CallToolResult, ErrorData> {
        Ok(reply("plain"))
    }

    #[mrtr_tool]
    #[tool(description = "straight line, let-else on an answer")]
    async fn straight(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let label = format!("{} items", args.items.len());
        let go = ask!(go: elicit::<Confirm>(format!("Go with {label}?")));
        let Answer::Accept(Confirm { ok: true }) = go else {
            return Ok(reply("stopped"));
        };
        Ok(reply(label))
    }

    #[mrtr_tool]
    #[tool(description = "asks in both branches, the if as a value")]
    async fn branches(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let region = if args.prod {
            let sure = ask!(prod: elicit::<Confirm>("Production?"));
            if sure.is_accept() { "prod" } else { "none" }
        } else {
            match ask!(staging: elicit::<Confirm>("Staging?")) {
                Answer::Accept(_) => "staging",
                Answer::Decline | Answer::Cancel => "none",
            }
        };
        Ok(reply(region))
    }

    #[mrtr_tool]
    #[tool(description = "a for loop with a key per item, a Json result")]
    async fn per_item(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<Json<Report>, ErrorData> {
        let mut approved = Vec::new();
        for item in args.items.clone() {
            let answer = ask!(approve: elicit::<Confirm>(format!("Approve {item}?")));
            if !answer.is_accept() {
                continue;
            }
            approved.push(item);
        }
        Ok(Json(Report { approved }))
    }

    #[mrtr_tool]
    #[tool(description = "a loop with a break value and a counter")]
    async fn until_yes(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut tries = 0;
        let answer = loop {
            tries += 1;
            if tries > args.tries {
                break None;
            }
            let again = ask!(again: elicit::<Confirm>(format!("Try {tries}?")));
            if again.is_accept() {
                break Some(tries);
            }
        };
        Ok(reply(format!("{answer:?}")))
    }

    #[mrtr_tool]
    #[tool(description = "two keys in one round, a field moved before an ask")]
    async fn two_keys(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let note = args.note.unwrap_or_default();
        let (first, second) = ask!(
            first: elicit::<Confirm>(format!("First {note}?")),
            second: elicit::<Confirm>("Second?"),
        );
        Ok(reply(format!(
            "{} {} {}",
            note,
            first.is_accept(),
            args.tries + u32::from(second.is_accept())
        )))
    }
}

#[test]
fn linted_handlers_are_registered() {
    let names: Vec<String> = Linted::tool_router()
        .list_all()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    for name in [
        "plain",
        "straight",
        "branches",
        "per_item",
        "until_yes",
        "two_keys",
    ] {
        assert!(names.contains(&name.to_owned()), "{name} in {names:?}");
    }
}
