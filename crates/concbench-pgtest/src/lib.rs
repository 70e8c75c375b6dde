//! For tests only: a real, throw-away PostgreSQL server.
//!
//! [`TempPostgres::start`] runs Debian's `initdb` into a temporary directory and starts
//! `postgres` on a free loopback port; dropping it stops the server (also when the test panics:
//! the drop runs while unwinding) and removes the directory. PostgreSQL refuses to run as root, so
//! under root the server runs as the unprivileged `nobody` user (setuid in the child); an
//! unprivileged test runs it as itself.
//!
//! Without PostgreSQL's binaries, [`start_or_skip`] fails the test when `CI` is set (`.ci/run`
//! installs the `postgresql` package) and otherwise returns `None` after saying loudly that the
//! test was skipped — as the browser test does without Chromium.

use anyhow::{bail, Context, Result};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The superuser of the throw-away cluster (trust authentication, loopback only).
pub const USER: &str = "concbench";

/// The account a root test runs the server as.
const UNPRIVILEGED: libc::uid_t = 65534; // nobody, on every Debian system

/// How long a fresh server may take to accept connections (a busy 2-CPU CI machine).
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// A running PostgreSQL server in a temporary directory.
pub struct TempPostgres {
    server: Child,
    port: u16,
    // Dropped after the server stopped (fields drop after `Drop::drop`).
    dir: tempfile::TempDir,
}

/// The directory holding `initdb` and `postgres`: `$CONCBENCH_PG_BIN`, else the one on PATH,
/// else Debian's newest `/usr/lib/postgresql/N/bin`.
pub fn find_binaries() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CONCBENCH_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .find(|d| d.join("initdb").is_file() && d.join("postgres").is_file())
    });
    on_path.or_else(|| {
        let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .flatten()
            .filter_map(|e| {
                let version = e.file_name().to_str()?.parse().ok()?;
                let bin = e.path().join("bin");
                bin.join("initdb").is_file().then_some((version, bin))
            })
            .collect();
        versions.sort();
        versions.pop().map(|(_, bin)| bin)
    })
}

/// A server for `test`, or `None` (after a SKIPPED line) when PostgreSQL is not installed here;
/// under `CI` a missing PostgreSQL fails the test.
pub fn start_or_skip(test: &str) -> Option<TempPostgres> {
    let Some(bin) = find_binaries() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: PostgreSQL is not installed: CI must install it (.ci/run: apt-get install \
             postgresql)"
        );
        eprintln!(
            "SKIPPED {test}: no PostgreSQL binaries (apt-get install postgresql, or set \
             CONCBENCH_PG_BIN to the directory of initdb and postgres); CI runs this test"
        );
        return None;
    };
    Some(TempPostgres::start(&bin).unwrap_or_else(|e| panic!("{test}: {e:#}")))
}

fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A command running as the server's user; the child dies with this process's thread.
fn as_server_user(program: PathBuf) -> Command {
    let mut cmd = Command::new(program);
    if running_as_root() {
        cmd.uid(UNPRIVILEGED).gid(UNPRIVILEGED);
    }
    cmd.env("LC_ALL", "C").env_remove("PGDATA");
    // SAFETY: prctl is async-signal-safe; it runs after the uid change (which would clear it),
    // so the server is stopped even if the test process is killed before its drop runs.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGQUIT) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

/// A loopback port nobody listens on right now.
fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

impl TempPostgres {
    /// `initdb` a new cluster and start its server; waits until it accepts connections.
    pub fn start(bin: &Path) -> Result<TempPostgres> {
        let dir = tempfile::Builder::new()
            .prefix("concbench-pg-")
            .tempdir_in(std::env::temp_dir())
            .context("creating the cluster's directory")?;
        if running_as_root() {
            std::os::unix::fs::chown(dir.path(), Some(UNPRIVILEGED), Some(UNPRIVILEGED))
                .context("giving the cluster's directory to nobody")?;
        }
        let data = dir.path().join("data");
        let init = as_server_user(bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"])
            .stdin(Stdio::null())
            .output()
            .context("running initdb")?;
        if !init.status.success() {
            bail!(
                "initdb failed ({}): {}",
                init.status,
                String::from_utf8_lossy(&init.stderr)
            );
        }
        // No fsync: nothing in a throw-away cluster must survive a crash. In the configuration
        // file, not on the command line, so a test may turn it back on (ALTER SYSTEM + reload).
        std::fs::OpenOptions::new()
            .append(true)
            .open(data.join("postgresql.conf"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"\nfsync = off\n"))
            .context("configuring the cluster")?;
        let port = free_port()?;
        let log = std::fs::File::create(dir.path().join("server.log"))?;
        let server = as_server_user(bin.join("postgres"))
            .arg("-D")
            .arg(&data)
            .arg("-p")
            .arg(port.to_string())
            .arg("-c")
            .arg(format!("unix_socket_directories={}", dir.path().display()))
            .args(["-c", "listen_addresses=127.0.0.1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .context("starting postgres")?;
        let mut pg = TempPostgres { server, port, dir };
        pg.wait_ready()?;
        Ok(pg)
    }

    fn wait_ready(&mut self) -> Result<()> {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            match postgres::Client::connect(&self.url("postgres"), postgres::NoTls) {
                Ok(_) => return Ok(()),
                Err(e) if Instant::now() > deadline => {
                    bail!(
                        "postgres did not accept connections: {e}; log:\n{}",
                        self.log()
                    )
                }
                Err(_) => {}
            }
            if let Some(status) = self.server.try_wait()? {
                bail!("postgres exited ({status}); log:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!("postgresql://{USER}@127.0.0.1:{}/{name}", self.port)
    }

    /// Create an empty database and return its URL.
    pub fn new_database(&self, name: &str) -> String {
        let mut admin = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .expect("connect to the test server");
        admin
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .unwrap_or_else(|e| panic!("CREATE DATABASE {name}: {e}"));
        self.url(name)
    }
}

impl Drop for TempPostgres {
    fn drop(&mut self) {
        // SIGQUIT: immediate shutdown; nothing in a throw-away cluster is worth a checkpoint.
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.server.id() as libc::pid_t, libc::SIGQUIT) };
        let _ = self.server.wait();
    }
}
