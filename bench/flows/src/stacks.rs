//! A server's native CPU split into the pieces of a round (`pieces`), from the call stacks
//! `perf record --call-graph dwarf` samples and `perf script -F ip,sym` prints.
//!
//! Counting instructions (`instructions`) cannot see why the same work costs one server more
//! time than another: code that runs once a round runs cold. Sampled stacks can: each sample is
//! one tick of CPU in whatever the server was doing, its callers included. A sample belongs to
//! the innermost frame on its stack that names a piece, so a piece's share holds everything it
//! calls (serde, malloc, the cipher) except the pieces it calls in turn, and the rows add up to
//! the whole.

/// One piece of a round: the functions whose samples are its own, in either server.
#[derive(Clone, Copy, Debug)]
pub struct Piece {
    pub name: &'static str,
    /// Frames containing one of these (a demangled name, or a part of it) are the piece's.
    pub frames: &'static [&'static str],
}

/// The pieces by which the example and rmcp by hand differ: where the example's runtime or the
/// hand-written code opens, resumes, suspends and seals a round, with rmcp's request context
/// that both drop once a round. Everything else (HTTP, rmcp's service, the tools' own work) is
/// the rest.
pub const ROUND_PIECES: &[Piece] = &[
    Piece {
        name: "open the round (the state, its binding, the limits)",
        frames: &[
            "mrtr::call::Request::open",
            "mrtr::call::Request::check",
            "mrtr::call::Checked::open",
            "mrtr::call::ToolCall::open",
            "mrtr::call::ToolCallInContext<_>::open",
            "RequestStateCodec::open",
        ],
    },
    Piece {
        name: "take the call from rmcp (extractors)",
        frames: &[
            "<mrtr::call::ToolCall as rmcp::",
            "<mrtr::call::ToolCallInContext<_> as rmcp::",
            "<mrtr::call::CallContext as rmcp::",
            "mrtr::call::CallContext::take",
        ],
    },
    Piece {
        name: "resume (carried locals, answers decoded)",
        frames: &[
            "mrtr::machine::round::Round::restore",
            "mrtr::machine::round::Round::take",
            "mrtr::machine::round::Round::settle",
            "Deserialize for mrtr_flows::baseline::",
            "Deserialize for rmcp::model::ElicitResult",
            "Deserialize for rmcp::model::CreateMessageResult",
        ],
    },
    Piece {
        // One row: where the context is dropped inside the suspension, the compiler may inline
        // the drop there, and its samples then carry no frame of their own.
        name: "suspend (locals saved, continuation built; rmcp's request context dropped)",
        frames: &[
            "mrtr::machine::round::Round::suspension",
            "mrtr::machine::round::Round::suspend_frame",
            "drop_in_place<rmcp::service::RequestContext<",
        ],
    },
    Piece {
        name: "seal and answer (state sealed, input requests built)",
        frames: &[
            "mrtr::machine::suspension::Suspension::seal",
            "RequestStateCodec::seal",
            "mrtr_flows::baseline::form",
            "mrtr_flows::baseline::summary_request",
        ],
    },
];

/// Samples per piece (in the order of the pieces given), and the samples of nothing listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    pub pieces: Vec<u64>,
    pub rest: u64,
}

impl Split {
    /// No samples yet, among `pieces` pieces.
    pub fn empty(pieces: usize) -> Self {
        Split {
            pieces: vec![0; pieces],
            rest: 0,
        }
    }

    /// Adds `other`'s samples (of the same pieces) to these.
    pub fn add(&mut self, other: &Split) {
        for (sum, samples) in self.pieces.iter_mut().zip(&other.pieces) {
            *sum += samples;
        }
        self.rest += other.rest;
    }

    pub fn total(&self) -> u64 {
        self.pieces.iter().sum::<u64>() + self.rest
    }
}

