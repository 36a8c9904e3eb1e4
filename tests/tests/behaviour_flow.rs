//! The behaviour table: every control-flow shape `#[mrtr_tool]` lowers, run on 2026-07-28
//! (`input_required` rounds) and on a legacy session (real server-initiated requests) against
//! the same scripted answers. Each test checks, through `Both::assert_table`, that both eras
//! agree on the outcome, that the modern call took the expected rounds and the legacy one none,
//! and that user code ran exactly as often in both (the effect log) — so code before an
//! answered ask never re-ran. Where the wire keys matter (loops), they are checked too.
#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577 but still part of 2026-07-28

use std::collections::{BTreeMap, HashMap};

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, CreateMessageRequestParams, SamplingMessage};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ---- what the client is asked for ----

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Target {
    environment: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Name {
    name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Count {
    n: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mrtr::Elicit)]
struct Owner {
    id: u32,
    name: String,
}

// ---- what the handlers carry ----

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Plan {
    id: String,
    steps: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Pair {
    left: String,
    right: String,
}

// ---- arguments ----

#[derive(Debug, Clone, Copy, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Skip,
    Auto,
    #[default]
    Manual,
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
struct Group {
    name: String,
    members: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default)]
struct Args {
    service: String,
    prod: bool,
    mode: Mode,
    max_tries: u32,
    seed: u32,
    items: Vec<String>,
    groups: Vec<Group>,
}

fn reply(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

fn is_word(candidate: &str) -> bool {
    !candidate.is_empty() && candidate.chars().all(char::is_alphabetic)
}

fn prompt(text: String) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(text)], 64)
}

// ---- the handlers ----

struct Flows {
    effects: Effects,
}

#[tool_router]
impl Flows {
    #[mrtr_tool]
    #[tool(description = "straight line: a carried struct and String across two asks")]
    async fn straight_line(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        self.effects.record("plan");
        let plan = Plan {
            id: format!("plan-{}", args.service),
            steps: vec!["build".into(), "ship".into()],
        };
        let label = format!("{}-v{}", args.service, plan.steps.len());
        let scratch = plan.steps.len() * 10;
        self.effects.record(format!("scratch {scratch}"));
        let target = ask!(target_env: elicit::<Target>(format!("Deploy {label} where?")));
        self.effects.record("between");
        let Answer::Accept(target) = target else {
            return Ok(reply(format!("{} declined", plan.id)));
        };
        let note = ask!(note: elicit::<Name>(format!("Note for {}?", target.environment)));
        let note = match note {
            Answer::Accept(note) => note.name,
            Answer::Decline | Answer::Cancel => "none".to_owned(),
        };
        self.effects.record("deploy");
        Ok(reply(format!(
            "{} {label} {} {note}",
            plan.id, target.environment
        )))
    }

    #[mrtr_tool]
    #[tool(description = "if/else with an ask in both arms, the value flowing out")]
    async fn branch(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let base = format!("{}-base", args.service);
        self.effects.record("base");
        let region = if args.prod {
            let ok = ask!(prod_ok: elicit::<Confirm>(format!("Deploy {base} to prod?")));
            self.effects.record("prod arm");
            match ok {
                Answer::Accept(Confirm { ok: true }) => "prod".to_owned(),
                _ => "held".to_owned(),
            }
        } else {
            let region = ask!(region: elicit::<Name>(format!("Region for {base}?")));
            self.effects.record("region arm");
            match region {
                Answer::Accept(region) => region.name.to_uppercase(),
                _ => "default".to_owned(),
            }
        };
        self.effects.record("join");
        Ok(reply(format!("{base} {region}")))
    }

    #[mrtr_tool]
    #[tool(description = "match: one arm returns early, one asks, one falls through")]
    async fn match_return(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let tag = format!("[{}]", args.service);
        self.effects.record("tag");
        let summary = match args.mode {
            Mode::Skip => return Ok(reply(format!("{tag} skipped"))),
            Mode::Auto => format!("{tag} auto"),
            Mode::Manual => {
                self.effects.record("manual");
                let pick = ask!(pick: elicit::<Name>(format!("Pick a plan for {tag}")));
                match pick {
                    Answer::Accept(pick) => format!("{tag} {}", pick.name),
                    Answer::Decline | Answer::Cancel => return Ok(reply(format!("{tag} no pick"))),
                }
            }
        };
        self.effects.record("summary");
        let ack = ask!(ack: elicit::<Confirm>(format!("Proceed with {summary}?")));
        let ack = matches!(ack, Answer::Accept(Confirm { ok: true }));
        Ok(reply(format!("{summary} ack={ack}")))
    }

