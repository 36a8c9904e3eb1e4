//! Lowering defects found outside the behaviour table (by users' shapes and by the differential
//! tests), each kept as the smallest handler that showed it, run on both eras with the effect
//! log, the round count and the result checked through `Both::assert_table`.
// A warning in generated code is a defect too: users build with `-D warnings`.
#![deny(warnings)]

use mrtr::testing::*;
use mrtr::{Answer, ask, mrtr_tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Clone, Serialize, Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(default)]
struct Args {
    review: bool,
    items: Vec<String>,
    note: Option<String>,
    run: String,
    tries: u32,
}

fn reply(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

struct Regressions {
    effects: Effects,
}

#[tool_router]
impl Regressions {
    /// A `for` loop that asks, as the whole tail of an `if` branch: the branch's value is the
    /// loop's `()`, which used to be lost on the way to the join ("slot ... is empty").
    #[mrtr_tool]
    #[tool(description = "for loop that asks, as the tail of an if branch")]
    async fn loop_tail_of_if(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut approved = Vec::new();
        if args.review {
            for item in args.items.clone() {
                let answer = ask!(approve: elicit::<Confirm>(format!("Approve {item}?")));
                self.effects.record(format!("reviewed {item}"));
                if let Answer::Accept(Confirm { ok: true }) = answer {
                    approved.push(item);
                }
            }
        }
        self.effects.record("after the if");
        Ok(reply(format!("approved: {}", approved.join(","))))
    }

    /// The same with a `while` loop as the tail of a `match` arm, and the `match` as a `let`'s
    /// value.
    #[mrtr_tool]
    #[tool(description = "while loop that asks, as the tail of a match arm")]
    async fn loop_tail_of_match_arm(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut asked = 0u32;
        let unit = match args.tries {
            0 => self.effects.record("no tries"),
            _ => {
                while asked < args.tries {
                    let _ = ask!(again: elicit::<Confirm>(format!("Again ({asked})?")));
                    asked += 1;
                    self.effects.record(format!("asked {asked}"));
                }
            }
        };
        let () = unit;
        self.effects.record("after the match");
        Ok(reply(format!("asked {asked}")))
    }

    /// A field moved out of a parameter before an `ask!`, another field used after it: the
    /// parameter is refilled from the request, never parked whole.
    #[mrtr_tool]
    #[tool(description = "a parameter's field moved out before an ask")]
    async fn param_field_moved_before_ask(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut noted = String::from("no note");
        if let Some(note) = args.note {
            self.effects.record(format!("note {note}"));
            let answer = ask!(keep_note: elicit::<Confirm>(format!("Keep the note {note}?")));
            if let Answer::Accept(Confirm { ok: true }) = answer {
                noted = note;
            }
        }
        self.effects.record(format!("run {}", args.run));
        let go = ask!(go: elicit::<Confirm>(format!("Run {}?", args.run)));
        let go = matches!(go, Answer::Accept(Confirm { ok: true }));
        Ok(reply(format!("{noted}; run {} go={go}", args.run)))
    }

    /// `let .. else` on an `if` that asks: rustc requires the parentheses, which used to hide
    /// the `if` from the lowering ("`ask!` can only be the whole initializer ..").
    #[mrtr_tool]
    #[tool(description = "let else on a parenthesised if that asks")]
    async fn let_else_on_a_parenthesised_if(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(kept) = (if args.review {
            let answer = ask!(keep: elicit::<Confirm>("Keep it?"));
            self.effects.record("asked");
            answer.accepted().map(|c| c.ok)
        } else {
            None
        }) else {
            return Ok(reply("nothing kept"));
        };
        self.effects.record("kept");
        Ok(reply(format!("kept={kept}")))
    }

    /// An answer kept while a second question is asked: the first `Answer` is carried.
    #[mrtr_tool]
    #[tool(description = "an answer carried across the next ask")]
    async fn answer_carried_across_the_next_ask(
        &self,
        Parameters(_args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let first = ask!(first: elicit::<Confirm>("First?"));
        self.effects.record("between");
        let second = ask!(second: elicit::<Confirm>("Second?"));
        let verdict = match (first, second) {
            (Answer::Accept(a), Answer::Accept(b)) => format!("both {} {}", a.ok, b.ok),
            (Answer::Decline, _) | (_, Answer::Decline) => "declined".to_owned(),
            _ => "cancelled".to_owned(),
        };
        Ok(reply(verdict))
    }

    /// A `continue` under an inner binding that hides a local the loop head needs (`tries`),
    /// and a `let .. else` hiding a local the code after the `if` reads: both used to be
    /// refused ("rename that inner binding"); the outer bindings are now parked by name.
    #[mrtr_tool]
    #[tool(description = "jumps and let-else under shadowing bindings")]
    async fn shadowing_around_jumps_and_let_else(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut tries = 0;
        for item in args.items.clone() {
            let ok = ask!(ok: elicit::<Confirm>(format!("Take {item}?")));
            if ok.is_decline() {
                let tries = 99;
                self.effects.record(format!("skip {item} {tries}"));
                continue;
            }
            tries += 1;
        }
        let label = format!("tries {tries}");
        if args.review {
            let Some(label) = args.items.first().cloned() else {
                return Ok(reply("no items"));
            };
            let last = ask!(last: elicit::<Confirm>(format!("Last look at {label}?")));
            self.effects
                .record(format!("looked at {label} {}", last.is_accept()));
        }
        Ok(reply(label))
    }

    /// Patterns of an `if let`, a `match` arm and an `if let` that initializes a `let` of the
    /// same name, each hiding a local of another type that the code after them still reads
    /// (found by the differential tests: E0308 / E0382 in the lowered code).
    #[mrtr_tool]
    #[tool(description = "pattern bindings hiding locals the code after them reads")]
    async fn patterns_hiding_live_locals(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let v: u32 = args.tries;
        let note = args.note.clone();
        if let Some(v) = note.clone() {
            let a = ask!(first: elicit::<Confirm>(format!("Note {v}?")));
            self.effects.record(format!("note {v} {}", a.is_accept()));
        }
        let w: String = if let Some(w) = note {
            let b = ask!(second: elicit::<Confirm>(format!("Again {w}?")));
            format!("{w}:{}", b.is_accept())
        } else {
            String::new()
        };
        let r = match Some(v + 1) {
            Some(v) if v > 1 => {
                let c = ask!(third: elicit::<Confirm>(format!("Bump {v}?")));
                v + u32::from(c.is_accept())
            }
            _ => 0,
        };
        Ok(reply(format!("{v} {w} {r}")))
    }

    /// A `let .. else` on an ask whose pattern hides a local the loop head still reads, with a
    /// `continue` in its `else` (differential tests: E0382, the local parked twice).
    #[mrtr_tool]
    #[tool(description = "let-else on an ask hiding a loop-live local")]
    async fn let_else_on_an_ask_hiding_a_loop_local(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let label = args.run.clone();
        let mut rounds = 0u32;
        let summary = loop {
            if rounds >= 2 {
                break format!("{label} after {rounds}");
            }
            rounds += 1;
            let Answer::Accept(Confirm { ok: label }) =
                ask!(again: elicit::<Confirm>(format!("Round {rounds} for {label}?")))
            else {
                self.effects.record(format!("refused {label}"));
                continue;
            };
            self.effects.record(format!("round {rounds} ok={label}"));
        };
        Ok(reply(summary))
    }

    /// A local only overwritten after an ask, inside an `if` (never read again): the arm must
    /// still declare it (differential tests: E0425 once writes stopped counting as reads).
    #[mrtr_tool]
    #[tool(description = "a local only overwritten after an ask")]
    #[allow(unused_assignments)] // the shape under test: plain rustc warns about it too
    async fn local_only_overwritten_after_an_ask(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut last = 0u32;
        self.effects.record(format!("start {last}"));
        let go = ask!(go: elicit::<Confirm>("Go?"));
        if go.is_accept() {
            last = args.tries;
            self.effects.record("overwritten");
        }
        Ok(reply(format!("go={}", go.is_accept())))
    }
}

/// A store whose `get` returns an owned value, as caches commonly do.
struct Cache;

impl Cache {
    fn get(&self, key: &str) -> Option<String> {
        Some(format!("cached {key}"))
    }
}

#[tool_router(router = owned_locals_router)]
impl Regressions {
    /// A capitalised local bound by a plain `let` is a local (not a constant), and a value
    /// from a method named like a borrowing one (`get`) is trusted as owned once its type is
    /// written on the `let`: both are carried across the ask.
    #[mrtr_tool]
    #[tool(description = "capitalised and annotated locals carried across an ask")]
    #[allow(non_snake_case)]
    async fn capitalised_and_annotated_locals(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        let LIMIT = args.tries + 1;
        let cached: Option<String> = Cache.get(&args.run);
        self.effects.record(format!("limit {LIMIT}"));
        let go = ask!(go: elicit::<Confirm>(format!("Use {LIMIT}?")));
        Ok(reply(format!(
            "{LIMIT} {} go={}",
            cached.unwrap_or_default(),
            go.is_accept()
        )))
    }

    /// Asks written where legacy code awaited its requests: a `match` scrutinee, an `if let`
    /// and a method call's receiver. Each is moved into a `let` before its statement.
    #[mrtr_tool]
    #[tool(description = "asks as the first thing their statements evaluate")]
    async fn first_evaluated_asks(
        &self,
        Parameters(args): Parameters<Args>,
    ) -> Result<CallToolResult, ErrorData> {
        self.effects.record("start");
        let label = match ask!(pick: elicit::<Confirm>("Pick?")) {
            Answer::Accept(Confirm { ok: true }) => String::from("picked"),
            Answer::Accept(_) => String::from("not picked"),
            Answer::Decline | Answer::Cancel => return Ok(reply("dismissed")),
        };
        self.effects.record(label.clone());
        if let Answer::Accept(Confirm { ok }) =
            ask!(second: elicit::<Confirm>(format!("Second after {label}?")))
        {
            self.effects.record(format!("second {ok}"));
        }
        let third = ask!(third: elicit::<Confirm>("Third?")).is_accept();
        Ok(reply(format!("{label} third={third} tries={}", args.tries)))
    }
}

fn server(effects: Effects) -> TestServer<Regressions> {
    TestServer::new(
        Regressions { effects },
        Regressions::tool_router() + Regressions::owned_locals_router(),
        test_runtime("regressions"),
    )
}

#[tokio::test]
async fn a_for_loop_that_asks_as_an_if_branch_tail_reaches_the_code_after_the_if() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Approve a?", [accept(json!({"ok": true}))])
            .on_elicit("Approve b?", [accept(json!({"ok": false}))])
            .on_elicit("Approve c?", [accept(json!({"ok": true}))])
    };
    let args = json!({"review": true, "items": ["a", "b", "c"]});
    let both = run_both(server, client, "loop_tail_of_if", args).await;
    both.assert_table("approved: a,c", 3, 3);
    assert_eq!(
        both.legacy.effects,
        ["reviewed a", "reviewed b", "reviewed c", "after the if"]
    );

    let skipped = run_both(
        server,
        client,
        "loop_tail_of_if",
        json!({"review": false, "items": ["a"]}),
    )
    .await;
    skipped.assert_table("approved: ", 0, 0);
    assert_eq!(skipped.legacy.effects, ["after the if"]);
}