/// Splits the samples of `script` (`perf script -F ip,sym`: one frame a line, `ip symbol`,
/// leaf first; a blank line between samples) among `pieces`.
pub fn split(script: &str, pieces: &[Piece]) -> Split {
    let mut split = Split::empty(pieces.len());
    let mut owner: Option<Option<usize>> = None;
    let mut close = |owner: &mut Option<Option<usize>>| match owner.take() {
        Some(Some(piece)) => split.pieces[piece] += 1,
        Some(None) => split.rest += 1,
        None => {}
    };
    for line in script.lines() {
        let Some(symbol) = symbol(line) else {
            close(&mut owner);
            continue;
        };
        match owner {
            // The innermost named frame is already found; callers further out do not matter.
            Some(Some(_)) => {}
            _ => owner = Some(piece_of(symbol, pieces)),
        }
    }
    close(&mut owner);
    split
}

/// The symbol of a frame line (`\t  55d0c3 name`), or `None` for a blank line between samples.
fn symbol(line: &str) -> Option<&str> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    // An unresolved frame has an address and `[unknown]`, or only the address.
    Some(line.split_once(' ').map_or("", |(_, symbol)| symbol))
}

fn piece_of(symbol: &str, pieces: &[Piece]) -> Option<usize> {
    pieces
        .iter()
        .position(|piece| piece.frames.iter().any(|frame| symbol.contains(frame)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PIECES: &[Piece] = &[
        Piece {
            name: "open",
            frames: &["Request::open", "Codec::open"],
        },
        Piece {
            name: "drop",
            frames: &["drop_in_place<Context"],
        },
    ];

    fn script(samples: &[&[&str]]) -> String {
        samples
            .iter()
            .map(|frames| {
                let lines: String = frames
                    .iter()
                    .map(|frame| format!("\t    55d0c3a1 {frame}\n"))
                    .collect();
                format!("\n{lines}")
            })
            .collect()
    }

    #[test]
    fn a_sample_belongs_to_its_innermost_piece_and_the_rows_add_up() {
        let text = script(&[
            // malloc under open: open's.
            &["_int_malloc", "mrtr::call::Request::open", "main"],
            // A context dropped inside open: the drop's, not open's.
            &[
                "free",
                "core::ptr::drop_in_place<Context<Server>>",
                "Request::open (inlined)",
                "main",
            ],
            // The other server's name for the same piece.
            &["sha2::compress", "rmcp::RequestStateCodec::open_with"],
            // Nothing named: the rest.
            &["hyper::parse", "main"],
            &["[unknown]"],
        ]);
        let split = split(&text, PIECES);
        assert_eq!(
            split,
            Split {
                pieces: vec![2, 1],
                rest: 2
            }
        );
        assert_eq!(split.total(), 5);
    }

    #[test]
    fn samples_are_separated_by_blank_lines_whatever_their_indentation() {
        let text =
            "\n\t ffff81 irq_exit\n\t 55d0 Request::open\n   \n\t 55d1 main\n\n\n\t 55d2 x\n";
        assert_eq!(
            split(text, PIECES),
            Split {
                pieces: vec![1, 0],
                rest: 2
            }
        );
        assert_eq!(split("", PIECES).total(), 0);
    }

    #[test]
    fn every_round_piece_names_a_function_of_each_server_or_of_both() {
        for piece in ROUND_PIECES {
            assert!(!piece.frames.is_empty(), "{}", piece.name);
        }
        // The example's and the baseline's halves of the pieces both servers have.
        let has = |name: &str, part: &str| {
            ROUND_PIECES
                .iter()
                .find(|piece| piece.name.starts_with(name))
                .is_some_and(|piece| piece.frames.iter().any(|frame| frame.contains(part)))
        };
        for (piece, mrtr, baseline) in [
            ("open", "mrtr::call", "RequestStateCodec"),
            ("resume", "mrtr::machine", "baseline"),
            ("seal", "mrtr::machine", "baseline"),
        ] {
            assert!(has(piece, mrtr) && has(piece, baseline), "{piece}");
        }
    }
}
