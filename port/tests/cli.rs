//! The command's contract: modes, exit codes, the atomic write, bad input, idempotence and the
//! manifest, each on a scratch copy of corpus files.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus(case: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(case)
        .join("before.rs");
    std::fs::read_to_string(path).expect("corpus case")
}

/// A scratch crate with the given files under `src/`.
fn scratch(files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"legacy\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nrmcp = \"3\"\n",
    )
    .unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join("src").join(name), text).unwrap();
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrtr-port"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("mrtr-port runs")
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn check_exits_1_on_work_and_changes_nothing() {
    let dir = scratch(&[("deploy.rs", corpus("elicit_match_every_arm"))]);
    let before = read(dir.path(), "src/deploy.rs");
    let out = run(dir.path(), &["--check", "src"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("would change: src/deploy.rs"));
    assert_eq!(read(dir.path(), "src/deploy.rs"), before);
    assert!(!read(dir.path(), "Cargo.toml").contains("mrtr"));
}

#[test]
fn diff_prints_a_unified_diff_and_changes_nothing() {
    let dir = scratch(&[("deploy.rs", corpus("elicit_match_every_arm"))]);
    let before = read(dir.path(), "src/deploy.rs");
    let out = run(dir.path(), &["--diff", "src"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(
        diff.contains("--- a/src/deploy.rs\n+++ b/src/deploy.rs\n"),
        "{diff}"
    );
    assert!(diff.contains("+        let target = match ask!(target: elicit::<Target>("));
    assert!(
        diff.contains("+mrtr = \""),
        "the manifest change is in the diff: {diff}"
    );
    assert_eq!(read(dir.path(), "src/deploy.rs"), before);
}

#[test]
fn a_write_ports_in_place_adds_the_dependency_and_a_second_run_changes_nothing() {
    let dir = scratch(&[
        ("deploy.rs", corpus("elicit_match_every_arm")),
        ("gate.rs", corpus("helper_gate")),
    ]);
    let out = run(dir.path(), &["src"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stderr(&out);
    assert!(
        report.contains("handler ported: deploy (asks: target)"),
        "{report}"
    );
    assert!(
        report.contains("helper marked #[mrtr_helper]: require_confirmation"),
        "{report}"
    );
    assert!(
        report.ends_with("ported 2 handlers (3 asks) in 2 files; 0 sites need manual work\n"),
        "{report}"
    );
    assert!(read(dir.path(), "src/deploy.rs").contains("#[mrtr_tool]"));
    let manifest = read(dir.path(), "Cargo.toml");
    assert!(manifest.contains(&format!("mrtr = \"{}\"", env!("CARGO_PKG_VERSION"))));

    let ported = read(dir.path(), "src/deploy.rs");
    let again = run(dir.path(), &["src"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(read(dir.path(), "src/deploy.rs"), ported);
    assert_eq!(read(dir.path(), "Cargo.toml"), manifest);
    assert!(
        stderr(&again)
            .ends_with("ported 0 handlers (0 asks) in 0 files; 0 sites need manual work\n")
    );
    let check = run(dir.path(), &["--check", "src"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
}

#[test]
fn the_write_goes_through_a_renamed_temp_file_and_leaves_none_behind() {
    let dir = scratch(&[("deploy.rs", corpus("elicit_match_every_arm"))]);
    let path = dir.path().join("src/deploy.rs");
    let inode = std::fs::metadata(&path).unwrap().ino();
    let out = run(dir.path(), &["--no-manifest", "src/deploy.rs"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(
        std::fs::metadata(&path).unwrap().ino(),
        inode,
        "the file was replaced by a rename, not rewritten in place"
    );
    assert_eq!(files_in(&dir.path().join("src")), [path]);
    assert!(
        !read(dir.path(), "Cargo.toml").contains("mrtr"),
        "--no-manifest"
    );
}

#[test]
fn manual_sites_exit_2_with_file_line_col_and_the_rest_is_still_ported() {
    let dir = scratch(&[
        ("prune.rs", corpus("manual_closure")),
        ("deploy.rs", corpus("elicit_match_every_arm")),
    ]);
    let out = run(dir.path(), &["--no-manifest", "src"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let report = stderr(&out);
    assert!(
        report.contains("src/prune.rs:25:31: `peer.elicit(..)` is inside an `async` block"),
        "{report}"
    );
    assert!(report.contains("; suggested change: "), "{report}");
    assert!(report.ends_with("ported 2 handlers (2 asks) in 2 files; 1 sites need manual work\n"));
    assert!(read(dir.path(), "src/deploy.rs").contains("ask!(target:"));
    assert!(read(dir.path(), "src/prune.rs").contains("ask!(first:"));
}

#[test]
fn a_file_that_does_not_parse_exits_3_naming_it_and_nothing_is_written() {
    let dir = scratch(&[
        ("deploy.rs", corpus("elicit_match_every_arm")),
        ("broken.rs", "fn broken() {\n    let x = ;\n}\n".to_string()),
    ]);
    let before = read(dir.path(), "src/deploy.rs");
    let out = run(dir.path(), &["src"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error: src/broken.rs:2:"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("nothing was written"));
    assert_eq!(read(dir.path(), "src/deploy.rs"), before);
    assert!(!read(dir.path(), "Cargo.toml").contains("mrtr"));
}

#[test]
fn a_missing_path_exits_3() {
    let dir = scratch(&[]);
    let out = run(dir.path(), &["src/nope.rs"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("src/nope.rs"), "{}", stderr(&out));
}

#[test]
fn an_existing_mrtr_dependency_is_left_as_it_is() {
    let dir = scratch(&[("deploy.rs", corpus("elicit_match_every_arm"))]);
    let manifest = "[package]\nname = \"legacy\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nmrtr = { path = \"../mrtr/runtime\" }\n";
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    let out = run(dir.path(), &["src"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(dir.path(), "Cargo.toml"), manifest);
}

#[test]
fn an_elicited_type_defined_in_another_file_gets_its_derive_there() {
    let tool = corpus("elicit_if_let").replace(
        "#[derive(Debug, Deserialize, schemars::JsonSchema)]\npub struct Confirm {\n    pub confirmed: bool,\n}\nrmcp::elicit_safe!(Confirm);\n",
        "use crate::types::Confirm;\n",
    );
    assert!(tool.contains("use crate::types::Confirm;"), "{tool}");
    let types = "use rmcp::schemars;\nuse serde::Deserialize;\n\n#[derive(Debug, Deserialize, schemars::JsonSchema)]\npub struct Confirm {\n    pub confirmed: bool,\n}\nrmcp::elicit_safe!(Confirm);\n";
    let dir = scratch(&[("tool.rs", tool), ("types.rs", types.to_string())]);
    let out = run(dir.path(), &["--no-manifest", "src"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        read(dir.path(), "src/types.rs")
            .contains("#[derive(Debug, Deserialize, schemars::JsonSchema, mrtr::Elicit)]")
    );
}

#[test]
fn an_elicited_type_defined_nowhere_in_the_run_is_left_to_the_user() {
    let tool = corpus("elicit_if_let").replace(
        "#[derive(Debug, Deserialize, schemars::JsonSchema)]\npub struct Confirm {\n    pub confirmed: bool,\n}\nrmcp::elicit_safe!(Confirm);\n",
        "use crate::types::Confirm;\n",
    );
    let dir = scratch(&[("tool.rs", tool)]);
    let out = run(dir.path(), &["--no-manifest", "src/tool.rs"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`Confirm` is elicited but defined in no file given to this run"),
        "{}",
        stderr(&out)
    );
    assert!(read(dir.path(), "src/tool.rs").contains("ask!(confirm: elicit::<Confirm>"));
}

#[test]
fn a_helper_in_another_file_is_marked_there_and_entered_with_ask_here() {
    let gate = r#"use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, schemars};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Confirmation {
    pub confirmed: bool,
}
rmcp::elicit_safe!(Confirmation);

pub async fn require_confirmation(
    context: &RequestContext<RoleServer>,
    message: &str,
) -> Option<CallToolResult> {
    match context
        .peer
        .elicit::<Confirmation>(format!("{message}: confirm?"))
        .await
    {
        Ok(Some(Confirmation { confirmed: true })) => None,
        _ => Some(CallToolResult::success(vec![ContentBlock::text("stopped")])),
    }
}
"#;
    let tools = r#"use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};

use crate::gate::require_confirmation;

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Delete everything")]
    async fn delete_all(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(stop) = require_confirmation(&context, "delete all").await {
            return Ok(stop);
        }
        Ok(CallToolResult::success(vec![ContentBlock::text("deleted")]))
    }
}
"#;
    let dir = scratch(&[
        ("gate.rs", gate.to_string()),
        ("tools.rs", tools.to_string()),
    ]);
    let out = run(dir.path(), &["--no-manifest", "src"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let gate = read(dir.path(), "src/gate.rs");
    let tools = read(dir.path(), "src/tools.rs");
    // Only the request used the context: the parameter goes, here and at the call.
    assert!(
        gate.contains("#[mrtr_helper]\npub async fn require_confirmation(message: &str)"),
        "{gate}"
    );
    assert!(
        tools.contains("ask!(require_confirmation: require_confirmation(\"delete all\").await)"),
        "{tools}"
    );
    assert!(tools.contains("#[mrtr_tool]"), "{tools}");
    let again = run(dir.path(), &["--no-manifest", "src"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(
        read(dir.path(), "src/tools.rs"),
        tools,
        "a second run changes nothing"
    );
}

#[test]
fn usage_errors_exit_3_and_help_exits_0() {
    let dir = scratch(&[]);
    for args in [
        &[][..],
        &["--bogus", "src"][..],
        &["--check", "--diff", "src"][..],
    ] {
        let out = run(dir.path(), args);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("usage: mrtr-port"),
            "{}",
            stderr(&out)
        );
    }
    let help = run(dir.path(), &["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("--no-manifest"));
}

#[test]
fn check_with_only_manual_work_left_exits_2() {
    let dir = scratch(&[("ship.rs", corpus("manual_spawned_task"))]);
    let out = run(dir.path(), &["--check", "src"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn the_whole_corpus_in_one_run_ports_each_file_as_alone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut cases: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    cases.sort();
    let files: Vec<(String, String)> = cases
        .iter()
        .map(|case| (format!("{case}.rs"), corpus(case)))
        .collect();
    let refs: Vec<(&str, String)> = files.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let dir = scratch(&refs);
    let out = run(dir.path(), &["--no-manifest", "src"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    for case in &cases {
        let expected = std::fs::read_to_string(root.join(case).join("after.rs")).unwrap();
        assert_eq!(
            read(dir.path(), &format!("src/{case}.rs")),
            expected,
            "{case} ported differently among the others"
        );
    }
}

#[test]
fn a_request_on_a_peer_the_port_cannot_trace_is_reported_not_skipped() {
    let tool = r#"use rmcp::model::CallToolResult;
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};

pub struct State {
    pub peer: Peer<RoleServer>,
    pub client: Peer<RoleServer>,
}

pub struct Server {
    pub state: State,
}

#[tool_router]
impl Server {
    #[tool(description = "asks through a peer kept in a struct")]
    async fn roots(&self) -> Result<CallToolResult, ErrorData> {
        let roots = self.state.peer.list_roots().await;
        let _asked = self.state.client.elicit::<String>("name?".to_owned()).await;
        Ok(CallToolResult::success(vec![rmcp::model::ContentBlock::text(format!("{}", roots.is_ok()))]))
    }
}
"#;
    let dir = scratch(&[("tool.rs", tool.to_owned())]);
    let out = run(dir.path(), &["--no-manifest", "src/tool.rs"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("src/tool.rs:17:")
            && stderr(&out).contains("`self.state.peer.list_roots(..)` looks like a client request on a peer the port does not trace"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        read(dir.path(), "src/tool.rs"),
        tool,
        "nothing was rewritten"
    );
}