#[tokio::test]
async fn a_while_loop_that_asks_as_a_match_arm_tail_reaches_the_code_after_the_match() {
    let client =
        || ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Again", [accept(json!({"ok": true}))]);
    let both = run_both(
        server,
        client,
        "loop_tail_of_match_arm",
        json!({"tries": 2}),
    )
    .await;
    both.assert_table("asked 2", 2, 2);
    assert_eq!(
        both.legacy.effects,
        ["asked 1", "asked 2", "after the match"]
    );

    let none = run_both(
        server,
        client,
        "loop_tail_of_match_arm",
        json!({"tries": 0}),
    )
    .await;
    none.assert_table("asked 0", 0, 0);
    assert_eq!(none.legacy.effects, ["no tries", "after the match"]);
}

#[tokio::test]
async fn a_parameter_field_moved_before_an_ask_leaves_its_other_fields_usable_after_it() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Keep the note n1?", [accept(json!({"ok": true}))])
            .on_elicit("Run r1?", [accept(json!({"ok": true}))])
    };
    let both = run_both(
        server,
        client,
        "param_field_moved_before_ask",
        json!({"note": "n1", "run": "r1"}),
    )
    .await;
    both.assert_table("n1; run r1 go=true", 2, 2);
    assert_eq!(both.legacy.effects, ["note n1", "run r1"]);

    let without = run_both(
        server,
        client,
        "param_field_moved_before_ask",
        json!({"run": "r1"}),
    )
    .await;
    without.assert_table("no note; run r1 go=true", 1, 1);
    assert_eq!(without.legacy.effects, ["run r1"]);
}