    #[mrtr_tool]
    #[tool(description = "loop with a per-iteration ask, breaking with a value")]
    async fn loop_until_valid(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let max = args.max_tries;
        let mut tries = 0;
        self.effects.record("start");
        let name = loop {
            tries += 1;
            if tries > max {
                return Ok(reply(format!("gave up after {max}")));
            }
            let answer = ask!(name: elicit::<Name>(format!("Name (try {tries})?")));
            if let Answer::Accept(candidate) = answer
                && is_word(&candidate.name)
            {
                break candidate.name.to_lowercase();
            }
            self.effects.record(format!("rejected {tries}"));
        };
        Ok(reply(format!("{name} after {tries}")))
    }

    #[mrtr_tool]
    #[tool(description = "while re-asking until the answer is valid")]
    async fn while_reask(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut attempt = 0u32;
        let mut code = String::new();
        self.effects.record(format!("start {}", args.service));
        while !is_word(&code) {
            self.effects.record(format!("ask {attempt}"));
            let answer = ask!(code: elicit::<Name>(format!("Code for {} (attempt {attempt})?", args.service)));
            attempt += 1;
            match answer {
                Answer::Accept(answer) => code = answer.name,
                Answer::Decline | Answer::Cancel => break,
            }
        }
        Ok(reply(format!("code={code} attempts={attempt}")))
    }

    #[mrtr_tool]
    #[tool(description = "two asks in one round, then a third that depends on both")]
    async fn two_then_third(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let stamp = format!("{}#1", args.service);
        self.effects.record("stamp");
        let (env, replicas) = ask!(
            env: elicit::<Target>(format!("Environment for {stamp}?")),
            replicas: elicit::<Count>("Replicas?")
        );
        let Answer::Accept(env) = env else {
            return Ok(reply(format!("{stamp}: no environment")));
        };
        let n = match replicas {
            Answer::Accept(count) => count.n,
            Answer::Decline | Answer::Cancel => 1,
        };
        self.effects.record(format!("sized {n}"));
        let ok = ask!(confirm: elicit::<Confirm>(format!("Deploy {n} replicas to {}?", env.environment)));
        let ok = matches!(ok, Answer::Accept(Confirm { ok: true }));
        Ok(reply(format!("{stamp} {} x{n} ok={ok}", env.environment)))
    }

    #[mrtr_tool]
    #[tool(description = "`?` before the first ask and after it, with the user's own error type")]
    async fn question_mark(&self, Parameters(args): Parameters<Args>) -> Result<String, String> {
        let host = parse_host(&args.service)?;
        self.effects.record(format!("host {host}"));
        let port = ask!(port: elicit::<Name>(format!("Port for {host}?")));
        let Answer::Accept(port) = port else {
            return Err("no port given".to_owned());
        };
        let port: u16 = port
            .name
            .trim()
            .parse()
            .map_err(|e| format!("bad port: {e}"))?;
        self.effects.record("connect");
        Ok(format!("{host}:{port}"))
    }

    #[mrtr_tool]
    #[tool(description = "for loop resuming mid-iteration, one key per item")]
    async fn for_items(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let items = args.items.clone();
        self.effects.record(format!("load {}", items.len()));
        let mut approved = Vec::new();
        let mut skipped = 0u32;
        for item in items {
            self.effects.record(format!("inspect {item}"));
            let ok = ask!(ship: elicit::<Confirm>(format!("Ship {item}?")));
            if matches!(ok, Answer::Accept(Confirm { ok: true })) {
                approved.push(item);
            } else {
                skipped += 1;
            }
        }
        Ok(reply(format!("approved={approved:?} skipped={skipped}")))
    }

