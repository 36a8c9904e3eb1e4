//! The `mrtr` dependency in the ported crate's `Cargo.toml`: added (this tool's version) when
//! missing, never changed when present.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, value};

/// The `Cargo.toml` of the package a file belongs to: the nearest one above it that has a
/// `[package]`.
pub fn of(file: &Path) -> Option<PathBuf> {
    let absolute = std::fs::canonicalize(file).ok()?;
    let mut dir = absolute.parent();
    while let Some(d) = dir {
        let candidate = d.join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&candidate)
            && text
                .parse::<DocumentMut>()
                .is_ok_and(|doc| doc.contains_key("package"))
        {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
}

/// The manifest with `mrtr` added to `[dependencies]`, or `None` if it already depends on it
/// (in any form: version, path, workspace) or cannot be read as TOML.
pub fn with_mrtr(text: &str) -> Option<String> {
    let mut doc: DocumentMut = text.parse().ok()?;
    let deps = doc
        .entry("dependencies")
        .or_insert_with(|| Item::Table(toml_edit::Table::new()));
    let table = deps.as_table_like_mut()?;
    if table.contains_key("mrtr") {
        return None;
    }
    table.insert("mrtr", value(env!("CARGO_PKG_VERSION")));
    Some(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_mrtr_dependency_is_never_touched() {
        let manifest =
            "[package]\nname = \"s\"\n\n[dependencies]\nmrtr = { path = \"../runtime\" }\n";
        assert_eq!(with_mrtr(manifest), None);
    }

    #[test]
    fn a_missing_dependency_is_added_and_the_rest_kept() {
        let manifest = "[package]\nname = \"s\" # the server\n\n[dependencies]\nrmcp = \"3\"\n";
        let new = with_mrtr(manifest).unwrap();
        assert!(new.starts_with("[package]\nname = \"s\" # the server\n"));
        assert!(new.contains(&format!("mrtr = \"{}\"", env!("CARGO_PKG_VERSION"))));
    }
}
