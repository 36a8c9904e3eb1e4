//! Every corpus file compiles: each `before.rs` against rmcp as a legacy server, each
//! `after.rs` against the workspace's `mrtr`. They are modules of this test, so they are built
//! with the rest of the workspace; `corpus.rs` checks that no case is missing here.
// The corpus is code as users write it, not this crate's code: unused items and rmcp's
// deprecations are expected there.
#![allow(unused, deprecated, clippy::all)]

#[path = "corpus/already_ported/before.rs"]
mod already_ported_before;
#[path = "corpus/already_ported/after.rs"]
mod already_ported_after;
#[path = "corpus/context_peer_kept_for_cancellation/before.rs"]
mod context_peer_kept_for_cancellation_before;
#[path = "corpus/context_peer_kept_for_cancellation/after.rs"]
mod context_peer_kept_for_cancellation_after;
#[path = "corpus/context_probe_is_empty/before.rs"]
mod context_probe_is_empty_before;
#[path = "corpus/context_probe_is_empty/after.rs"]
mod context_probe_is_empty_after;
#[path = "corpus/dispatcher_call_tool/before.rs"]
mod dispatcher_call_tool_before;
#[path = "corpus/dispatcher_call_tool/after.rs"]
mod dispatcher_call_tool_after;
#[path = "corpus/elicit_if_let/before.rs"]
mod elicit_if_let_before;
#[path = "corpus/elicit_if_let/after.rs"]
mod elicit_if_let_after;
#[path = "corpus/elicit_let_else/before.rs"]
mod elicit_let_else_before;
#[path = "corpus/elicit_let_else/after.rs"]
mod elicit_let_else_after;
#[path = "corpus/elicit_let_then_matches_in_loop/before.rs"]
mod elicit_let_then_matches_in_loop_before;
#[path = "corpus/elicit_let_then_matches_in_loop/after.rs"]
mod elicit_let_then_matches_in_loop_after;
#[path = "corpus/elicit_map_err_try/before.rs"]
mod elicit_map_err_try_before;
#[path = "corpus/elicit_map_err_try/after.rs"]
mod elicit_map_err_try_after;
#[path = "corpus/elicit_match_every_arm/before.rs"]
mod elicit_match_every_arm_before;
#[path = "corpus/elicit_match_every_arm/after.rs"]
mod elicit_match_every_arm_after;
#[path = "corpus/elicit_or_patterns/before.rs"]
mod elicit_or_patterns_before;
#[path = "corpus/elicit_or_patterns/after.rs"]
mod elicit_or_patterns_after;
#[path = "corpus/elicit_wildcard_arm/before.rs"]
mod elicit_wildcard_arm_before;
#[path = "corpus/elicit_wildcard_arm/after.rs"]
mod elicit_wildcard_arm_after;
#[path = "corpus/helper_depth_two/before.rs"]
mod helper_depth_two_before;
#[path = "corpus/helper_depth_two/after.rs"]
mod helper_depth_two_after;
#[path = "corpus/helper_gate/before.rs"]
mod helper_gate_before;
#[path = "corpus/helper_gate/after.rs"]
mod helper_gate_after;
#[path = "corpus/helper_result_try/before.rs"]
mod helper_result_try_before;
#[path = "corpus/helper_result_try/after.rs"]
mod helper_result_try_after;
#[path = "corpus/join_two_requests/before.rs"]
mod join_two_requests_before;
#[path = "corpus/join_two_requests/after.rs"]
mod join_two_requests_after;
#[path = "corpus/manual_closure/before.rs"]
mod manual_closure_before;
#[path = "corpus/manual_closure/after.rs"]
mod manual_closure_after;
#[path = "corpus/manual_create_elicitation/before.rs"]
mod manual_create_elicitation_before;
#[path = "corpus/manual_create_elicitation/after.rs"]
mod manual_create_elicitation_after;
#[path = "corpus/manual_select/before.rs"]
mod manual_select_before;
#[path = "corpus/manual_select/after.rs"]
mod manual_select_after;
#[path = "corpus/manual_spawned_task/before.rs"]
mod manual_spawned_task_before;
#[path = "corpus/manual_spawned_task/after.rs"]
mod manual_spawned_task_after;
#[path = "corpus/probe_function/before.rs"]
mod probe_function_before;
#[path = "corpus/probe_function/after.rs"]
mod probe_function_after;
#[path = "corpus/prompt_handler/before.rs"]
mod prompt_handler_before;
#[path = "corpus/prompt_handler/after.rs"]
mod prompt_handler_after;
#[path = "corpus/roots_helper_map_err/before.rs"]
mod roots_helper_map_err_before;
#[path = "corpus/roots_helper_map_err/after.rs"]
mod roots_helper_map_err_after;
#[path = "corpus/roots_match/before.rs"]
mod roots_match_before;
#[path = "corpus/roots_match/after.rs"]
mod roots_match_after;
#[path = "corpus/sample_bound_then_matched/before.rs"]
mod sample_bound_then_matched_before;
#[path = "corpus/sample_bound_then_matched/after.rs"]
mod sample_bound_then_matched_after;
#[path = "corpus/sample_match_ok_err/before.rs"]
mod sample_match_ok_err_before;
#[path = "corpus/sample_match_ok_err/after.rs"]
mod sample_match_ok_err_after;
#[path = "corpus/two_asks_same_type/before.rs"]
mod two_asks_same_type_before;
#[path = "corpus/two_asks_same_type/after.rs"]
mod two_asks_same_type_after;

#[test]
fn the_corpus_compiles() {
    // Building this test is the check; nothing to run.
}
