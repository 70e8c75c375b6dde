//! Finding the runtimes the probes need: `go`, the newest JDK, `python3`, a C compiler, `php`,
//! Mono's `mcs` and `mono` — and the helper programs some variants need (`mvn` to fetch Netty,
//! `ab` to drive the article's servers), through the same search.
//!
//! Discovery only looks at files (no program is started), so `supported()` stays instant. The
//! search path is `$PATH` plus each runtime's usual install places, or — when
//! `CONCBENCH_PROBE_SEARCH` is set — only the directories it lists (colon-separated). That
//! variable exists for discovery alone: to force one JDK, or, in tests, to make every toolchain
//! missing. A PATH search is hand-written (a few lines) because it must honour that override.

use std::path::{Path, PathBuf};

/// The environment variable that replaces every search location.
pub const SEARCH_ENV: &str = "CONCBENCH_PROBE_SEARCH";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    Go,
    Java,
    Python,
    C,
    Php,
    /// C# on Mono: compiled with `mcs`, run by `mono`.
    CSharp,
}

impl Runtime {
    pub const ALL: [Runtime; 6] = [
        Runtime::Go,
        Runtime::Java,
        Runtime::Python,
        Runtime::C,
        Runtime::Php,
        Runtime::CSharp,
    ];

    /// The name used in ids (`probes.<name>.*`) and `params.runtime`.
    pub const fn name(self) -> &'static str {
        match self {
            Runtime::Go => "go",
            Runtime::Java => "java",
            Runtime::Python => "python",
            Runtime::C => "c",
            Runtime::Php => "php",
            Runtime::CSharp => "csharp",
        }
    }
}

/// Where to look for toolchains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// `None`: `$PATH` and the usual places; `Some`: exactly these directories.
    only: Option<Vec<PathBuf>>,
}

impl Search {
    /// The search for this process: [`SEARCH_ENV`] when set, otherwise the usual places.
    pub fn from_env() -> Self {
        Self::from_value(std::env::var_os(SEARCH_ENV).as_deref())
    }

    fn from_value(value: Option<&std::ffi::OsStr>) -> Self {
        Self {
            only: value.map(|v| std::env::split_paths(v).collect()),
        }
    }

    /// Look only in `dirs` (tests; a custom install).
    pub fn only(dirs: &[&Path]) -> Self {
        Self {
            only: Some(dirs.iter().map(|d| d.to_path_buf()).collect()),
        }
    }

    /// Directories to look in for a program: the override, or `$PATH` then `usual`.
    fn program_dirs(&self, usual: &[&str]) -> Vec<PathBuf> {
        match &self.only {
            Some(dirs) => dirs.clone(),
            None => std::env::var_os("PATH")
                .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
                .unwrap_or_default()
                .into_iter()
                .chain(usual.iter().map(PathBuf::from))
                .collect(),
        }
    }

    /// The first executable named one of `names` (in order of preference) in the directories:
    /// `$PATH` then `usual`, or only the override's directories.
    pub fn program(&self, names: &[&str], usual: &[&str]) -> Option<PathBuf> {
        let dirs = self.program_dirs(usual);
        names
            .iter()
            .find_map(|name| dirs.iter().map(|d| d.join(name)).find(|p| is_executable(p)))
    }

    /// Candidate JDK homes: with the override, each directory or its children; otherwise
    /// `$JAVA_HOME`, the usual JVM directories and the JDK behind `javac` on `$PATH`.
    fn jdk_homes(&self) -> Vec<PathBuf> {
        let parents: Vec<PathBuf> = match &self.only {
            Some(dirs) => dirs.clone(),
            None => [
                "/usr/lib/jvm",
                "/usr/local/lib/jvm",
                "/usr/java",
                "/opt/java",
                "/opt",
            ]
            .iter()
            .map(PathBuf::from)
            .collect(),
        };
        let mut homes: Vec<PathBuf> = parents
            .iter()
            .flat_map(|p| {
                let children = std::fs::read_dir(p)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path());
                std::iter::once(p.clone()).chain(children)
            })
            .collect();
        if self.only.is_none() {
            homes.extend(std::env::var_os("JAVA_HOME").map(PathBuf::from));
            let javac = self.program(&["javac"], &[]);
            homes.extend(
                javac
                    .and_then(|j| j.canonicalize().ok())
                    .and_then(|j| j.parent().and_then(Path::parent).map(Path::to_path_buf)),
            );
        }
        homes
    }
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A runtime found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    pub runtime: Runtime,
    /// The compiler (`go`, `javac`, `cc`) or the interpreter (`python3`).
    pub tool: PathBuf,
    /// For Java: the JDK home (its `bin/java` runs the probe).
    pub home: Option<PathBuf>,
    /// For Java: the feature release (17, 21, 25).
    pub java_feature: Option<u32>,
    /// The program that runs what `tool` built, when it is not the built program itself (`mono`
    /// for C#; Java's is `home/bin/java`).
    pub runner: Option<PathBuf>,
}

