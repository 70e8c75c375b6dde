//! Building probes on first use, cached by a hash of their sources and the toolchain.
//!
//! The sources are compiled into concbench (`include_str!`), so a fresh clone needs nothing but
//! the toolchains. Builds go to `$XDG_CACHE_HOME/concbench/probes/<runtime>-<hash>` (or
//! `~/.cache/...`), into a temporary directory first and then renamed into place, so concurrent
//! builds (parallel tests) never see a half-built probe. Nothing is fetched: Go builds with
//! `GOTOOLCHAIN=local GOPROXY=off` and the probe uses the standard library only.

use super::toolchain::{Runtime, Toolchain};
use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::process::Command;

const GO_MAIN: &str = include_str!("../../../../probes/go/main.go");
const JAVA_PROBE: &str = include_str!("../../../../probes/java/Probe.java");
const JAVA_NATIVE_USAGE: &str = include_str!("../../../../probes/java/NativeUsage.java");
const PYTHON_PROBE: &str = include_str!("../../../../probes/python/probe.py");
const C_PROBE: &str = include_str!("../../../../probes/c/probe.c");

/// The first Java release whose FFM API (getrusage from Java) is final.
const JAVA_FFM_FEATURE: u32 = 22;

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

/// The files a probe is built from: (file name, contents).
fn sources(tc: &Toolchain) -> Vec<(&'static str, &'static str)> {
    match tc.runtime {
        Runtime::Go => vec![("main.go", GO_MAIN)],
        Runtime::Python => vec![("probe.py", PYTHON_PROBE)],
        Runtime::C => vec![("probe.c", C_PROBE)],
        Runtime::Java if tc.java_feature.unwrap_or(0) >= JAVA_FFM_FEATURE => {
            vec![
                ("Probe.java", JAVA_PROBE),
                ("NativeUsage.java", JAVA_NATIVE_USAGE),
            ]
        }
        Runtime::Java => vec![("Probe.java", JAVA_PROBE)],
    }
}

/// Where builds are cached.
pub fn cache_root() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("concbench").join("probes")
}

/// A stable hash (FNV-1a, whose definition never changes) of the sources and the toolchain's
/// identity: its path, size and modification time, so an upgraded compiler rebuilds.
fn build_key(tc: &Toolchain, files: &[(&str, &str)]) -> String {
    let mut h = fnv::FnvHasher::default();
    for (name, text) in files {
        h.write(name.as_bytes());
        h.write(text.as_bytes());
    }
    h.write(tc.tool.as_os_str().as_encoded_bytes());
    if let Ok(m) = std::fs::metadata(&tc.tool) {
        h.write_u64(m.len());
        if let Ok(t) = m.modified() {
            h.write(format!("{t:?}").as_bytes());
        }
    }
    format!("{}-{:016x}", tc.runtime.name(), h.finish())
}

/// Build the probe for `tc` (or reuse the cached build) and say how to start it. `flags` are
/// runtime options of the variant (JVM heap settings); only Java takes any.
pub fn prepare(tc: &Toolchain, flags: &[&str]) -> Result<Launch> {
    let files = sources(tc);
    let dir = cache_root().join(build_key(tc, &files));
    if !dir.exists() {
        build_into(tc, &files, &dir)?;
    }
    Ok(launch(tc, &dir, flags))
}

fn launch(tc: &Toolchain, dir: &Path, flags: &[&str]) -> Launch {
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
        Runtime::Java => {
            let home = tc.home.clone().unwrap_or_default();
            let mut args: Vec<OsString> = Vec::new();
            if tc.java_feature.unwrap_or(0) >= JAVA_FFM_FEATURE {
                args.push(os("--enable-native-access=ALL-UNNAMED"));
            }
            args.extend(flags.iter().map(|f| os(f)));
            args.extend([os("-cp"), dir.join("classes").into(), os("Probe")]);
            Launch {
                program: home.join("bin/java"),
                args,
                ..Launch::default()
            }
        }
    }
}

/// Build in a fresh temporary directory beside `dir`, then rename it into place.
fn build_into(tc: &Toolchain, files: &[(&str, &str)], dir: &Path) -> Result<()> {
    let parent = dir.parent().context("cache directory")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(parent)
        .with_context(|| format!("creating a build directory in {}", parent.display()))?;
    for (name, text) in files {
        std::fs::write(tmp.path().join(name), text)?;
    }
    if let Some(mut cmd) = compile_command(tc, tmp.path(), files) {
        let out = cmd
            .output()
            .with_context(|| format!("running {}", tc.tool.display()))?;
        if !out.status.success() {
            let text = String::from_utf8_lossy(&out.stderr) + String::from_utf8_lossy(&out.stdout);
            let tail: Vec<&str> = text.lines().rev().take(8).collect();
            bail!(
                "building the {} probe with {} failed ({}): {}",
                tc.runtime.name(),
                tc.tool.display(),
                out.status,
                tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
            );
        }
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

/// The compiler invocation, or `None` for an interpreted probe.
fn compile_command(tc: &Toolchain, dir: &Path, files: &[(&str, &str)]) -> Option<Command> {
    let mut cmd = Command::new(&tc.tool);
    cmd.current_dir(dir);
    match tc.runtime {
        Runtime::Python => return None,
        Runtime::C => {
            cmd.args(["-O2", "-pthread", "-o", "probe", "probe.c"]);
        }
        Runtime::Go => {
            cmd.args(["build", "-trimpath", "-o", "probe", "main.go"])
                .env("GOTOOLCHAIN", "local")
                .env("GOPROXY", "off")
                .env("GOFLAGS", "")
                .env("CGO_ENABLED", "0");
            // Go needs a build cache; without HOME or XDG_CACHE_HOME it has none by default.
            if std::env::var_os("GOCACHE").is_none()
                && std::env::var_os("HOME").is_none()
                && std::env::var_os("XDG_CACHE_HOME").is_none()
            {
                cmd.env("GOCACHE", cache_root().join("go-build"))
                    .env("GOPATH", cache_root().join("gopath"));
            }
        }
        Runtime::Java => {
            // javac is itself a Java program: C1 alone starts faster for one short compile.
            cmd.args(["-J-XX:TieredStopAtLevel=1", "-nowarn", "-d", "classes"])
                .args(files.iter().map(|(name, _)| name));
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
        }
    }

    #[test]
    fn keys_change_with_the_sources_and_name_the_runtime() {
        let go = tc(Runtime::Go, None);
        let a = build_key(&go, &[("main.go", "package main")]);
        let b = build_key(&go, &[("main.go", "package main // changed")]);
        assert_ne!(a, b);
        assert!(a.starts_with("go-"));
        assert_eq!(a, build_key(&go, &[("main.go", "package main")]));
    }

    #[test]
    fn java_gets_getrusage_only_where_ffm_is_final() {
        assert_eq!(sources(&tc(Runtime::Java, Some(17))).len(), 1);
        assert_eq!(sources(&tc(Runtime::Java, Some(25))).len(), 2);
        let l = launch(&tc(Runtime::Java, Some(25)), Path::new("/c"), &["-Xmx1g"]);
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
}
