//! The `repo_tools` example with roots retired: paths are checked against configured roots, in
//! both eras, and no `roots/list` request is ever sent.

use mrtr::allowed_roots::AllowedRoots;
use mrtr::testing::{Caps, ScriptedClient};
use mrtr::testing::{ERAS, connect, text_of};
use mrtr_examples::servers::repo_tools::RepoTools;
use serde_json::json;

struct Workspace(std::path::PathBuf);

impl Workspace {
    fn new() -> Self {
        let base = std::env::temp_dir().join(format!("mrtr-repo-tools-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("api/src")).unwrap();
        std::fs::create_dir_all(base.join("private")).unwrap();
        std::fs::write(base.join("api/src/lib.rs"), "pub fn api() {}").unwrap();
        std::fs::write(base.join("private/token"), "secret").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.join("private"), base.join("api/link")).unwrap();
        Workspace(base)
    }
    fn server(&self) -> RepoTools {
        RepoTools::new(AllowedRoots::new([self.0.join("api")]).unwrap())
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn files_under_the_configured_root_are_served_and_escapes_are_refused() {
    let workspace = Workspace::new();
    for era in ERAS {
        let session = connect(workspace.server(), ScriptedClient::new(Caps::ALL), era).await;
        let read = session
            .call("read_file", json!({ "path": "src/lib.rs" }))
            .await
            .expect("inside");
        assert_eq!(text_of(&read), "pub fn api() {}");
        let listed = session
            .call("list_dir", json!({ "path": "src" }))
            .await
            .expect("inside");
        assert_eq!(text_of(&listed), "lib.rs");
        for escape in [
            "../private/token",
            "src/../../private/token",
            "link/token",
            "/etc/passwd",
        ] {
            let refused = session.call("read_file", json!({ "path": escape })).await;
            let message = format!("{refused:?}");
            assert!(
                message.contains("outside the allowed roots"),
                "{era:?} {escape}: {message}"
            );
        }
        assert!(
            session.client.received().is_empty(),
            "{era:?}: roots are never requested"
        );
        session.close().await;
    }
}
