//! The corpus: each `tests/corpus/<case>/before.rs` is a legacy handler shape; porting it must
//! give `after.rs` byte for byte, print `report.txt`, and porting `after.rs` again must change
//! nothing. `MRTR_PORT_BLESS=1 cargo test -p mrtr-port --test corpus` rewrites the expectations
//! (review the diff). `compiles.rs` builds every `before.rs` and `after.rs`.

use std::path::{Path, PathBuf};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/corpus exists")
        .map(|e| e.expect("readable corpus").path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    cases
}

fn report_of(ported: &mrtr_port::Ported) -> String {
    format!(
        "{}{}\n",
        ported.report.render("before.rs"),
        mrtr_port::summary(std::slice::from_ref(&ported.report))
    )
}

fn bless() -> bool {
    std::env::var_os("MRTR_PORT_BLESS").is_some()
}

/// Compares or, when blessing, writes one expectation; returns a failure message.
fn expect(path: &Path, actual: &str) -> Option<String> {
    if bless() {
        std::fs::write(path, actual).expect("write expectation");
        return None;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    (expected != actual).then(|| {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
            .unified_diff()
            .header("expected", "actual")
            .to_string();
        format!("{}:\n{diff}", path.display())
    })
}

#[test]
fn every_case_ports_to_its_after_rs_and_reports_its_report_txt() {
    let mut failures = Vec::new();
    for case in cases() {
        let before = std::fs::read_to_string(case.join("before.rs")).expect("before.rs");
        let ported = mrtr_port::port_text(&before).expect("before.rs parses");
        failures.extend(expect(&case.join("after.rs"), &ported.text));
        failures.extend(expect(&case.join("report.txt"), &report_of(&ported)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn porting_the_ported_corpus_again_changes_nothing() {
    for case in cases() {
        let after = std::fs::read_to_string(case.join("after.rs")).expect("after.rs");
        let again = mrtr_port::port_text(&after).expect("after.rs parses");
        assert_eq!(
            again.text,
            after,
            "{} changed on a second run",
            case.display()
        );
        assert_eq!(
            again.report.ask_count(),
            0,
            "{}: a second run found asks to make",
            case.display()
        );
    }
}

#[test]
fn the_corpus_has_at_least_twenty_shapes() {
    let cases = cases();
    assert!(cases.len() >= 20, "only {} corpus cases", cases.len());
    for case in cases {
        for file in ["before.rs", "after.rs", "report.txt"] {
            assert!(
                case.join(file).is_file(),
                "{} has no {file}",
                case.display()
            );
        }
    }
}
