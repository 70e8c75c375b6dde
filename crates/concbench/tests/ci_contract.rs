//! What CI needs is said once and said alike (issue 42): `.ci/run` checks the versions the README
//! states, and neither the product nor its documentation names a path outside the repository
//! (Swoole's source comes through `CONCBENCH_SWOOLE_SRC`, which `.ci/run` alone may set from the
//! project's vendored copy).

mod common;

use common::repo_root;
use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(repo_root().join(path)).unwrap()
}

#[test]
fn ci_checks_the_versions_the_readme_states() {
    let ci = read(".ci/run");
    let readme = read("README.md");
    for (ci_says, readme_says) in [
        ("JAVA_MIN=21", "a JDK 21 or later"),
        ("GO_MIN=22", "Go 1.22 or later"),
        ("-ge 802", "PHP 8.2 or later"),
    ] {
        assert!(ci.contains(ci_says), ".ci/run lacks {ci_says}");
        assert!(readme.contains(readme_says), "README lacks {readme_says}");
    }
    for fetched in ["probes/java/netty-pom.xml", "go mod download"] {
        assert!(
            ci.contains(fetched),
            ".ci/run fetches before the tests: {fetched}"
        );
    }
}

/// Every file under `dir` (recursively) whose name ends with one of `exts`.
fn files(dir: &Path, exts: &[&str], found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, exts, found);
        } else if exts.iter().any(|e| path.to_string_lossy().ends_with(e)) {
            found.push(path);
        }
    }
}

/// Regression: the product searched `shared/vendor/` beside the repository it was built from,
/// and the README named it: a path of the project's workspace, not of a user's machine.
#[test]
fn regression_no_path_outside_the_repository_is_named() {
    let root = repo_root();
    let mut found = vec![root.join("README.md")];
    files(&root.join("crates"), &[".rs"], &mut found);
    files(&root.join("docs"), &[".md"], &mut found);
    let outside = ["..", "/shared"].concat();
    let naming: Vec<String> = found
        .iter()
        .filter(|p| std::fs::read_to_string(p).unwrap().contains(&outside))
        .map(|p| p.display().to_string())
        .collect();
    assert!(naming.is_empty(), "name {outside}: {naming:?}");
}
