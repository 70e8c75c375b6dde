//! A stable, anonymous machine id for the host facts, so a fleet report tells machines apart
//! when hostnames repeat (`localhost`, a reused pod name) or change.
//!
//! Following systemd's advice for application ids (`sd_id128_get_machine_app_specific`), the
//! raw `/etc/machine-id` is never written anywhere: the id is an HMAC-SHA256 keyed with it over
//! a concbench-specific message, truncated to 128 bits. A machine without a machine-id (a bare
//! container) falls back to the same hash of its hostname, prefixed `host-` so a reader knows it
//! is only as stable as the hostname.
//!
//! In a container the hostname is the pod's (new every run) and `/etc/machine-id` the image's
//! (or absent): `$CONCBENCH_MACHINE_ID` then names the machine (the Kubernetes Job sets it to the
//! node's name), hashed the same way and prefixed `named-`.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Where systemd and D-Bus keep the machine id.
const MACHINE_ID_FILES: [&str; 2] = ["/etc/machine-id", "/var/lib/dbus/machine-id"];

/// The message the machine id is hashed over: changing it changes every machine's id.
const APPLICATION: &[u8] = b"concbench machine id v1";

/// The environment variable that names the machine where the files cannot (containers).
pub const MACHINE_ID_ENV: &str = "CONCBENCH_MACHINE_ID";

/// This machine's id (see the module docs).
pub fn collect(hostname: &str) -> String {
    let named = std::env::var(MACHINE_ID_ENV).ok().filter(|n| !n.is_empty());
    let machine_id = MACHINE_ID_FILES.iter().find_map(|p| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    });
    from_facts(named.as_deref(), machine_id.as_deref(), hostname)
}

/// The id from a name given in the environment, else the machine-id file's content, else the
/// hostname.
pub fn from_facts(named: Option<&str>, machine_id: Option<&str>, hostname: &str) -> String {
    match (named, machine_id) {
        (Some(name), _) => format!("named-{}", keyed_hash(name)),
        (None, Some(id)) => keyed_hash(id),
        (None, None) => format!("host-{}", keyed_hash(hostname)),
    }
}

/// HMAC-SHA256(key, APPLICATION), first 16 bytes in hex.
fn keyed_hash(key: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key.as_bytes()).expect("HMAC takes any key");
    mac.update(APPLICATION);
    mac.finalize().into_bytes()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "4f1c3ab2d6e94b0c8a7d2e5f6b1c0d9e";

    #[test]
    fn the_machine_id_is_hashed_stable_and_never_shown_raw() {
        let id = from_facts(None, Some(SAMPLE), "box");
        assert_eq!(
            id,
            from_facts(None, Some(SAMPLE), "renamed-box"),
            "hostname ignored"
        );
        assert_eq!(id.len(), 32);
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(!id.contains(&SAMPLE[..8]), "raw id leaked: {id}");
        assert_ne!(id, from_facts(None, Some("0".repeat(32).as_str()), "box"));
    }

    #[test]
    fn without_a_machine_id_the_hostname_stands_in_and_says_so() {
        let id = from_facts(None, None, "ci-runner-7");
        assert!(id.starts_with("host-"), "{id}");
        assert_eq!(id, from_facts(None, None, "ci-runner-7"));
        assert_ne!(id, from_facts(None, None, "ci-runner-8"));
    }

    #[test]
    fn a_name_from_the_environment_wins_and_is_marked() {
        let id = from_facts(Some("node-7"), Some(SAMPLE), "pod-x1y2");
        assert!(id.starts_with("named-"), "{id}");
        assert_eq!(id, from_facts(Some("node-7"), None, "pod-z9"));
    }

    #[test]
    fn this_machine_has_an_id() {
        let id = collect("whatever");
        assert!(id.len() >= 32, "{id}");
    }
}