    #[mrtr_tool]
    #[tool(description = "labelled break and continue around an ask in nested loops")]
    async fn labelled(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut log: Vec<String> = Vec::new();
        'groups: for group in args.groups.clone() {
            for member in group.members.clone() {
                let vote = ask!(vote: elicit::<Name>(format!("{} / {member}: vote?", group.name)));
                match vote {
                    Answer::Accept(Name { name }) if name == "skip-group" => continue 'groups,
                    Answer::Accept(Name { name }) if name == "stop" => break 'groups,
                    Answer::Accept(Name { name }) => {
                        log.push(format!("{}:{member}={name}", group.name))
                    }
                    Answer::Decline | Answer::Cancel => continue,
                }
                self.effects
                    .record(format!("voted {}/{member}", group.name));
            }
            log.push(format!("{} closed", group.name));
        }
        Ok(reply(log.join(",")))
    }

    #[mrtr_tool]
    #[tool(description = "shadowing, tuple and struct patterns carried across an ask")]
    async fn patterns(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let x = args.seed * 2;
        self.effects.record(format!("x={x}"));
        let x = ask!(x: elicit::<Name>(format!("x? (seed {x})")));
        let x = match x {
            Answer::Accept(x) => x.name,
            Answer::Decline | Answer::Cancel => "none".to_owned(),
        };
        let (a, b) = (x.len(), format!("{x}!"));
        let Pair { left, right: mut r } = Pair {
            left: format!("<{x}"),
            right: format!("{x}>"),
        };
        let name = args.service.clone();
        let name = format!("{name}/{a}");
        self.effects.record(format!("bound {name}"));
        let y = ask!(y: elicit::<Name>(format!("y for {name}?")));
        if let Answer::Accept(y) = y {
            r.push_str(&y.name);
        }
        Ok(reply(format!("{x}|{a}|{b}|{left}|{r}|{name}")))
    }

    #[mrtr_tool]
    #[tool(description = "carried Vec, HashMap, Value, Option<struct>, integers and user structs")]
    async fn carried_types(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let meta = json!({ "service": args.service, "tags": ["a", "b"], "depth": { "n": 1.5 } });
        let mut quotas = HashMap::new();
        quotas.insert(args.service.clone(), vec![1u32, 2]);
        let mut owner = None;
        let mut count = 0;
        let big: u64 = u64::MAX - 1;
        let negative: i64 = -42;
        let plan = Plan {
            id: "p1".into(),
            steps: vec!["x".into()],
        };
        let mut names = vec!["first".to_owned()];
        self.effects.record("prepared");
        let pick = ask!(owner: elicit::<Owner>("Owner?"));
        if let Answer::Accept(picked) = pick {
            owner = Some(picked);
            count += 1;
        }
        quotas
            .entry("extra".to_owned())
            .or_insert_with(Vec::new)
            .push(3);
        names.push("second".to_owned());
        self.effects.record("owner set");
        let note = ask!(note: elicit::<Name>(format!("Note ({count})?")));
        if let Answer::Accept(note) = note {
            names.push(note.name);
        }
        let quotas: BTreeMap<String, Vec<u32>> = quotas.into_iter().collect();
        let owner: Option<Owner> = owner;
        let out = json!({
            "meta": meta, "quotas": quotas, "owner": owner, "count": count, "big": big,
            "negative": negative, "plan": plan.id, "steps": plan.steps, "names": names,
        });
        Ok(reply(out.to_string()))
    }

    #[mrtr_tool]
    #[tool(description = "a binding overwritten after an ask, and one assigned from an answer")]
    async fn overwrite(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut status = format!("draft-{}", args.service);
        let mut count = 0;
        self.effects.record(format!("start {status}"));
        let first = ask!(a: elicit::<Name>("a?"));
        status = match first {
            Answer::Accept(first) => first.name,
            Answer::Decline | Answer::Cancel => "none".to_owned(),
        };
        count += 1;
        let mut second = ask!(b: elicit::<Name>(format!("{status}?")));
        if matches!(second, Answer::Decline) {
            self.effects.record("declined once");
            second = ask!(again: elicit::<Name>(format!("{status}, are you sure?")));
        }
        let second = match second {
            Answer::Accept(second) => second.name,
            Answer::Decline | Answer::Cancel => "none".to_owned(),
        };
        Ok(reply(format!("{status} {count} {second}")))
    }

    #[mrtr_tool]
    #[tool(description = "a default answer overwritten by an ask: its type comes from the ask")]
    async fn default_answer(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut answer = Answer::Cancel;
        self.effects.record("start");
        if args.prod {
            answer = ask!(owner: elicit::<Owner>(format!("Owner of {}?", args.service)));
        }
        Ok(reply(match answer {
            Answer::Accept(owner) => format!("{} ({})", owner.name, owner.id),
            Answer::Decline | Answer::Cancel => "nobody".to_owned(),
        }))
    }

    #[mrtr_tool]
    #[tool(description = "an initial answer never read: declared in one arm, typed in another")]
    #[allow(unused_assignments)]
    async fn overwritten_default(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut answer = Answer::Cancel;
        self.effects.record("start");
        answer = ask!(owner: elicit::<Owner>(format!("Owner of {}?", args.service)));
        Ok(reply(match answer {
            Answer::Accept(owner) => owner.name,
            Answer::Decline | Answer::Cancel => "nobody".to_owned(),
        }))
    }

    #[mrtr_tool]
    #[tool(description = "roots then sampling, the sampled text depending on the roots")]
    async fn roots_then_sample(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        self.effects.record("begin");
        let listed = ask!(workspace: roots());
        let uris: Vec<String> = match listed {
            Answer::Accept(list) => list.roots.into_iter().map(|root| root.uri).collect(),
            Answer::Decline | Answer::Cancel => Vec::new(),
        };
        self.effects.record(format!("roots {}", uris.len()));
        let summary = ask!(summary: sample(prompt(format!("Summarize {} for {}", uris.join(" "), args.service))));
        let summary = match summary {
            Answer::Accept(result) => serde_json::to_value(&result.message.content)
                .ok()
                .and_then(|content| first_text(&content))
                .unwrap_or_default(),
            Answer::Decline | Answer::Cancel => "no summary".to_owned(),
        };
        Ok(reply(format!("{} roots: {summary}", uris.len())))
    }
}

