//! The parts of a round, told apart by the names of the functions their code is in
//! (`instructions --by-part`): what each feature of the runtime costs in code run per flow,
//! beside what the hand-written port spends on the same jobs, so that work on the ratio can aim
//! at a part and see what it moved. What no part names (hyper, tokio, rmcp's own code, serde)
//! is counted together; between the two ports it should come out the same.

/// What places a function in a part.
#[derive(Clone, Copy, Debug)]
pub enum Mark {
    /// Any function of this crate (by its first path segment, as `--by-crate` counts).
    Crate(&'static str),
    /// A function whose name has this path, starting a path (so `mrtr::call` is not
    /// `rmcp::model::mrtr::call`), anywhere in the name: a generic instantiated for one of the
    /// part's types, such as its drop glue, counts to it too.
    Path(&'static str),
    /// A function whose name has this text anywhere (the `#[mrtr_tool]` bodies, whatever the
    /// server type they are methods of).
    Within(&'static str),
}

/// The parts, each with the marks that place a function in it; the first part to mark a
/// function has it.
pub const PARTS: &[(&str, &[Mark])] = &[
    (
        "tool bodies",
        &[
            Mark::Within("::__mrtr_body_"),
            Mark::Path("mrtr_flows::baseline::Baseline::deploy_service"),
            Mark::Path("mrtr_flows::baseline::Baseline::staged_rollout"),
            Mark::Path("mrtr_flows::baseline::Baseline::summarize_incidents"),
        ],
    ),
    (
        "state codec by hand",
        &[
            Mark::Path("mrtr_flows::baseline"),
            Mark::Path("rmcp::model::request_state"),
        ],
    ),
    (
        "AEAD (XChaCha20-Poly1305)",
        &[
            Mark::Crate("chacha20"),
            Mark::Crate("chacha20poly1305"),
            Mark::Crate("poly1305"),
            Mark::Crate("cipher"),
            Mark::Crate("universal_hash"),
            Mark::Crate("aead"),
            Mark::Path("mrtr::seal::cipher::KeyMaterial::protect"),
            Mark::Path("mrtr::seal::cipher::KeyMaterial::unprotect"),
        ],
    ),
    (
        "SHA-256, HMAC",
        &[
            Mark::Crate("sha2"),
            Mark::Crate("hmac"),
            Mark::Crate("digest"),
        ],
    ),
    ("claims", &[Mark::Path("mrtr::seal::claims")]),
    ("seal and token", &[Mark::Path("mrtr::seal")]),
    ("CBOR", &[Mark::Path("mrtr::cbor")]),
    ("bind digest", &[Mark::Path("mrtr::bind")]),
    ("limits", &[Mark::Path("mrtr::limits")]),
    ("pre-scan", &[Mark::Path("mrtr::prescan")]),
    (
        "form check, answers",
        &[Mark::Path("mrtr::elicit"), Mark::Path("mrtr::answer")],
    ),
    ("capability gate", &[Mark::Path("mrtr::capability")]),
    (
        "metrics, tracing events",
        &[Mark::Path("mrtr::observe"), Mark::Crate("metrics")],
    ),
    (
        "round machinery",
        &[
            Mark::Path("mrtr::machine"),
            Mark::Path("mrtr::call"),
            Mark::Path("mrtr::carry"),
            Mark::Path("mrtr::request"),
            Mark::Path("mrtr::lease"),
            Mark::Path("mrtr::runtime"),
            Mark::Path("mrtr::era"),
        ],
    ),
];

/// The part of the functions no part marks.
pub const EVERYTHING_ELSE: &str = "everything else";

/// The part the function `name` (demangled) belongs to; `krate` is its crate, if it has one.
pub fn part_of(name: &str, krate: Option<&str>) -> &'static str {
    let marked = |mark: &Mark| match *mark {
        Mark::Crate(wanted) => krate == Some(wanted),
        Mark::Path(path) => starts_a_path_in(name, path),
        Mark::Within(text) => name.contains(text),
    };
    PARTS
        .iter()
        .find(|(_, marks)| marks.iter().any(marked))
        .map_or(EVERYTHING_ELSE, |(part, _)| part)
}

/// Whether `path` occurs in `name` as whole segments where a path starts: at the beginning or
/// after a character that cannot continue one (`<`, `&`, a space, ...), and not followed by more
/// of its last segment (`mrtr::seal` is not `mrtr::sealing`).
fn starts_a_path_in(name: &str, path: &str) -> bool {
    let continues = |c: char| c.is_alphanumeric() || c == '_';
    name.match_indices(path).any(|(at, _)| {
        let before = name[..at].chars().next_back();
        let after = name[at + path.len()..].chars().next();
        before.is_none_or(|c| !(continues(c) || c == ':')) && after.is_none_or(|c| !continues(c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(name: &str) -> &'static str {
        part_of(name, crate::callgrind::crate_of(name))
    }

    #[test]
    fn functions_fall_in_the_part_of_what_they_do() {
        assert_eq!(part("mrtr::seal::claims::encode"), "claims");
        assert_eq!(part("mrtr::seal::Sealer::open"), "seal and token");
        assert_eq!(
            part("mrtr::seal::cipher::KeyMaterial::unprotect"),
            "AEAD (XChaCha20-Poly1305)"
        );
        assert_eq!(
            part("chacha20::backends::avx2::inner"),
            "AEAD (XChaCha20-Poly1305)"
        );
        assert_eq!(part("sha2::sha256::soft::compress"), "SHA-256, HMAC");
        assert_eq!(
            part("<&mut mrtr::cbor::de::Decoder as serde_core::de::Deserializer>::deserialize_any"),
            "CBOR"
        );
        assert_eq!(
            part("core::ptr::drop_in_place<mrtr::machine::round::Io>"),
            "round machinery"
        );
        assert_eq!(
            part(
                "mrtr_examples::servers::deploy_service::Deployer::__mrtr_body_staged_rollout::{{closure}}"
            ),
            "tool bodies"
        );
        assert_eq!(
            part("mrtr_flows::baseline::Baseline::staged_rollout::{{closure}}"),
            "tool bodies"
        );
        assert_eq!(part("mrtr_flows::baseline::form"), "state codec by hand");
        assert_eq!(
            part("rmcp::model::request_state::RequestStateCodec::open_with"),
            "state codec by hand"
        );
        assert_eq!(
            part("metrics::key::Key::from_parts"),
            "metrics, tracing events"
        );
    }

    #[test]
    fn a_path_counts_only_where_a_path_starts() {
        assert_eq!(
            part("rmcp::model::mrtr::request::InputRequest::clone"),
            EVERYTHING_ELSE
        );
        assert_eq!(
            part("tokio::runtime::metrics::batch::MetricsBatch::submit"),
            EVERYTHING_ELSE
        );
        assert_eq!(
            part("hyper::proto::h1::role::Server::parse"),
            EVERYTHING_ELSE
        );
        assert_eq!(part("memcpy"), EVERYTHING_ELSE);
        assert_eq!(part("mrtr::sealing::f"), EVERYTHING_ELSE);
    }
}
