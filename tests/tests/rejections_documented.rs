//! Every compile error `#[mrtr_tool]` can raise is a documented rejection: each compile-fail
//! case of the lowering (`tests/ui/{carried,ask_position,ask_keys,handler,helpers}`) maps to its row of
//! the README's "What the lowering rejects" table, so a new rejection cannot ship without one.

use std::path::Path;

/// UI case → a phrase of its README row (or of the paragraph on what a rejected handler still
/// gets, for the cases that check that behaviour).
const ROWS: &[(&str, &str)] = &[
    ("carried/borrowed_local", "a carried local that borrows"),
    ("carried/closure_local", "a carried closure"),
    ("carried/declared_without_value", "`let x;` without a value"),
    (
        "carried/for_over_borrowed_items",
        "`for` over borrowed items",
    ),
    (
        "carried/mut_parameter",
        "a `mut` parameter still used after an `ask!`",
    ),
    (
        "carried/not_serializable",
        "a carried local whose type is not",
    ),
    (
        "carried/partially_moved",
        "a carried local partly moved before an `ask!`",
    ),
    (
        "carried/too_many_locals",
        "more than 64 locals carried by one handler",
    ),
    (
        "carried/transfer_not_send",
        "flowing out of a block that contains `ask!`",
    ),
    ("ask_position/as_call_argument", "or as a sub-expression"),
    ("ask_position/in_async_block", "an `async` block"),
    ("ask_position/in_closure", "`ask!` in a closure"),
    ("ask_position/in_format_args", "another macro's arguments"),
    ("ask_position/in_nested_fn", "a nested `fn`/`impl`"),
    ("ask_position/in_select", "`ask!` raced inside `select!`"),
    (
        "helpers/await_outside_ask",
        "an `#[mrtr_helper]` call awaited outside `ask!`",
    ),
    (
        "helpers/mut_borrowed_parameter",
        "a `&mut` helper parameter",
    ),
    (
        "helpers/ask_in_closure_inside_helper",
        "the same placement rules hold inside a helper",
    ),
    (
        "helpers/helper_site_with_other_keys",
        "a helper site sharing its `ask!` with other keys",
    ),
    (
        "helpers/await_on_something_else",
        "`.await` inside `ask!` on anything but a helper call",
    ),
    (
        "helpers/question_mark_with_an_alias",
        "`?` in a helper whose return type is an alias",
    ),
    (
        "helpers/borrowed_parameter_pattern",
        "a borrowed helper parameter bound by a pattern",
    ),
    (
        "helpers/not_async_or_with_arguments",
        "`#[mrtr_helper]` with arguments, on a non-`async` fn",
    ),
    (
        "helpers/helper_on_a_trait_method",
        "`#[mrtr_helper]` on a trait method",
    ),
    (
        "helpers/helper_on_a_local_receiver",
        "a helper method entered on a local",
    ),
    (
        "ask_position/outside_mrtr_tool",
        "`ask!` outside `#[mrtr_tool]`",
    ),
    ("ask_keys/duplicate_key", "duplicate ask keys"),
    (
        "ask_keys/empty_ask",
        "an `ask!` without a `key: request` pair",
    ),
    (
        "ask_keys/key_not_identifier",
        "a key that is not an identifier",
    ),
    (
        "handler/answers_keep_their_types",
        "each `ask!` standing for an",
    ),
    (
        "handler/impl_reports_method_errors_once",
        "one compile reports them",
    ),
    (
        "handler/impl_with_arguments",
        "`#[mrtr_tool]` with arguments on an impl",
    ),
    (
        "handler/labelled_block",
        "a labelled block (`'done: { .. }`) that contains an `ask!`",
    ),
    ("handler/not_async", "`#[mrtr_tool]` on a non-`async` fn"),
    (
        "handler/client_caps_of_another_crate",
        "a tool parameter of a type named `ClientCaps` or `StepKey` that is not mrtr's",
    ),
    (
        "handler/not_send_across_await",
        "a `!Send` value kept across an `.await`",
    ),
    (
        "handler/original_body_still_checked",
        "rustc and rust-analyzer keep checking",
    ),
];

fn rejections_section() -> String {
    let readme = include_str!("../../README.md");
    let start = readme
        .find("### What the lowering rejects")
        .expect("the README has its rejection table");
    let rest = &readme[start..];
    let end = rest[4..].find("\n## ").map_or(rest.len(), |i| i + 4);
    rest[..end].to_owned()
}

#[test]
fn every_lowering_compile_error_has_a_readme_row() {
    let section = rejections_section();
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui");
    let mut unlisted = Vec::new();
    for topic in ["carried", "ask_position", "ask_keys", "handler", "helpers"] {
        for entry in std::fs::read_dir(ui.join(topic)).expect("the ui topic exists") {
            let path = entry.expect("a readable entry").path();
            if path.extension().is_some_and(|e| e == "rs") {
                let case = format!("{topic}/{}", path.file_stem().unwrap().to_string_lossy());
                if !ROWS.iter().any(|(c, _)| *c == case) {
                    unlisted.push(case);
                }
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "compile-fail cases without a README row: {unlisted:?}"
    );
    let missing: Vec<_> = ROWS
        .iter()
        .filter(|(_, phrase)| !section.contains(phrase))
        .collect();
    assert!(
        missing.is_empty(),
        "README rows not found in the rejection section: {missing:?}"
    );
}