fn parse_host(service: &str) -> Result<String, String> {
    if service.is_empty() {
        Err("empty service name".to_owned())
    } else {
        Ok(format!("{service}.internal"))
    }
}

fn first_text(content: &Value) -> Option<String> {
    match content {
        Value::Array(blocks) => blocks.iter().find_map(first_text),
        Value::Object(block) => block.get("text").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

fn server(effects: Effects) -> TestServer<Flows> {
    TestServer::new(
        Flows { effects },
        Flows::tool_router(),
        test_runtime("behaviour-flow"),
    )
}

fn keys(rounds: &[&[&str]]) -> Vec<Vec<String>> {
    rounds
        .iter()
        .map(|round| round.iter().map(|key| (*key).to_owned()).collect())
        .collect()
}

// ---- the table ----

#[tokio::test]
async fn straight_line_resumes_with_carried_locals_and_runs_each_effect_once() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit(
                "Deploy api-v2 where?",
                [accept(json!({"environment": "staging"}))],
            )
            .on_elicit("Note for staging?", [accept(json!({"name": "hi"}))])
    };
    let both = run_both(server, client, "straight_line", json!({"service": "api"})).await;
    both.assert_table("plan-api api-v2 staging hi", 2, 2);
    assert_eq!(
        both.modern.asked_keys(),
        keys(&[&["target_env"], &["note"]])
    );
    assert_eq!(
        both.legacy.effects,
        ["plan", "scratch 20", "between", "deploy"]
    );
}

#[tokio::test]
async fn straight_line_declined_returns_early_from_the_resumed_step() {
    let client = || ScriptedClient::new(Caps::FORM_ONLY).on_elicit("where?", [Reply::Decline]);
    let both = run_both(server, client, "straight_line", json!({"service": "api"})).await;
    both.assert_table("plan-api declined", 1, 1);
    assert_eq!(both.legacy.effects, ["plan", "scratch 20", "between"]);
}