#[tokio::test]
async fn let_else_on_a_parenthesised_if_that_asks_binds_or_diverges() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Keep it?", [accept(json!({"ok": true}))])
    };
    let args = json!({"review": true});
    let both = run_both(server, client, "let_else_on_a_parenthesised_if", args).await;
    both.assert_table("kept=true", 1, 1);
    assert_eq!(both.legacy.effects, ["asked", "kept"]);

    let refuse = || ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Keep it?", [Reply::Decline]);
    let declined = run_both(
        server,
        refuse,
        "let_else_on_a_parenthesised_if",
        args_of(true),
    )
    .await;
    declined.assert_table("nothing kept", 1, 1);
    assert_eq!(declined.legacy.effects, ["asked"]);

    let skipped = run_both(
        server,
        client,
        "let_else_on_a_parenthesised_if",
        args_of(false),
    )
    .await;
    skipped.assert_table("nothing kept", 0, 0);
    assert!(skipped.legacy.effects.is_empty());
}

fn args_of(review: bool) -> serde_json::Value {
    json!({ "review": review })
}

#[tokio::test]
async fn an_answer_read_after_a_second_ask_is_carried_across_it() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("First?", [accept(json!({"ok": true}))])
            .on_elicit("Second?", [accept(json!({"ok": false}))])
    };
    let both = run_both(
        server,
        client,
        "answer_carried_across_the_next_ask",
        json!({}),
    )
    .await;
    both.assert_table("both true false", 2, 2);
    assert_eq!(both.legacy.effects, ["between"]);

    let declined = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("First?", [Reply::Decline])
            .on_elicit("Second?", [Reply::Cancel])
    };
    let both = run_both(
        server,
        declined,
        "answer_carried_across_the_next_ask",
        json!({}),
    )
    .await;
    both.assert_table("declined", 2, 2);
}

