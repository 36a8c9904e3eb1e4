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

/// The edition the file is compiled with, which rustfmt formats by: the package's, or the
/// workspace's when the package inherits it; Cargo's default (2015) when neither says.
pub fn edition_of(file: &Path) -> String {
    let Some(manifest) = of(file) else {
        return "2015".into();
    };
    let read =
        |path: &Path| -> Option<DocumentMut> { std::fs::read_to_string(path).ok()?.parse().ok() };
    let Some(doc) = read(&manifest) else {
        return "2015".into();
    };
    match doc.get("package").and_then(|p| p.get("edition")) {
        Some(e) if e.as_str().is_some() => e.as_str().unwrap_or("2015").to_string(),
        Some(_) => {
            // `edition.workspace = true`: the nearest workspace root above says.
            let mut dir = manifest.parent().and_then(Path::parent);
            while let Some(d) = dir {
                if let Some(root) = read(&d.join("Cargo.toml"))
                    && let Some(e) = root
                        .get("workspace")
                        .and_then(|w| w.get("package"))
                        .and_then(|p| p.get("edition"))
                        .and_then(|e| e.as_str())
                {
                    return e.to_string();
                }
                dir = d.parent();
            }
            "2015".into()
        }
        None => "2015".into(),
    }
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
    fn the_edition_is_the_package_s_or_the_workspace_s_it_inherits() {
        let root = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "Cargo.toml",
            "[workspace]\nmembers = [\"a\", \"b\"]\n\n[workspace.package]\nedition = \"2021\"\n",
        );
        write(
            "a/Cargo.toml",
            "[package]\nname = \"a\"\nedition.workspace = true\n",
        );
        write("a/src/lib.rs", "");
        write(
            "b/Cargo.toml",
            "[package]\nname = \"b\"\nedition = \"2024\"\n",
        );
        write("b/src/lib.rs", "");
        assert_eq!(edition_of(&root.path().join("a/src/lib.rs")), "2021");
        assert_eq!(edition_of(&root.path().join("b/src/lib.rs")), "2024");
    }

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
