//! Getting Swoole, the PHP coroutine extension seed S2 measured, for the `swoole` server design.
//!
//! In order: an extension PHP already loads (`php -m` lists `swoole`: a distribution package or
//! `pecl install swoole`); a source tree or tarball named by [`SRC_ENV`] (Swoole's releases:
//! <https://github.com/swoole/swoole-src/releases> or <https://pecl.php.net/package/swoole>).
//! concbench looks nowhere else: where a binary was built is no place to search at run time. A
//! source is built once — `phpize && ./configure && make` — into the probe cache,
//! keyed by the source's SHA-256 and the PHP version, never installed system-wide, and loaded
//! with `php -d extension=...`. Builds take the cache's lock, so two processes never build at
//! once; a failed build leaves a marker with the compiler's last lines, and the design is then
//! skipped with them instead of rebuilding (and failing) in every round.

use super::build::cache_root;
use super::toolchain::Search;
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Names a Swoole source tree or tarball to build from.
pub const SRC_ENV: &str = "CONCBENCH_SWOOLE_SRC";
/// How a user gets Swoole.
pub const HINT: &str = "pecl install swoole, or set CONCBENCH_SWOOLE_SRC to a Swoole source \
    tree or tarball; Swoole 6 needs PHP >= 8.2 and phpize (apt-get install php-dev)";
/// The oldest PHP Swoole 6 builds against.
const PHP_MIN: (u32, u32) = (8, 2);

/// Where Swoole comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// PHP loads it already.
    Installed,
    /// A source tree (a directory with `config.m4`).
    Tree(PathBuf),
    /// A `.tar.gz` of a source tree with one top directory (`git archive`, PECL's release).
    Tarball(PathBuf),
}

/// Swoole found for one PHP: what PHP is, and where the extension comes from.
#[derive(Debug, Clone)]
pub struct Located {
    pub php: PathBuf,
    pub php_version: String,
    pub source: Source,
}

/// What `php` says about itself (version, whether it loads swoole): started once per process.
#[derive(Debug, Clone)]
struct PhpFacts {
    version: String,
    has_swoole: bool,
}

/// What each `php` said, by path.
type Seen = Vec<(PathBuf, Result<PhpFacts, String>)>;

fn php_facts(php: &Path) -> Result<PhpFacts, String> {
    static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();
    let seen = SEEN.get_or_init(Mutex::default);
    let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, facts)) = seen.iter().find(|(p, _)| p == php) {
        return facts.clone();
    }
    let facts = ask_php(php);
    seen.push((php.to_path_buf(), facts.clone()));
    facts
}

