//! End to end on the repository's own legacy servers: `examples/servers/legacy/*.rs` ported by
//! the tool must give the checked-in `legacy_examples/*.rs`, with no site left for manual work
//! and nothing more to do on a second run. `compiles.rs` builds those ports and runs them
//! against the hand ports (`scratch/behaviour.rs`). `MRTR_PORT_BLESS=1` rewrites them.

use std::path::Path;

const EXAMPLES: [&str; 3] = ["deploy_service", "release_notes", "repo_tools"];

#[test]
fn the_legacy_examples_port_to_the_checked_in_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in EXAMPLES {
        let legacy = root.join(format!("../examples/servers/legacy/{name}.rs"));
        let text = std::fs::read_to_string(&legacy).expect("legacy example");
        let ported = mrtr_port::port_text(&text).expect("parses");
        assert!(
            ported.report.manual.is_empty(),
            "{name}: {:?}",
            ported.report.manual
        );
        let expected_path = root.join(format!("tests/legacy_examples/{name}.rs"));
        if std::env::var_os("MRTR_PORT_BLESS").is_some() {
            std::fs::write(&expected_path, &ported.text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        assert!(
            expected == ported.text,
            "{name}: the port changed:\n{}",
            similar::TextDiff::from_lines(expected.as_str(), ported.text.as_str())
                .unified_diff()
                .header("checked in", "ported now")
        );
        let again = mrtr_port::port_text(&ported.text).expect("parses");
        assert_eq!(again.text, ported.text, "{name}: a second run changed it");
    }
}
