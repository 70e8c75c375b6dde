//! Building probes on first use, cached by a hash of their sources and the toolchain.
//!
//! The sources are compiled into concbench (`include_str!`), so a fresh clone needs nothing but
//! the toolchains. Builds go to `probes/<runtime>-<hash>` in concbench's cache directory
//! ([`cache_dir`]: `$CONCBENCH_CACHE`, else `$XDG_CACHE_HOME/concbench` or `~/.cache/concbench`),
//! into a temporary directory first and then renamed into place, so concurrent
//! builds (parallel tests) never see a half-built probe. When that cache cannot be written, a
//! per-user directory under the system's temporary directory is used instead and the results say
//! so ([`Prepared::note`]). A few probes have a second build with more in it ([`Addon`]).
//! Nothing is fetched, with one exception: the Netty build of the Java probe ([`Addon::Netty`])
//! has Maven fetch `io.netty:netty-all` from Maven Central once (into Maven's own repository,
//! `~/.m2`). Go builds with `GOTOOLCHAIN=local GOPROXY=off` and the Go
//! probe uses the standard library only.

use super::toolchain::{Runtime, Toolchain};
use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::process::Command;

const GO_MAIN: &str = include_str!("../../../probes/go/main.go");
const GO_SERVE: &str = include_str!("../../../probes/go/serve.go");
const JAVA_PROBE: &str = include_str!("../../../probes/java/Probe.java");
const JAVA_NATIVE_USAGE: &str = include_str!("../../../probes/java/NativeUsage.java");
const JAVA_VIRTUAL_SERVE: &str = include_str!("../../../probes/java/VirtualServe.java");
const JAVA_NETTY_SERVE: &str = include_str!("../../../probes/java/NettyServe.java");
const PYTHON_PROBE: &str = include_str!("../../../probes/python/probe.py");
const C_PROBE: &str = include_str!("../../../probes/c/probe.c");
const PHP_PROBE: &str = include_str!("../../../probes/php/probe.php");
const SWOOLE_SERVE: &str = include_str!("../../../probes/swoole/serve.php");
const PHP_FPM_SERVE: &str = include_str!("../../../probes/php-fpm/serve.php");
const CSHARP_PROBE: &str = include_str!("../../../probes/csharp/Probe.cs");

/// The first Java release whose FFM API (getrusage from Java) is final.
const JAVA_FFM_FEATURE: u32 = 22;

/// The Netty release the Netty build uses: a 4.2 release whose every file Maven Central serves.
pub const NETTY_VERSION: &str = "4.2.18.Final";
/// The Maven plugin that copies Netty's jars next to the build (its version is in the pom).
#[cfg(test)]
const MAVEN_DEPENDENCY_PLUGIN: &str = "3.8.1";

/// Something a probe is built with beyond its runtime's standard library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Addon {
    #[default]
    None,
    /// Java only: `io.netty:netty-all` (fetched with Maven) and the Netty server on it.
    Netty,
    /// Go only: the `net/http` server (`serve.go`), kept out of the plain build because
    /// compiling `net/http` with an empty Go build cache takes a minute on a busy machine.
    NetHttp,
    /// PHP only: seed S2's Swoole server (`probes/swoole/serve.php`) in place of the Fiber
    /// probe; the extension itself comes from [`super::swoole`] and is loaded by the flags.
    Swoole,
    /// PHP only: the script that runs PHP-FPM behind nginx (`probes/php-fpm/serve.php`).
    PhpFpm,
}

/// How to start a probe.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// The probe's whole environment (it is started with an empty one, so a user's
    /// `JAVA_TOOL_OPTIONS`, `GODEBUG` or `PYTHONPATH` cannot change what is measured).
    pub env: Vec<(OsString, OsString)>,
    pub dir: Option<PathBuf>,
}

/// A built probe: how to start it, and what the user should know about the build.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub launch: Launch,
    /// Set when the cache could not be used (the probe was built in a temporary cache).
    pub note: Option<String>,
}

/// What a build needs: the toolchain, the addon and, for Netty, Maven.
#[derive(Debug, Clone)]
pub struct Recipe<'a> {
    pub toolchain: &'a Toolchain,
    pub addon: Addon,
    /// `mvn`, for [`Addon::Netty`].
    pub maven: Option<PathBuf>,
}

