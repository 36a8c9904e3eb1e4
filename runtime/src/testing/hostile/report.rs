//! What the hostile suite found: a verdict per case, and the report that fails a test with one
//! line per broken case.

use std::fmt;

/// How one case went.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The server kept its promise.
    Held,
    /// It did not: what it did instead.
    Broken(String),
    /// The case could not run against this tool: why.
    Skipped(String),
}

/// One case of the suite.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// `family: variant`, e.g. `tamper: bit flip at the last byte of the sealed body`.
    pub name: String,
    /// How it went.
    pub verdict: Verdict,
}

/// What the suite found.
#[derive(Clone, Debug)]
pub struct HostileReport {
    /// The tool attacked.
    pub tool: String,
    /// Every case, in the order run.
    pub cases: Vec<Case>,
}

impl HostileReport {
    /// The cases the server failed.
    pub fn broken(&self) -> Vec<&Case> {
        self.cases
            .iter()
            .filter(|case| matches!(case.verdict, Verdict::Broken(_)))
            .collect()
    }

    /// The case named `name`, if it ran.
    pub fn case(&self, name: &str) -> Option<&Case> {
        self.cases.iter().find(|case| case.name == name)
    }

    /// Fails the test with one line per broken case.
    #[track_caller]
    pub fn assert_ok(&self) {
        let broken = self.broken();
        if !broken.is_empty() {
            let lines: Vec<String> = broken.iter().map(|case| line(case)).collect();
            panic!(
                "hostile suite on `{}`: {} of {} cases broken\n{}",
                self.tool,
                broken.len(),
                self.cases.len(),
                lines.join("\n")
            );
        }
    }
}

fn line(case: &Case) -> String {
    match &case.verdict {
        Verdict::Held => format!("held     {}", case.name),
        Verdict::Broken(why) => format!("BROKEN   {}: {why}", case.name),
        Verdict::Skipped(why) => format!("skipped  {}: {why}", case.name),
    }
}

impl fmt::Display for HostileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "hostile suite on `{}`:", self.tool)?;
        for case in &self.cases {
            writeln!(f, "{}", line(case))?;
        }
        Ok(())
    }
}
