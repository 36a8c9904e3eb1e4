//! Writes a compiled batch: many generated handlers in one `#[tool_router]` impl, their plain
//! references, a dispatch function and the table of cases. The CI batch (`build.rs`) and the
//! hunt's scratch crates are both written by this.

use std::fmt::Write as _;

use super::ast::Program;
use super::choice::{program_seed, seeded_stream};
use super::emit::{self, Mode};
use super::generate::generate;
use super::script::{Script, scripts_for};

/// How long a seeded choice stream is: more than any program within the limits reads.
pub const STREAM_LEN: usize = 4096;

/// One handler to compile: its name, program, scripts and arguments.
#[derive(Clone)]
pub struct CaseSpec {
    pub name: String,
    pub program: Program,
    pub scripts: Vec<Script>,
    pub args: String,
}

impl CaseSpec {
    /// The `index`-th case of a run seeded with `seed`.
    pub fn seeded(seed: u64, index: usize, scripts: usize) -> (CaseSpec, Vec<u32>) {
        let seed = program_seed(seed, index);
        let stream = seeded_stream(seed, STREAM_LEN);
        (
            CaseSpec::from_stream(format!("h{index}"), &stream, seed, scripts),
            stream,
        )
    }

    pub fn from_stream(name: String, stream: &[u32], seed: u64, scripts: usize) -> CaseSpec {
        CaseSpec::from_program(name, generate(stream), seed, scripts)
    }

    /// A case of `program` with the arguments and scripts the program seed `seed` gives.
    pub fn from_program(name: String, program: Program, seed: u64, scripts: usize) -> CaseSpec {
        CaseSpec {
            name,
            program,
            scripts: scripts_for(seed, scripts),
            args: arguments(seed),
        }
    }
}

/// The tool's arguments for a case: `note` present or not, zero to three items, a count.
pub fn arguments(seed: u64) -> String {
    let note = if seed & 1 == 0 {
        "\"memo\"".to_owned()
    } else {
        "null".to_owned()
    };
    let items: Vec<String> = ["a", "bb", "c"]
        .iter()
        .take((seed >> 1) as usize % 4)
        .map(|s| format!("\"{s}\""))
        .collect();
    format!(
        "{{\"note\":{note},\"items\":[{}],\"count\":{},\"label\":\"svc\"}}",
        items.join(","),
        (seed >> 3) % 4
    )
}

/// A written batch and, per case, the lines its two handlers occupy (to attribute compile
/// errors to cases).
pub struct Written {
    pub source: String,
    pub lines: Vec<(String, usize, usize)>,
}

const PRELUDE: &str = r#"use mrtr::{ask, mrtr_tool};
use mrtr_differential::drive::vocab::*;
use mrtr_differential::drive::{Case, Reference};
use mrtr_differential::program::ast::Form;
use mrtr::testing::{Effects, TEST_KEY, TestServer, runtime_with};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};

pub struct Lowered {
    effects: Effects,
}

impl Lowered {
    fn log(&self, entry: String) {
        self.effects.record(entry);
    }
}

/// A new server with a new runtime sealing with the shared key: one per round.
pub fn server(effects: Effects) -> TestServer<Lowered> {
    TestServer::new(Lowered { effects }, Lowered::tool_router(), runtime_with("mrtr-differential", &TEST_KEY, None))
}

pub struct Plain(Reference);

impl std::ops::Deref for Plain {
    type Target = Reference;
    fn deref(&self) -> &Reference {
        &self.0
    }
}
"#;

pub fn write(cases: &[CaseSpec], header: &str) -> Written {
    let mut out = String::new();
    let mut lines = Vec::new();
    let _ = writeln!(out, "// {header}\n{PRELUDE}");
    out.push_str("#[tool_router]\nimpl Lowered {\n");
    for case in cases {
        let start = out.lines().count() + 1;
        out.push_str(&emit::handler(&case.program, &case.name, Mode::Lowered));
        lines.push((case.name.clone(), start, out.lines().count()));
    }
    out.push_str("}\n\nimpl Plain {\n");
    for case in cases {
        let start = out.lines().count() + 1;
        out.push_str(&emit::handler(&case.program, &case.name, Mode::Plain));
        lines.push((case.name.clone(), start, out.lines().count()));
    }
    out.push_str("}\n\n");
    out.push_str("pub fn plain(reference: Reference, name: &'static str, args: Args) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<CallToolResult, ErrorData>>>> {\n");
    out.push_str(
        "    Box::pin(async move {\n        let plain = Plain(reference);\n        match name {\n",
    );
    for case in cases {
        let _ = writeln!(
            out,
            "            {:?} => plain.{}(Parameters(args)).await,",
            case.name, case.name
        );
    }
    out.push_str(
        "            other => panic!(\"no generated handler {other}\"),\n        }\n    })\n}\n\n",
    );
    out.push_str("pub static CASES: &[Case] = &[\n");
    for case in cases {
        let keys: Vec<String> = case
            .program
            .keys
            .iter()
            .map(|(k, f)| format!("({k:?}, Form::{})", emit::form_name(*f)))
            .collect();
        let scripts: Vec<String> = case.scripts.iter().map(|s| format!("{s:#x}")).collect();
        let _ = writeln!(
            out,
            "    Case {{ name: {:?}, args: {:?}, keys: &[{}], scripts: &[{}], max_asks_per_key: {}, source: r####\"{}\"#### }},",
            case.name,
            case.args,
            keys.join(", "),
            scripts.join(", "),
            case.program.max_asks_per_key,
            emit::handler(&case.program, &case.name, Mode::Lowered)
        );
    }
    out.push_str("];\n");
    Written { source: out, lines }
}