impl<'a> Recipe<'a> {
    /// The runtime's own probe, nothing added.
    pub fn plain(toolchain: &'a Toolchain) -> Self {
        Self {
            toolchain,
            addon: Addon::None,
            maven: None,
        }
    }
}

/// The files a probe is built from: (file name, contents).
fn sources(tc: &Toolchain, addon: Addon) -> Vec<(&'static str, &'static str)> {
    match tc.runtime {
        Runtime::Go if addon == Addon::NetHttp => {
            vec![("main.go", GO_MAIN), ("serve.go", GO_SERVE)]
        }
        Runtime::Go => vec![("main.go", GO_MAIN)],
        Runtime::Python => vec![("probe.py", PYTHON_PROBE)],
        Runtime::C => vec![("probe.c", C_PROBE)],
        Runtime::Php if addon == Addon::Swoole => vec![("serve.php", SWOOLE_SERVE)],
        Runtime::Php if addon == Addon::PhpFpm => vec![("serve.php", PHP_FPM_SERVE)],
        Runtime::Php => vec![("probe.php", PHP_PROBE)],
        Runtime::CSharp => vec![("Probe.cs", CSHARP_PROBE)],
        Runtime::Java => {
            let mut files = vec![
                ("Probe.java", JAVA_PROBE),
                ("VirtualServe.java", JAVA_VIRTUAL_SERVE),
            ];
            if tc.java_feature.unwrap_or(0) >= JAVA_FFM_FEATURE {
                files.push(("NativeUsage.java", JAVA_NATIVE_USAGE));
            }
            if addon == Addon::Netty {
                files.push(("NettyServe.java", JAVA_NETTY_SERVE));
            }
            files
        }
    }
}

/// The Maven project whose only purpose is to copy Netty's jars into `lib/`: a file of the
/// repository, so that `.ci/run` fetches exactly what this build will ask Maven for.
const NETTY_POM: &str = include_str!("../../../probes/java/netty-pom.xml");

fn netty_pom() -> &'static str {
    NETTY_POM
}

/// Names concbench's cache directory (probe builds in `probes/`, Swoole's among them) in place
/// of `$XDG_CACHE_HOME/concbench`, else `~/.cache/concbench`: a CI job that keeps its caches
/// elsewhere, or a fresh cache to see a first run as a new user would.
pub const CACHE_ENV: &str = "CONCBENCH_CACHE";

/// The cache directory this process was told to use in place of the environment's.
static CHOSEN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Use `dir` as concbench's cache directory for the rest of this process, whatever the
/// environment says. For tests that build probes inside their own process: they must not touch
/// the user's cache, and setting [`CACHE_ENV`] there would race with the other test threads that
/// read the environment. The first call decides; a later one with another directory is refused.
pub fn use_cache_dir(dir: &Path) -> Result<()> {
    let chosen = CHOSEN.get_or_init(|| dir.to_path_buf());
    if chosen != dir {
        bail!(
            "this process already builds its probes in {}, not {}",
            chosen.display(),
            dir.display()
        );
    }
    Ok(())
}

/// concbench's cache directory: the one [`use_cache_dir`] chose, else `$CONCBENCH_CACHE`, else
/// `$XDG_CACHE_HOME/concbench`, else `~/.cache/concbench` (relative paths are ignored, as the
/// XDG specification asks).
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = CHOSEN.get() {
        return dir.clone();
    }
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    absolute(CACHE_ENV).unwrap_or_else(|| {
        absolute("XDG_CACHE_HOME")
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir)
            .join("concbench")
    })
}

/// Where builds are cached when nothing stands in the way: `probes/` in [`cache_dir`].
pub fn cache_root() -> PathBuf {
    cache_dir().join("probes")
}

/// The cache used when `preferred` cannot be written: per user, so users do not share builds.
fn fallback_root() -> PathBuf {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    std::env::temp_dir().join(format!("concbench-probes-{uid}"))
}

/// `preferred` when a build directory can be created in it, else `fallback` with the note that
/// says why (an unwritable `$XDG_CACHE_HOME` must not fail every probe variant).
pub fn usable_cache(preferred: &Path, fallback: &Path) -> Result<(PathBuf, Option<String>)> {
    let probe_write = |dir: &Path| -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        tempfile::Builder::new()
            .prefix(".writable-")
            .tempdir_in(dir)
            .map(drop)
    };
    match probe_write(preferred) {
        Ok(()) => Ok((preferred.to_path_buf(), None)),
        Err(why) => {
            probe_write(fallback).with_context(|| {
                format!(
                    "neither the probe cache {} ({why}) nor {} can be written",
                    preferred.display(),
                    fallback.display()
                )
            })?;
            let note = format!(
                "the probe cache {} cannot be written ({why}), so the probe was built in {} \
                 instead; set CONCBENCH_CACHE (or XDG_CACHE_HOME) to a writable directory to keep \
                 builds between runs",
                preferred.display(),
                fallback.display()
            );
            Ok((fallback.to_path_buf(), Some(note)))
        }
    }
}