#[tokio::test]
async fn branch_asks_in_the_taken_arm_and_joins_with_its_value() {
    let prod = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Deploy web-base to prod?", [accept(json!({"ok": true}))])
    };
    let both = run_both(
        server,
        prod,
        "branch",
        json!({"service": "web", "prod": true}),
    )
    .await;
    both.assert_table("web-base prod", 1, 1);
    assert_eq!(both.legacy.effects, ["base", "prod arm", "join"]);
    assert_eq!(both.modern.asked_keys(), keys(&[&["prod_ok"]]));

    let region = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Region for web-base?", [accept(json!({"name": "eu-west"}))])
    };
    let both = run_both(
        server,
        region,
        "branch",
        json!({"service": "web", "prod": false}),
    )
    .await;
    both.assert_table("web-base EU-WEST", 1, 1);
    assert_eq!(both.legacy.effects, ["base", "region arm", "join"]);
    assert_eq!(both.modern.asked_keys(), keys(&[&["region"]]));
}

#[tokio::test]
async fn match_arms_return_early_fall_through_or_ask() {
    let script = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Pick a plan for [db]", [accept(json!({"name": "blue"}))])
            .on_elicit("Proceed with [db] blue?", [accept(json!({"ok": true}))])
            .on_elicit("Proceed with [db] auto?", [accept(json!({"ok": false}))])
    };
    let manual = run_both(
        server,
        script,
        "match_return",
        json!({"service": "db", "mode": "manual"}),
    )
    .await;
    manual.assert_table("[db] blue ack=true", 2, 2);
    assert_eq!(manual.legacy.effects, ["tag", "manual", "summary"]);

    let auto = run_both(
        server,
        script,
        "match_return",
        json!({"service": "db", "mode": "auto"}),
    )
    .await;
    auto.assert_table("[db] auto ack=false", 1, 1);
    assert_eq!(auto.legacy.effects, ["tag", "summary"]);

    let skip = run_both(
        server,
        script,
        "match_return",
        json!({"service": "db", "mode": "skip"}),
    )
    .await;
    skip.assert_table("[db] skipped", 0, 0);
    assert_eq!(skip.legacy.effects, ["tag"]);

    let refuse = || ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Pick a plan", [Reply::Cancel]);
    let declined = run_both(
        server,
        refuse,
        "match_return",
        json!({"service": "db", "mode": "manual"}),
    )
    .await;
    declined.assert_table("[db] no pick", 1, 1);
    assert_eq!(declined.legacy.effects, ["tag", "manual"]);
}

#[tokio::test]
async fn loop_asks_with_a_distinct_key_per_iteration_until_the_answer_is_valid() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Name (try 1)?", [accept(json!({"name": "x1"}))])
            .on_elicit("Name (try 2)?", [accept(json!({"name": "!!"}))])
            .on_elicit("Name (try 3)?", [accept(json!({"name": "Ann"}))])
    };
    let both = run_both(server, client, "loop_until_valid", json!({"max_tries": 5})).await;
    both.assert_table("ann after 3", 3, 3);
    assert_eq!(
        both.modern.asked_keys(),
        keys(&[&["name#0"], &["name#1"], &["name#2"]])
    );
    assert_eq!(both.legacy.effects, ["start", "rejected 1", "rejected 2"]);

    let stubborn = || {
        ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Name (try", [accept(json!({"name": "42"}))])
    };
    let gave_up = run_both(
        server,
        stubborn,
        "loop_until_valid",
        json!({"max_tries": 2}),
    )
    .await;
    gave_up.assert_table("gave up after 2", 2, 2);
    assert_eq!(
        gave_up.legacy.effects,
        ["start", "rejected 1", "rejected 2"]
    );
}

#[tokio::test]
async fn while_loop_reasks_until_valid_and_breaks_on_decline() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY).on_elicit(
            "Code for vault (attempt",
            [
                accept(json!({"name": "12"})),
                accept(json!({"name": "open"})),
            ],
        )
    };
    let both = run_both(server, client, "while_reask", json!({"service": "vault"})).await;
    both.assert_table("code=open attempts=2", 2, 2);
    assert_eq!(both.modern.asked_keys(), keys(&[&["code#0"], &["code#1"]]));
    assert_eq!(both.legacy.effects, ["start vault", "ask 0", "ask 1"]);

    let quitter = || ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Code for", [Reply::Decline]);
    let declined = run_both(server, quitter, "while_reask", json!({"service": "vault"})).await;
    declined.assert_table("code= attempts=1", 1, 1);
}