#[tokio::test]
async fn bindings_hidden_around_a_jump_or_by_a_let_else_keep_their_outer_values() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Take a?", [accept(json!({"ok": true}))])
            .on_elicit("Take b?", [Reply::Decline])
            .on_elicit("Take c?", [accept(json!({"ok": true}))])
            .on_elicit("Last look at a?", [accept(json!({"ok": true}))])
    };
    let args = json!({"items": ["a", "b", "c"], "review": true});
    let both = run_both(server, client, "shadowing_around_jumps_and_let_else", args).await;
    both.assert_table("tries 2", 4, 4);
    assert_eq!(both.legacy.effects, ["skip b 99", "looked at a true"]);

    let args = json!({"items": [], "review": true});
    let empty = run_both(server, client, "shadowing_around_jumps_and_let_else", args).await;
    empty.assert_table("no items", 0, 0);
}

#[tokio::test]
async fn pattern_bindings_that_hide_live_locals_leave_the_outer_values_intact() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Note n?", [accept(json!({"ok": true}))])
            .on_elicit("Again n?", [Reply::Decline])
            .on_elicit("Bump 4?", [accept(json!({"ok": true}))])
    };
    let args = json!({"tries": 3, "note": "n"});
    let both = run_both(server, client, "patterns_hiding_live_locals", args).await;
    both.assert_table("3 n:false 5", 3, 3);
    assert_eq!(both.legacy.effects, ["note n true"]);

    let args = json!({"tries": 0});
    let none = run_both(server, client, "patterns_hiding_live_locals", args).await;
    none.assert_table("0  0", 0, 0);
}

#[tokio::test]
async fn a_let_else_on_an_ask_that_hides_a_loop_local_keeps_the_outer_value_for_the_head() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Round 1 for r?", [Reply::Decline])
            .on_elicit("Round 2 for r?", [accept(json!({"ok": true}))])
    };
    let args = json!({"run": "r"});
    let both = run_both(
        server,
        client,
        "let_else_on_an_ask_hiding_a_loop_local",
        args,
    )
    .await;
    both.assert_table("r after 2", 2, 2);
    assert_eq!(both.legacy.effects, ["refused r", "round 2 ok=true"]);
}

#[tokio::test]
async fn a_local_only_overwritten_after_an_ask_compiles_and_runs_on_both_eras() {
    let client =
        || ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Go?", [accept(json!({"ok": true}))]);
    let both = run_both(
        server,
        client,
        "local_only_overwritten_after_an_ask",
        json!({"tries": 4}),
    )
    .await;
    both.assert_table("go=true", 1, 1);
    assert_eq!(both.legacy.effects, ["start 0", "overwritten"]);
}

#[tokio::test]
async fn a_capitalised_let_local_and_an_annotated_owned_get_are_carried() {
    let client =
        || ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Use 4?", [accept(json!({"ok": true}))]);
    let args = json!({"tries": 3, "run": "r"});
    let both = run_both(server, client, "capitalised_and_annotated_locals", args).await;
    both.assert_table("4 cached r go=true", 1, 1);
    assert_eq!(both.legacy.effects, ["limit 4"]);
}

#[tokio::test]
async fn asks_in_first_evaluated_positions_run_once_in_order_on_both_eras() {
    let client = || {
        ScriptedClient::new(Caps::FORM_ONLY)
            .on_elicit("Pick?", [accept(json!({"ok": true}))])
            .on_elicit("Second after picked?", [accept(json!({"ok": false}))])
            .on_elicit("Third?", [Reply::Decline])
    };
    let both = run_both(server, client, "first_evaluated_asks", json!({"tries": 2})).await;
    both.assert_table("picked third=false tries=2", 3, 3);
    assert_eq!(both.legacy.effects, ["start", "picked", "second false"]);

    let dismissed = || ScriptedClient::new(Caps::FORM_ONLY).on_elicit("Pick?", [Reply::Cancel]);
    let both = run_both(server, dismissed, "first_evaluated_asks", json!({})).await;
    both.assert_table("dismissed", 1, 1);
    assert_eq!(both.legacy.effects, ["start"]);
}
