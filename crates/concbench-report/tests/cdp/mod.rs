//! A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`: headless Chromium
//! reads commands on fd 3 and writes replies and events on fd 4, each a JSON object ended by NUL.
//!
//! Hand-written (about a hundred lines) rather than taken from `headless_chrome` or
//! `chromiumoxide`, which bring a websocket stack and an async runtime (well over a hundred
//! crates) to a test that needs five commands.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// The Chromium to use: `$CONCBENCH_CHROMIUM`, else the first of the usual names on PATH.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CONCBENCH_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

pub struct Browser {
    child: Child,
    to_browser: std::fs::File,
    from_browser: Receiver<Value>,
    next_id: u64,
    /// Events received while waiting for replies, in arrival order.
    pub events: Vec<Value>,
}

/// Move `fd` above the descriptors the child will use, so the dup2 onto 3 and 4 cannot clobber
/// it (it keeps FD_CLOEXEC, so the copy stays private to this process).
fn high(fd: OwnedFd) -> OwnedFd {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) only duplicates a descriptor we own.
    let raw = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
    assert!(raw >= 10, "fcntl: {}", std::io::Error::last_os_error());
    // SAFETY: `raw` is a fresh descriptor nothing else owns.
    unsafe { std::os::fd::FromRawFd::from_raw_fd(raw) }
}

impl Browser {
    /// Start headless Chromium with a fresh profile in `profile`.
    pub fn launch(chromium: &Path, profile: &Path) -> std::io::Result<Browser> {
        let (cmd_read, cmd_write) = std::io::pipe()?;
        let (evt_read, evt_write) = std::io::pipe()?;
        let child_in = high(OwnedFd::from(cmd_read));
        let child_out = high(OwnedFd::from(evt_write));
        let (fd_in, fd_out) = (child_in.as_raw_fd(), child_out.as_raw_fd());
        let mut command = Command::new(chromium);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                // Containers often have a tiny /dev/shm: use /tmp for shared memory instead.
                "--disable-dev-shm-usage",
                "--remote-debugging-pipe",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: between fork and exec the closure calls only dup2, which is async-signal-safe;
        // dup2 clears FD_CLOEXEC on 3 and 4, the descriptors Chromium's pipe transport expects.
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(fd_in, 3) < 0 || libc::dup2(fd_out, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn()?;
        drop((child_in, child_out));
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(evt_read);
            let mut buf = Vec::new();
            while reader.read_until(0, &mut buf).is_ok_and(|n| n > 0) {
                buf.pop_if(|b| *b == 0);
                if let Ok(v) = serde_json::from_slice::<Value>(&buf) {
                    if tx.send(v).is_err() {
                        return;
                    }
                }
                buf.clear();
            }
        });
        Ok(Browser {
            child,
            to_browser: std::fs::File::from(OwnedFd::from(cmd_write)),
            from_browser: rx,
            next_id: 1,
            events: Vec::new(),
        })
    }

    /// Write one message (NUL-terminated JSON) to the browser.
    fn send(&mut self, msg: &Value) {
        let mut bytes = serde_json::to_vec(msg).unwrap();
        bytes.push(0);
        self.to_browser
            .write_all(&bytes)
            .expect("write to chromium");
    }

    /// Receive messages, keeping each as an event, until `wanted` accepts one (returned) or
    /// `timeout` passes (a panic naming `what`).
    fn receive_until(
        &mut self,
        what: &str,
        timeout: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self
                .from_browser
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("chromium sent no {what} within {timeout:?}"));
            if wanted(&v) {
                return v;
            }
            self.events.push(v);
        }
    }

    /// Send `method` (to the page `session`, or to the browser) and wait for its result.
    pub fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.send(&msg);
        let reply = self.receive_until(
            &format!("answer to {method}"),
            Duration::from_secs(60),
            |v| v.get("id") == Some(&json!(id)),
        );
        if let Some(err) = reply.get("error") {
            panic!("{method} failed: {err}");
        }
        reply["result"].clone()
    }

    /// Wait until an event named `method` arrives (or was already received).
    pub fn wait_event(&mut self, method: &str, timeout: Duration) -> Value {
        if let Some(e) = self.events.iter().find(|e| e["method"] == method) {
            return e.clone();
        }
        let event = self.receive_until(method, timeout, |v| v["method"] == method);
        self.events.push(event.clone());
        event
    }

    /// Collect whatever events arrive during `quiet`.
    pub fn drain(&mut self, quiet: Duration) {
        while let Ok(v) = self.from_browser.recv_timeout(quiet) {
            self.events.push(v);
        }
    }
}

impl Browser {
    /// Ask Chromium to quit and wait for it (killing it after 10 s), so no renderer or zygote
    /// process outlives the test.
    pub fn close(mut self) {
        let id = self.next_id;
        self.send(&json!({ "id": id, "method": "Browser.close" }));
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