#[tokio::test]
async fn two_asks_share_one_round_and_a_dependent_third_follows() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit(
                "Environment for api#1?",
                [accept(json!({"environment": "prod"}))],
            )
            .on_elicit("Replicas?", [accept(json!({"n": 3}))])
            .on_elicit("Deploy 3 replicas to prod?", [accept(json!({"ok": true}))])
    };
    let both = run_both(server, client, "two_then_third", json!({"service": "api"})).await;
    both.assert_table("api#1 prod x3 ok=true", 2, 3);
    assert_eq!(
        both.modern.asked_keys(),
        keys(&[&["env", "replicas"], &["confirm"]])
    );
    assert_eq!(
        both.modern.rounds[1].response_keys,
        ["env", "replicas"],
        "both answers came back in one retry"
    );
    assert_eq!(both.legacy.effects, ["stamp", "sized 3"]);
}

#[tokio::test]
async fn question_mark_propagates_the_users_error_before_and_after_an_ask() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Port for good.internal?", [accept(json!({"name": "8080"}))])
            .on_elicit(
                "Port for bad.internal?",
                [accept(json!({"name": "eighty"}))],
            )
    };
    let ok = run_both(server, client, "question_mark", json!({"service": "good"})).await;
    ok.assert_table("good.internal:8080", 1, 1);
    assert_eq!(ok.legacy.effects, ["host good.internal", "connect"]);

    let after = run_both(server, client, "question_mark", json!({"service": "bad"})).await;
    after.assert_table("tool error: bad port: invalid digit found in string", 1, 1);
    assert_eq!(after.legacy.effects, ["host bad.internal"]);

    let before = run_both(server, client, "question_mark", json!({"service": ""})).await;
    before.assert_table("tool error: empty service name", 0, 0);
    assert!(before.legacy.effects.is_empty());
}

#[tokio::test]
async fn for_loop_resumes_mid_iteration_with_the_remaining_items() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Ship a?", [accept(json!({"ok": true}))])
            .on_elicit("Ship b?", [Reply::Decline])
            .on_elicit("Ship c?", [accept(json!({"ok": true}))])
    };
    let both = run_both(
        server,
        client,
        "for_items",
        json!({"items": ["a", "b", "c"]}),
    )
    .await;
    both.assert_table(r#"approved=["a", "c"] skipped=1"#, 3, 3);
    assert_eq!(
        both.modern.asked_keys(),
        keys(&[&["ship#0"], &["ship#1"], &["ship#2"]])
    );
    assert_eq!(
        both.legacy.effects,
        ["load 3", "inspect a", "inspect b", "inspect c"]
    );

    let empty = run_both(server, client, "for_items", json!({"items": []})).await;
    empty.assert_table("approved=[] skipped=0", 0, 0);
}

#[tokio::test]
async fn labelled_break_and_continue_leave_the_right_loop_across_asks() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("g1 / a: vote?", [accept(json!({"name": "yes"}))])
            .on_elicit("g1 / b: vote?", [accept(json!({"name": "skip-group"}))])
            .on_elicit("g2 / c: vote?", [Reply::Decline])
            .on_elicit("g3 / d: vote?", [accept(json!({"name": "stop"}))])
    };
    let groups = json!({"groups": [
        {"name": "g1", "members": ["a", "b", "never"]},
        {"name": "g2", "members": ["c"]},
        {"name": "g3", "members": ["d", "e"]},
        {"name": "g4", "members": ["f"]},
    ]});
    let both = run_both(server, client, "labelled", groups).await;
    both.assert_table("g1:a=yes,g2 closed", 4, 4);
    assert_eq!(
        both.modern.asked_keys(),
        keys(&[&["vote#0.0"], &["vote#0.1"], &["vote#1.0"], &["vote#2.0"]])
    );
    assert_eq!(both.legacy.effects, ["voted g1/a"]);
}