/// Run `php` once, with the empty environment its probes get.
fn ask_php(php: &Path) -> Result<PhpFacts, String> {
    let out = Command::new(php)
        .env_clear()
        .args([
            "-r",
            "echo PHP_VERSION, ' ', extension_loaded('swoole') ? 1 : 0;",
        ])
        .output()
        .map_err(|e| format!("swoole: starting {}: {e}", php.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.split_whitespace();
    match (out.status.success(), words.next(), words.next()) {
        (true, Some(version), Some(flag)) => Ok(PhpFacts {
            version: version.to_string(),
            has_swoole: flag == "1",
        }),
        _ => Err(format!(
            "swoole: {} did not say its version ({})",
            php.display(),
            out.status
        )),
    }
}

/// `8.2.36` -> (8, 2).
fn major_minor(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

/// A source named by [`SRC_ENV`]: a tree or a tarball, or why it is neither.
fn named_source(path: &Path) -> Result<Source, String> {
    if path.join("config.m4").is_file() {
        Ok(Source::Tree(path.to_path_buf()))
    } else if path.is_file() {
        Ok(Source::Tarball(path.to_path_buf()))
    } else {
        Err(format!(
            "swoole: {SRC_ENV}={} is neither a Swoole source tree (no config.m4) nor a tarball",
            path.display()
        ))
    }
}

/// Where Swoole comes from, given what PHP loads and [`SRC_ENV`]'s value.
pub fn choose(has_swoole: bool, named: Option<&Path>) -> Result<Source, String> {
    if has_swoole {
        return Ok(Source::Installed);
    }
    match named {
        Some(path) => named_source(path),
        None => Err(format!(
            "swoole: PHP has no swoole extension and {SRC_ENV} names no Swoole source: {HINT}"
        )),
    }
}

/// Find PHP and Swoole for it, or say in one line why the design cannot run. Starts `php` once
/// per process (its version and extensions cannot be read from files alone).
pub fn locate(search: &Search) -> Result<Located, String> {
    let php = search
        .program(&["php"], &[])
        .ok_or_else(|| format!("swoole: no php found (apt-get install php-cli); {HINT}"))?;
    let facts = php_facts(&php)?;
    match major_minor(&facts.version) {
        Some(v) if v >= PHP_MIN => {}
        _ => {
            return Err(format!(
                "swoole: Swoole 6 needs PHP {}.{} or later; {} is PHP {} ({HINT})",
                PHP_MIN.0,
                PHP_MIN.1,
                php.display(),
                facts.version
            ))
        }
    }
    let named = std::env::var_os(SRC_ENV).filter(|v| !v.is_empty());
    let source = choose(facts.has_swoole, named.as_deref().map(Path::new))?;
    let located = Located {
        php,
        php_version: facts.version,
        source,
    };
    if let Some(why) = failed_build(&cache_root(), &located) {
        return Err(why);
    }
    if located.source != Source::Installed {
        phpize(search, &located.php)?;
    }
    Ok(located)
}

/// `phpize` and `php-config` beside `php` (Debian: php8.2-dev), or on the search path.
fn phpize(search: &Search, php: &Path) -> Result<(PathBuf, PathBuf), String> {
    let beside = |name: &str| {
        php.parent()
            .map(|d| d.join(name))
            .filter(|p| p.is_file())
            .or_else(|| search.program(&[name], &[]))
    };
    match (beside("phpize"), beside("php-config")) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(format!(
            "swoole: building Swoole needs phpize and php-config beside {} (apt-get install \
             php-dev); or {HINT}",
            php.display()
        )),
    }
}

/// The cache entry's name: the source's hash and the PHP version.
fn key(located: &Located) -> Option<String> {
    let hash = match &located.source {
        Source::Installed => return None,
        Source::Tarball(p) => file_sha256(p)?,
        // A tree changes in place: its path and config.m4's time stand in for its contents.
        Source::Tree(p) => {
            let mtime = std::fs::metadata(p.join("config.m4"))
                .and_then(|m| m.modified())
                .ok()?;
            let text = format!("{}|{mtime:?}", p.display());
            hex(&Sha256::digest(text.as_bytes()))
        }
    };
    Some(format!("swoole-{}-php{}", &hash[..16], located.php_version))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of a file, hashed once per process.
fn file_sha256(path: &Path) -> Option<String> {
    static SEEN: OnceLock<Mutex<Vec<(PathBuf, String)>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Mutex::default);
    let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, h)) = seen.iter().find(|(p, _)| p == path) {
        return Some(h.clone());
    }
    let bytes = std::fs::read(path).ok()?;
    let h = hex(&Sha256::digest(&bytes));
    seen.push((path.to_path_buf(), h.clone()));
    Some(h)
}

fn marker(root: &Path, key: &str) -> PathBuf {
    root.join(format!("{key}.failed"))
}

/// The reason a cached build of this source failed, if it did.
fn failed_build(root: &Path, located: &Located) -> Option<String> {
    let key = key(located)?;
    let path = marker(root, &key);
    let why = std::fs::read_to_string(&path).ok()?;
    Some(format!(
        "swoole: building it failed: {} (remove {} to try again)",
        why.trim(),
        path.display()
    ))
}

/// The extension as it is now, without building: `Ok(None)` when PHP loads it already,
/// `Ok(Some(path))` when a build is cached, `Err` saying why there is none yet.
pub fn cached_extension(located: &Located) -> Result<Option<PathBuf>, String> {
    let Some(key) = key(located) else {
        return Ok(None);
    };
    let so = cache_root().join(&key).join("swoole.so");
    if so.is_file() {
        Ok(Some(so))
    } else {
        Err(format!(
            "swoole is not built yet (a run of its server builds it once into {})",
            so.display()
        ))
    }
}