/// Find `runtime`'s toolchain, or say in one line why it is missing and how to get it.
pub fn discover(runtime: Runtime, search: &Search) -> Result<Toolchain, String> {
    let program = |names: &[&str], usual: &[&str], hint: &str| {
        search
            .program(names, usual)
            .map(|tool| Toolchain {
                runtime,
                tool,
                home: None,
                java_feature: None,
                runner: None,
            })
            .ok_or_else(|| format!("no {} found ({hint})", names.join(" or ")))
    };
    match runtime {
        Runtime::Go => program(
            &["go"],
            &["/usr/local/go/bin", "/usr/lib/go/bin"],
            "install Go from go.dev or apt-get install golang",
        ),
        Runtime::Python => program(&["python3"], &[], "apt-get install python3"),
        Runtime::C => program(&["cc", "gcc", "clang"], &[], "apt-get install gcc"),
        Runtime::Php => program(&["php"], &[], "apt-get install php-cli"),
        Runtime::CSharp => {
            const HINT: &str = "apt-get install mono-mcs mono-runtime";
            let mut tc = program(&["mcs"], &[], HINT)?;
            let mono = search
                .program(&["mono"], &[])
                .ok_or_else(|| format!("no mono found ({HINT})"))?;
            tc.runner = Some(mono);
            Ok(tc)
        }
        Runtime::Java => newest_jdk(search),
    }
}

/// A helper program (`mvn`, `ab`), or the one-line reason it is missing with how to get it.
pub fn helper(search: &Search, name: &str, install: &str) -> Result<PathBuf, String> {
    search
        .program(&[name], &[])
        .ok_or_else(|| format!("no {name} found ({install})"))
}

/// One JDK per feature release among the candidates (17, 25, ...), ascending: for questions
/// asked of every Java on the machine (what each sizes itself for).
pub fn jdks(search: &Search) -> Vec<Toolchain> {
    let mut found: Vec<Toolchain> = Vec::new();
    for home in search.jdk_homes() {
        if !(is_executable(&home.join("bin/javac")) && is_executable(&home.join("bin/java"))) {
            continue;
        }
        let Some(feature) = jdk_feature(&home) else {
            continue;
        };
        if found.iter().any(|t| t.java_feature == Some(feature)) {
            continue;
        }
        found.push(Toolchain {
            runtime: Runtime::Java,
            tool: home.join("bin/javac"),
            home: Some(home),
            java_feature: Some(feature),
            runner: None,
        });
    }
    found.sort_by_key(|t| t.java_feature);
    found
}

/// The JDK with the highest feature release among the candidates that have `java` and `javac`.
fn newest_jdk(search: &Search) -> Result<Toolchain, String> {
    search
        .jdk_homes()
        .into_iter()
        .filter(|h| is_executable(&h.join("bin/javac")) && is_executable(&h.join("bin/java")))
        .filter_map(|h| Some((jdk_feature(&h)?, h)))
        .max_by_key(|(feature, _)| *feature)
        .map(|(feature, home)| Toolchain {
            runtime: Runtime::Java,
            tool: home.join("bin/javac"),
            home: Some(home),
            java_feature: Some(feature),
            runner: None,
        })
        .ok_or_else(|| {
            "no JDK found (java and javac; apt-get install openjdk-17-jdk-headless or set JAVA_HOME)"
                .to_string()
        })
}

/// The feature release from a JDK's `release` file (`JAVA_VERSION="25.0.3"` -> 25,
/// `"1.8.0_292"` -> 8).
fn jdk_feature(home: &Path) -> Option<u32> {
    let release = std::fs::read_to_string(home.join("release")).ok()?;
    let version = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
        .trim_matches('"');
    parse_java_feature(version)
}

fn parse_java_feature(version: &str) -> Option<u32> {
    let mut parts = version.split(['.', '_', '+', '-']);
    match parts.next()?.parse().ok()? {
        1 => parts.next()?.parse().ok(),
        n => Some(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_versions_parse_old_and_new_style() {
        assert_eq!(parse_java_feature("25.0.3"), Some(25));
        assert_eq!(parse_java_feature("1.8.0_292"), Some(8));
        assert_eq!(parse_java_feature("17"), Some(17));
        assert_eq!(parse_java_feature("banana"), None);
    }

    #[test]
    fn the_override_replaces_every_location() {
        let s = Search::from_value(Some(std::ffi::OsStr::new("/nonexistent/a:/nonexistent/b")));
        assert_eq!(
            s,
            Search::only(&[Path::new("/nonexistent/a"), Path::new("/nonexistent/b")])
        );
        for rt in Runtime::ALL {
            let reason = discover(rt, &s).unwrap_err();
            assert!(reason.starts_with("no "), "{reason}");
            assert!(!reason.contains('\n'));
        }
    }

    #[test]
    fn finds_a_fake_jdk_and_prefers_the_newest() {
        let dir = tempfile::tempdir().unwrap();
        for (name, version) in [("jdk-a", "17.0.1"), ("jdk-b", "25.0.3"), ("jdk-c", "21")] {
            let bin = dir.path().join(name).join("bin");
            std::fs::create_dir_all(&bin).unwrap();
            for tool in ["java", "javac"] {
                std::fs::write(bin.join(tool), "#!/bin/sh\n").unwrap();
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(bin.join(tool), std::fs::Permissions::from_mode(0o755))
                    .unwrap();
            }
            std::fs::write(
                dir.path().join(name).join("release"),
                format!("JAVA_VERSION=\"{version}\"\n"),
            )
            .unwrap();
        }
        let tc = discover(Runtime::Java, &Search::only(&[dir.path()])).unwrap();
        assert_eq!(tc.java_feature, Some(25));
        assert!(tc.home.unwrap().ends_with("jdk-b"));
    }
}