#[tokio::test]
async fn shadowed_and_pattern_bound_locals_keep_their_own_values() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("x? (seed 42)", [accept(json!({"name": "abc"}))])
            .on_elicit("y for svc/3?", [accept(json!({"name": "Y"}))])
    };
    let both = run_both(
        server,
        client,
        "patterns",
        json!({"service": "svc", "seed": 21}),
    )
    .await;
    both.assert_table("abc|3|abc!|<abc|abc>Y|svc/3", 2, 2);
    assert_eq!(both.legacy.effects, ["x=42", "bound svc/3"]);
}

#[tokio::test]
async fn carried_collections_values_options_integers_and_structs_round_trip() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Owner?", [accept(json!({"id": 7, "name": "ann"}))])
            .on_elicit("Note (1)?", [accept(json!({"name": "third"}))])
    };
    let both = run_both(server, client, "carried_types", json!({"service": "svc"})).await;
    let expected = json!({
        "meta": {"service": "svc", "tags": ["a", "b"], "depth": {"n": 1.5}},
        "quotas": {"extra": [3], "svc": [1, 2]},
        "owner": {"id": 7, "name": "ann"},
        "count": 1, "big": u64::MAX - 1, "negative": -42, "plan": "p1", "steps": ["x"],
        "names": ["first", "second", "third"],
    });
    both.assert_table(&expected.to_string(), 2, 2);

    let nobody = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Owner?", [Reply::Decline])
            .on_elicit("Note (0)?", [Reply::Cancel])
    };
    let both = run_both(server, nobody, "carried_types", json!({"service": "svc"})).await;
    let expected = json!({
        "meta": {"service": "svc", "tags": ["a", "b"], "depth": {"n": 1.5}},
        "quotas": {"extra": [3], "svc": [1, 2]},
        "owner": null,
        "count": 0, "big": u64::MAX - 1, "negative": -42, "plan": "p1", "steps": ["x"],
        "names": ["first", "second"],
    });
    both.assert_table(&expected.to_string(), 2, 2);
}

#[tokio::test]
async fn roots_and_sampling_answers_flow_into_later_asks() {
    let client = || {
        ScriptedClient::new(Caps::ALL)
            .on_roots([root_uris(["file:///repo", "file:///docs"])])
            .on_sample(
                "Summarize file:///repo file:///docs for api",
                [text("two folders")],
            )
    };
    let both = run_both(
        server,
        client,
        "roots_then_sample",
        json!({"service": "api"}),
    )
    .await;
    both.assert_table("2 roots: two folders", 2, 2);
    assert_eq!(
        both.modern.asked_keys(),
        keys(&[&["workspace"], &["summary"]])
    );
    assert_eq!(both.legacy.effects, ["begin", "roots 2"]);
}

#[tokio::test]
async fn overwritten_and_answer_assigned_bindings_resume_with_their_new_values() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("a?", [accept(json!({"name": "live"}))])
            .on_elicit("live?", [Reply::Decline])
            .on_elicit("live, are you sure?", [accept(json!({"name": "yes"}))])
    };
    let both = run_both(server, client, "overwrite", json!({"service": "svc"})).await;
    both.assert_table("live 1 yes", 3, 3);
    assert_eq!(both.legacy.effects, ["start draft-svc", "declined once"]);
}

#[tokio::test]
async fn a_default_answer_overwritten_by_an_ask_needs_no_annotation() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Owner of api?", [accept(json!({"id": 7, "name": "ana"}))])
    };
    let both = run_both(
        server,
        client,
        "default_answer",
        json!({"service": "api", "prod": true}),
    )
    .await;
    both.assert_table("ana (7)", 1, 1);
    assert_eq!(both.legacy.effects, ["start"]);

    let both = run_both(server, client, "default_answer", json!({"service": "api"})).await;
    both.assert_table("nobody", 0, 0);
}

#[tokio::test]
async fn an_unread_default_overwritten_by_an_ask_takes_its_type_from_the_ask() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Owner of api?", [accept(json!({"id": 7, "name": "ana"}))])
    };
    let both = run_both(
        server,
        client,
        "overwritten_default",
        json!({"service": "api"}),
    )
    .await;
    both.assert_table("ana", 1, 1);
    assert_eq!(both.legacy.effects, ["start"]);
}