/// The extension to load with `-d extension=...` (`None`: PHP loads it already), built now when
/// it is not cached, telling `say` each step and its time.
pub fn extension(located: &Located, say: &mut dyn FnMut(&str)) -> Result<Option<PathBuf>> {
    let Some(key) = key(located) else {
        return Ok(None);
    };
    // Swoole lives in the probe cache's directory; it is too large to build twice, so no
    // temporary fallback cache here.
    let root = cache_root();
    let so = root.join(&key).join("swoole.so");
    if so.is_file() {
        return Ok(Some(so));
    }
    std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    let lock_path = root.join("swoole.lock");
    let lock = std::fs::File::create(&lock_path)
        .with_context(|| format!("creating {}", lock_path.display()))?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .with_context(|| format!("locking {}", lock_path.display()))?;
    // Another process may have built it while this one waited for the lock.
    if so.is_file() {
        return Ok(Some(so));
    }
    if let Some(why) = failed_build(&root, located) {
        bail!(why);
    }
    match build(located, &root, &key, say) {
        Ok(()) => Ok(Some(so)),
        Err(e) => {
            let why = format!("{e:#}");
            let _ = std::fs::write(marker(&root, &key), &why);
            Err(e)
        }
    }
}

/// Unpack or copy the source, build it in a temporary directory and move `swoole.so` into
/// `root/key/`.
fn build(located: &Located, root: &Path, key: &str, say: &mut dyn FnMut(&str)) -> Result<()> {
    let (phpize, php_config) =
        phpize(&Search::from_env(), &located.php).map_err(anyhow::Error::msg)?;
    let tmp = tempfile::Builder::new()
        .prefix(".build-swoole-")
        .tempdir_in(root)
        .with_context(|| format!("creating a build directory in {}", root.display()))?;
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).with_context(|| format!("creating {}", src.display()))?;
    let started = Instant::now();
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let from = match &located.source {
        Source::Tarball(p) | Source::Tree(p) => p,
        Source::Installed => bail!("an installed extension needs no build"),
    };
    say(&format!(
        "building Swoole from {} for PHP {} (first use: about 8 CPU-minutes of compiling, some \
         4 minutes on 2 idle CPUs; cached in {})",
        from.display(),
        located.php_version,
        root.join(key).display()
    ));
    match &located.source {
        Source::Tree(p) => {
            // Copy the tree so that phpize and make leave the user's tree untouched.
            step(
                say,
                "copying the source",
                Command::new("cp").arg("-a").arg(p.join(".")).arg(&src),
            )?;
        }
        _ => step(
            say,
            "unpacking the source",
            Command::new("tar")
                .arg("-xzf")
                .arg(from)
                .args(["--strip-components=1", "-C"])
                .arg(&src),
        )?,
    }
    step(say, "phpize", Command::new(&phpize).current_dir(&src))?;
    // The server needs Swoole's core only (HTTP server, coroutines, hooks): no optional library.
    step(
        say,
        "./configure",
        Command::new("./configure")
            .arg(format!("--with-php-config={}", php_config.display()))
            .current_dir(&src),
    )?;
    step(
        say,
        &format!("make -j{jobs}"),
        Command::new("make")
            .arg(format!("-j{jobs}"))
            .current_dir(&src),
    )?;
    let staged = tmp.path().join("out");
    std::fs::create_dir(&staged).with_context(|| format!("creating {}", staged.display()))?;
    std::fs::copy(src.join("modules/swoole.so"), staged.join("swoole.so"))
        .context("copying modules/swoole.so out of the build")?;
    std::fs::rename(&staged, root.join(key))
        .with_context(|| format!("moving the build to {}", root.join(key).display()))?;
    say(&format!(
        "built Swoole in {:.0} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// Run one build step, saying it and its time; a failure quotes the end of its output.
fn step(say: &mut dyn FnMut(&str), what: &str, cmd: &mut Command) -> Result<()> {
    let started = Instant::now();
    let out = cmd
        .output()
        .with_context(|| format!("swoole build, {what}: starting {:?}", cmd.get_program()))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = text.lines().rev().take(8).collect();
        bail!(
            "swoole build, {what} failed ({}): {}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        );
    }
    say(&format!(
        "swoole build: {what} done in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_extension_comes_first_then_the_named_source() {
        let dir = tempfile::tempdir().unwrap();
        let why = choose(false, None).unwrap_err();
        assert!(
            why.contains("pecl install swoole") && why.contains(SRC_ENV),
            "{why}"
        );
        assert!(!why.contains('\n'), "{why}");
        let tarball = dir.path().join("swoole-src-6.2.2.tar.gz");
        std::fs::write(&tarball, "").unwrap();
        assert_eq!(
            choose(false, Some(&tarball)),
            Ok(Source::Tarball(tarball.clone()))
        );
        let tree = dir.path().join("tree");
        std::fs::create_dir(&tree).unwrap();
        assert!(choose(false, Some(&tree)).unwrap_err().contains(SRC_ENV));
        std::fs::write(tree.join("config.m4"), "").unwrap();
        assert_eq!(choose(false, Some(&tree)), Ok(Source::Tree(tree.clone())));
        assert_eq!(choose(true, Some(&tree)), Ok(Source::Installed));
    }

    #[test]
    fn versions_compare_by_major_and_minor() {
        assert_eq!(major_minor("8.2.36"), Some((8, 2)));
        assert!(major_minor("8.1.2").unwrap() < PHP_MIN);
        assert!(major_minor("8.10.0").unwrap() >= PHP_MIN);
        assert_eq!(major_minor("eight"), None);
    }

    #[test]
    fn a_failed_build_is_skipped_with_the_end_of_its_output_until_its_marker_goes() {
        let dir = tempfile::tempdir().unwrap();
        let tarball = dir.path().join("swoole-src-1.tar.gz");
        std::fs::write(&tarball, "not a tarball").unwrap();
        let located = Located {
            php: PathBuf::from("/usr/bin/php"),
            php_version: "8.2.36".into(),
            source: Source::Tarball(tarball),
        };
        assert_eq!(failed_build(dir.path(), &located), None);
        let mut said = Vec::new();
        let e = step(
            &mut |s| said.push(s.to_string()),
            "make -j2",
            Command::new("sh").args([
                "-c",
                "echo compiling; echo 'error: no swoole.h' >&2; exit 2",
            ]),
        )
        .unwrap_err();
        let why = format!("{e:#}");
        assert!(
            why.contains("make -j2 failed") && why.contains("error: no swoole.h"),
            "{why}"
        );
        assert!(said.is_empty(), "{said:?}");
        let key = key(&located).unwrap();
        std::fs::write(marker(dir.path(), &key), &why).unwrap();
        let skip = failed_build(dir.path(), &located).unwrap();
        assert!(
            skip.contains("error: no swoole.h") && skip.contains("to try again"),
            "{skip}"
        );
        assert!(!skip.contains('\n'), "{skip}");
        std::fs::remove_file(marker(dir.path(), &key)).unwrap();
        assert_eq!(failed_build(dir.path(), &located), None);
    }

    #[test]
    fn the_cache_key_names_the_source_hash_and_the_php_version() {
        let dir = tempfile::tempdir().unwrap();
        let tarball = dir.path().join("swoole-src-1.tar.gz");
        std::fs::write(&tarball, "abc").unwrap();
        let located = Located {
            php: PathBuf::from("/usr/bin/php"),
            php_version: "8.2.36".into(),
            source: Source::Tarball(tarball),
        };
        // sha256("abc") begins ba7816bf8f01cfea.
        assert_eq!(
            key(&located).as_deref(),
            Some("swoole-ba7816bf8f01cfea-php8.2.36")
        );
        let installed = Located {
            source: Source::Installed,
            ..located
        };
        assert_eq!(key(&installed), None);
    }
}