/// A stable hash (FNV-1a, whose definition never changes) of the sources and the tools'
/// identity: their paths, sizes and modification times, so an upgraded compiler rebuilds.
fn build_key(recipe: &Recipe<'_>, files: &[(&str, &str)]) -> String {
    let tc = recipe.toolchain;
    let mut h = fnv::FnvHasher::default();
    for (name, text) in files {
        h.write(name.as_bytes());
        h.write(text.as_bytes());
    }
    for tool in std::iter::once(&tc.tool).chain(&recipe.maven) {
        h.write(tool.as_os_str().as_encoded_bytes());
        if let Ok(m) = std::fs::metadata(tool) {
            h.write_u64(m.len());
            if let Ok(t) = m.modified() {
                h.write(format!("{t:?}").as_bytes());
            }
        }
    }
    let addon = match recipe.addon {
        Addon::None => "",
        Addon::NetHttp => "-nethttp",
        Addon::Swoole => "-swoole",
        Addon::PhpFpm => "-fpm",
        Addon::Netty => {
            h.write(netty_pom().as_bytes());
            "-netty"
        }
    };
    format!("{}{addon}-{:016x}", tc.runtime.name(), h.finish())
}

/// Build the probe for `recipe` (or reuse the cached build) and say how to start it, telling
/// `say` what it builds right before a build (not when the cached build is reused): a build
/// takes seconds to a minute, and a silent wait looks like a hang. `flags` are runtime options
/// of the variant: JVM heap settings, or PHP's `-d extension=...` for Swoole.
pub fn prepare(recipe: &Recipe<'_>, flags: &[&str], say: &mut dyn FnMut(&str)) -> Result<Prepared> {
    let files = sources(recipe.toolchain, recipe.addon);
    let (root, note) = usable_cache(&cache_root(), &fallback_root())?;
    let key = build_key(recipe, &files);
    let dir = root.join(&key);
    if !dir.exists() {
        // Scripts are only written into the cache; compiled probes are built.
        let (verb, by) = match recipe.toolchain.runtime {
            Runtime::Python | Runtime::Php => ("writing", "for"),
            _ => ("building", "with"),
        };
        say(&format!(
            "{verb} the {} probe {by} {} (first use; cached in {})",
            key.rsplit_once('-').map_or(key.as_str(), |(name, _)| name),
            recipe.toolchain.tool.display(),
            root.display()
        ));
        build_into(recipe, &files, &dir, &root)?;
    }
    Ok(Prepared {
        launch: launch(recipe, &dir, flags),
        note,
    })
}

fn launch(recipe: &Recipe<'_>, dir: &Path, flags: &[&str]) -> Launch {
    let tc = recipe.toolchain;
    let os = |s: &str| OsString::from(s);
    match tc.runtime {
        Runtime::Go | Runtime::C => Launch {
            program: dir.join("probe"),
            ..Launch::default()
        },
        Runtime::Python => Launch {
            program: tc.tool.clone(),
            args: vec![os("-I"), os("-u"), dir.join("probe.py").into()],
            ..Launch::default()
        },
        Runtime::Php => {
            let script = match recipe.addon {
                Addon::Swoole | Addon::PhpFpm => "serve.php",
                _ => "probe.php",
            };
            let mut args: Vec<OsString> = flags.iter().map(|f| os(f)).collect();
            args.push(dir.join(script).into());
            Launch {
                program: tc.tool.clone(),
                args,
                ..Launch::default()
            }
        }
        Runtime::CSharp => Launch {
            program: tc.runner.clone().unwrap_or_else(|| PathBuf::from("mono")),
            args: vec![dir.join("probe.exe").into()],
            ..Launch::default()
        },
        Runtime::Java => {
            let home = tc.home.clone().unwrap_or_default();
            let mut args: Vec<OsString> = Vec::new();
            if tc.java_feature.unwrap_or(0) >= JAVA_FFM_FEATURE {
                args.push(os("--enable-native-access=ALL-UNNAMED"));
            }
            args.extend(flags.iter().map(|f| os(f)));
            let mut classpath = dir.join("classes").into_os_string();
            if recipe.addon == Addon::Netty {
                classpath.push(":");
                classpath.push(dir.join("lib/*"));
            }
            args.extend([os("-cp"), classpath, os("Probe")]);
            Launch {
                program: home.join("bin/java"),
                args,
                ..Launch::default()
            }
        }
    }
}

