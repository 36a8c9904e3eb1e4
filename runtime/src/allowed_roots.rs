//! Filesystem boundaries from configuration: what replaces `roots/list`.
//!
//! A root fetched from the client at run time is an authorization answer sourced from the
//! caller; 2026-07-28 retires it. The server takes its boundaries at start-up (conventionally
//! `ALLOWED_ROOTS=/srv/api,/srv/web`) and validates every path argument against them like any
//! other parameter: canonicalised (which resolves `..` and symlinks) and confirmed to sit under
//! a configured root.

use std::path::{Component, Path, PathBuf};

/// Why a configured root or a requested path was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum RootsError {
    #[error("no allowed roots are configured; set {0} to a comma-separated list of directories")]
    NotConfigured(String),
    #[error("allowed root {0:?} is not an existing directory")]
    BadRoot(String),
    #[error("path {0:?} is empty or contains a NUL byte")]
    Malformed(String),
    #[error("path {0:?} does not exist")]
    NotFound(String),
    #[error("path {0:?} is outside the allowed roots")]
    Outside(String),
}

impl From<RootsError> for rmcp::ErrorData {
    fn from(error: RootsError) -> Self {
        rmcp::ErrorData::invalid_params(error.to_string(), None)
    }
}

/// The directories a server may touch, canonicalised once at start-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedRoots {
    roots: Vec<PathBuf>,
}

impl AllowedRoots {
    /// Reads a comma-separated list of directories from the environment variable `var`.
    pub fn from_env(var: &str) -> Result<Self, RootsError> {
        let listed = std::env::var(var).unwrap_or_default();
        let roots: Vec<&str> = listed
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if roots.is_empty() {
            return Err(RootsError::NotConfigured(var.to_owned()));
        }
        Self::new(roots)
    }

    pub fn new(roots: impl IntoIterator<Item = impl AsRef<Path>>) -> Result<Self, RootsError> {
        let roots = roots
            .into_iter()
            .map(|root| {
                let root = root.as_ref();
                match root.canonicalize() {
                    Ok(canonical) if canonical.is_dir() => Ok(canonical),
                    _ => Err(RootsError::BadRoot(root.display().to_string())),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        if roots.is_empty() {
            return Err(RootsError::NotConfigured("the allowed roots".to_owned()));
        }
        Ok(Self { roots })
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Resolves a client-supplied path to an existing file or directory under one of the roots.
    ///
    /// Relative paths are taken relative to the first root. The check runs on the canonical
    /// path, so `..` segments and symlinks pointing outside are refused wherever they occur.
    pub fn resolve(&self, requested: &str) -> Result<PathBuf, RootsError> {
        if requested.is_empty() || requested.contains('\0') {
            return Err(RootsError::Malformed(requested.to_owned()));
        }
        let joined = match Path::new(requested) {
            path if path.is_absolute() => path.to_path_buf(),
            path => self.roots[0].join(path),
        };
        let canonical = joined.canonicalize().map_err(|_| {
            // Report escapes as escapes even when the target does not exist.
            if escapes_lexically(Path::new(requested)) {
                RootsError::Outside(requested.to_owned())
            } else {
                RootsError::NotFound(requested.to_owned())
            }
        })?;
        if self.roots.iter().any(|root| canonical.starts_with(root)) {
            Ok(canonical)
        } else {
            Err(RootsError::Outside(requested.to_owned()))
        }
    }
}

/// `true` when a relative path climbs above its starting point (`a/../../b`).
fn escapes_lexically(path: &Path) -> bool {
    let mut depth = 0i32;
    for component in path.components() {
        match component {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tree {
        base: PathBuf,
    }

    impl Tree {
        fn new(name: &str) -> Self {
            let base =
                std::env::temp_dir().join(format!("mrtr-roots-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&base);
            std::fs::create_dir_all(base.join("api/src")).unwrap();
            std::fs::create_dir_all(base.join("api2")).unwrap();
            std::fs::create_dir_all(base.join("secret")).unwrap();
            std::fs::write(base.join("api/src/main.rs"), "fn main() {}").unwrap();
            std::fs::write(base.join("api2/other.rs"), "").unwrap();
            std::fs::write(base.join("secret/key"), "k").unwrap();
            Self { base }
        }
        fn roots(&self) -> AllowedRoots {
            AllowedRoots::new([self.base.join("api")]).unwrap()
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.base);
        }
    }

    #[test]
    fn paths_inside_a_root_resolve_to_their_canonical_form() {
        let tree = Tree::new("inside");
        let roots = tree.roots();
        let expected = tree.base.join("api/src/main.rs").canonicalize().unwrap();
        assert_eq!(roots.resolve("src/main.rs").unwrap(), expected);
        assert_eq!(roots.resolve(expected.to_str().unwrap()).unwrap(), expected);
        assert_eq!(roots.resolve("src/../src/main.rs").unwrap(), expected);
    }

    #[test]
    fn traversal_out_of_the_root_is_refused() {
        let tree = Tree::new("traversal");
        let roots = tree.roots();
        assert!(matches!(
            roots.resolve("../secret/key"),
            Err(RootsError::Outside(_))
        ));
        assert!(matches!(
            roots.resolve("../../../../etc/passwd"),
            Err(RootsError::Outside(_))
        ));
        assert!(matches!(
            roots.resolve("src/../../nonexistent"),
            Err(RootsError::Outside(_))
        ));
        let absolute = tree.base.join("secret/key");
        assert!(matches!(
            roots.resolve(absolute.to_str().unwrap()),
            Err(RootsError::Outside(_))
        ));
    }

    #[test]
    fn a_sibling_with_the_root_as_prefix_is_outside() {
        let tree = Tree::new("prefix");
        let roots = tree.roots();
        let sibling = tree.base.join("api2/other.rs");
        assert!(matches!(
            roots.resolve(sibling.to_str().unwrap()),
            Err(RootsError::Outside(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_escaping_the_root_are_refused() {
        let tree = Tree::new("symlink");
        std::os::unix::fs::symlink(tree.base.join("secret"), tree.base.join("api/escape")).unwrap();
        std::os::unix::fs::symlink(tree.base.join("api/src"), tree.base.join("api/inner")).unwrap();
        let roots = tree.roots();
        assert!(matches!(
            roots.resolve("escape/key"),
            Err(RootsError::Outside(_))
        ));
        assert!(
            roots.resolve("inner/main.rs").is_ok(),
            "a link that stays inside is fine"
        );
    }

    #[test]
    fn malformed_and_missing_paths_are_reported() {
        let tree = Tree::new("missing");
        let roots = tree.roots();
        assert_eq!(roots.resolve(""), Err(RootsError::Malformed(String::new())));
        assert!(matches!(
            roots.resolve("a\0b"),
            Err(RootsError::Malformed(_))
        ));
        assert!(matches!(
            roots.resolve("src/nope.rs"),
            Err(RootsError::NotFound(_))
        ));
    }

    #[test]
    fn configured_roots_must_exist() {
        assert!(matches!(
            AllowedRoots::new(["/definitely/not/here"]),
            Err(RootsError::BadRoot(_))
        ));
        assert!(matches!(
            AllowedRoots::new(Vec::<PathBuf>::new()),
            Err(RootsError::NotConfigured(_))
        ));
    }
}