/// Build in a fresh temporary directory beside `dir`, then rename it into place.
fn build_into(recipe: &Recipe<'_>, files: &[(&str, &str)], dir: &Path, root: &Path) -> Result<()> {
    let tc = recipe.toolchain;
    let parent = dir.parent().context("cache directory")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(parent)
        .with_context(|| format!("creating a build directory in {}", parent.display()))?;
    for (name, text) in files {
        let file = tmp.path().join(name);
        std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
    }
    if recipe.addon == Addon::Netty {
        fetch_netty(recipe, tmp.path())?;
    }
    if let Some(mut cmd) = compile_command(recipe, tmp.path(), files, root) {
        run_build_step(
            &mut cmd,
            &format!(
                "building the {} probe with {}",
                tc.runtime.name(),
                tc.tool.display()
            ),
        )?;
    }
    let built = tmp.keep();
    if let Err(e) = std::fs::rename(&built, dir) {
        // Another process built the same key meanwhile: use theirs.
        let _ = std::fs::remove_dir_all(&built);
        if !dir.exists() {
            return Err(e).with_context(|| format!("moving the build to {}", dir.display()));
        }
    }
    Ok(())
}

/// Run one build step; a failure quotes the end of its output.
fn run_build_step(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd
        .output()
        .with_context(|| format!("{what}: starting {:?}", cmd.get_program()))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr) + String::from_utf8_lossy(&out.stdout);
        let tail: Vec<&str> = text.lines().rev().take(8).collect();
        bail!(
            "{what} failed ({}): {}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        );
    }
    Ok(())
}

/// Have Maven copy `io.netty:netty-all` and the jars it depends on into `dir/lib` (downloaded
/// from Maven Central into `~/.m2` the first time, then taken from there).
fn fetch_netty(recipe: &Recipe<'_>, dir: &Path) -> Result<()> {
    let mvn = recipe
        .maven
        .as_ref()
        .context("the Netty build needs mvn (apt-get install maven)")?;
    let pom = dir.join("pom.xml");
    std::fs::write(&pom, netty_pom()).with_context(|| format!("writing {}", pom.display()))?;
    let mut cmd = Command::new(mvn);
    cmd.current_dir(dir).args([
        "-q",
        "-B",
        "dependency:copy-dependencies",
        "-DoutputDirectory=lib",
        "-DincludeScope=runtime",
    ]);
    run_build_step(
        &mut cmd,
        &format!(
            "fetching io.netty:netty-all:{NETTY_VERSION} with {} (from Maven Central, or ~/.m2 once fetched; \
             check the network or a proxy in ~/.m2/settings.xml)",
            mvn.display()
        ),
    )
}

/// The compiler invocation, or `None` for an interpreted probe. `root` is the cache in use.
fn compile_command(
    recipe: &Recipe<'_>,
    dir: &Path,
    files: &[(&str, &str)],
    root: &Path,
) -> Option<Command> {
    let tc = recipe.toolchain;
    let mut cmd = Command::new(&tc.tool);
    cmd.current_dir(dir);
    match tc.runtime {
        Runtime::Python | Runtime::Php => return None,
        Runtime::C => {
            cmd.args(["-O2", "-pthread", "-o", "probe", "probe.c"]);
        }
        Runtime::CSharp => {
            cmd.args(["-optimize+", "-nologo", "-out:probe.exe", "Probe.cs"]);
        }
        Runtime::Go => {
            cmd.args(["build", "-trimpath", "-o", "probe"])
                .args(files.iter().map(|(name, _)| name))
                .env("GOTOOLCHAIN", "local")
                .env("GOPROXY", "off")
                .env("GOFLAGS", "")
                .env("CGO_ENABLED", "0");
            // Go needs a build cache. Its default lives under XDG_CACHE_HOME or HOME: without
            // either, or when the probe cache itself had to move (an unwritable XDG_CACHE_HOME
            // would break Go's default too), keep it beside the probes.
            let moved = root != cache_root();
            if std::env::var_os("GOCACHE").is_none()
                && (moved
                    || (std::env::var_os("HOME").is_none()
                        && std::env::var_os("XDG_CACHE_HOME").is_none()))
            {
                cmd.env("GOCACHE", root.join("go-build"))
                    .env("GOPATH", root.join("gopath"));
            }
        }
        Runtime::Java => {
            // javac is itself a Java program: C1 alone starts faster for one short compile.
            cmd.args(["-J-XX:TieredStopAtLevel=1", "-nowarn", "-d", "classes"]);
            if recipe.addon == Addon::Netty {
                cmd.args(["-cp", "lib/*"]);
            }
            cmd.args(files.iter().map(|(name, _)| name));
        }
    }
    Some(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(runtime: Runtime, feature: Option<u32>) -> Toolchain {
        Toolchain {
            runtime,
            tool: PathBuf::from("/nonexistent/tool"),
            home: Some(PathBuf::from("/nonexistent/jdk")),
            java_feature: feature,
            runner: None,
        }
    }

    #[test]
    fn keys_change_with_the_sources_and_name_the_runtime() {
        let go = tc(Runtime::Go, None);
        let recipe = Recipe::plain(&go);
        let a = build_key(&recipe, &[("main.go", "package main")]);
        let b = build_key(&recipe, &[("main.go", "package main // changed")]);
        assert_ne!(a, b);
        assert!(a.starts_with("go-"));
        assert_eq!(a, build_key(&recipe, &[("main.go", "package main")]));
    }

    #[test]
    fn java_gets_getrusage_only_where_ffm_is_final() {
        let has = |feature, name| {
            sources(&tc(Runtime::Java, Some(feature)), Addon::None)
                .iter()
                .any(|(n, _)| *n == name)
        };
        assert!(!has(17, "NativeUsage.java"));
        assert!(has(25, "NativeUsage.java"));
        let java = tc(Runtime::Java, Some(25));
        let l = launch(&Recipe::plain(&java), Path::new("/c"), &["-Xmx1g"]);
        let args: Vec<_> = l
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx1g",
                "-cp",
                "/c/classes",
                "Probe"
            ]
        );
    }

    #[test]
    fn the_netty_build_is_its_own_and_puts_netty_on_the_classpath() {
        let java = tc(Runtime::Java, Some(25));
        let netty = Recipe {
            addon: Addon::Netty,
            ..Recipe::plain(&java)
        };
        let files = sources(&java, Addon::Netty);
        assert!(files.iter().any(|(n, _)| *n == "NettyServe.java"));
        assert!(!sources(&java, Addon::None)
            .iter()
            .any(|(n, _)| *n == "NettyServe.java"));
        assert!(build_key(&netty, &files).starts_with("java-netty-"));
        let l = launch(&netty, Path::new("/c"), &[]);
        assert!(l.args.iter().any(|a| a == "/c/classes:/c/lib/*"), "{l:?}");
        assert!(netty_pom().contains(&format!("<version>{NETTY_VERSION}</version>")));
        assert!(netty_pom().contains(&format!("<version>{MAVEN_DEPENDENCY_PLUGIN}</version>")));
        let go = tc(Runtime::Go, None);
        let serves = |addon| sources(&go, addon).iter().any(|(n, _)| *n == "serve.go");
        assert!(serves(Addon::NetHttp) && !serves(Addon::None));
    }

    #[test]
    fn an_unwritable_cache_falls_back_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        // A regular file where the cache should be: unwritable even for root.
        let blocked = dir.path().join("not-a-directory");
        std::fs::write(&blocked, "").unwrap();
        let preferred = blocked.join("concbench/probes");
        let fallback = dir.path().join("fallback");
        let (root, note) = usable_cache(&preferred, &fallback).unwrap();
        assert_eq!(root, fallback);
        let note = note.unwrap();
        assert!(note.contains("cannot be written"), "{note}");
        assert!(note.contains("XDG_CACHE_HOME"), "{note}");
        let (root, note) = usable_cache(&fallback, &preferred).unwrap();
        assert_eq!((root, note), (fallback.clone(), None));
        let e = usable_cache(&preferred, &blocked.join("x")).unwrap_err();
        assert!(format!("{e:#}").contains("neither"), "{e:#}");
    }
}
