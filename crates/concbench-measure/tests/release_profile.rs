//! The release profile's promise (docs/BUILD.md): what shortens the first build never touches the
//! code a measurement runs. The workspace's `Cargo.toml` may lower the optimization of crates
//! that only parse, render or store, but not of the measuring crates or the dependencies their
//! measured loops run, and it changes nothing profile-wide that would alter their code (opt-level,
//! LTO, codegen units, assertions, panic strategy).

use std::collections::BTreeMap;

/// concbench's crates whose code runs in a worker or between a sample's clock readings. Not here:
/// `concbench-session` (the parent: it plans and spawns rounds and reads /proc/stat at their
/// boundaries, blocked while a worker measures) and `concbench-probes` (it builds and starts the
/// articles' programs, which time themselves, and waits for their answer in `poll`).
const MEASURING: &[&str] = &[
    "concbench-core",
    "concbench-sys",
    "concbench-measure",
    "concbench-experiments",
    "concbench-server",
    "concbench-load",
    "concbench-stats",
];

/// Dependencies a measured loop runs.
const HOT_DEPENDENCIES: &[&str] = &[
    "tokio",
    "rustix",
    "libc",
    "corosensei",
    "spin",
    "io-uring",
    "socket2",
    "hdrhistogram",
    "perf-event2",
    "memchr",
    "fastrand",
    "mio",
];

/// Settings that change the generated code of every crate they apply to.
const CODE_SETTINGS: &[&str] = &[
    "opt-level",
    "lto",
    "codegen-units",
    "debug-assertions",
    "overflow-checks",
    "panic",
    "incremental",
];

/// Each `[profile.release...]` section's `key = value` lines, by section name.
fn release_sections() -> BTreeMap<String, Vec<(String, String)>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let text = std::fs::read_to_string(path).expect("the workspace's Cargo.toml");
    let mut sections: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name
                .starts_with("profile.release")
                .then(|| name.trim_matches('"').replace('"', ""));
            if let Some(c) = &current {
                sections.entry(c.clone()).or_default();
            }
        } else if let (Some(c), Some((k, v))) = (&current, line.split_once('=')) {
            if !line.starts_with('#') {
                let entry = (k.trim().to_string(), v.trim().to_string());
                sections.get_mut(c).expect("entered above").push(entry);
            }
        }
    }
    sections
}

#[test]
fn the_release_profile_changes_no_code_setting_for_every_crate() {
    let sections = release_sections();
    let release = sections
        .get("profile.release")
        .expect("a [profile.release] section");
    for (key, value) in release {
        assert!(
            !CODE_SETTINGS.contains(&key.as_str()),
            "[profile.release] sets {key} = {value}: that changes the measured crates' code too"
        );
    }
    for wide in [
        "profile.release.package.*",
        "profile.release.build-override",
    ] {
        if let Some(lines) = sections.get(wide) {
            assert!(lines.is_empty(), "[{wide}] sets {lines:?}");
        }
    }
}

#[test]
fn the_release_profile_keeps_measuring_crates_and_hot_dependencies_as_built() {
    let sections = release_sections();
    for name in MEASURING.iter().chain(HOT_DEPENDENCIES) {
        if let Some(lines) = sections.get(&format!("profile.release.package.{name}")) {
            assert!(
                lines.is_empty(),
                "{name} is measured code, its release settings must stay the default: {lines:?}"
            );
        }
    }
}

#[test]
fn the_release_profile_parser_sees_the_crates_it_lowers() {
    // Guards the parser above: the binary and the report are lowered (docs/BUILD.md), so a
    // parser that saw no section would pass the two tests above for nothing.
    let sections = release_sections();
    for name in ["concbench", "concbench-report"] {
        let lines = sections
            .get(&format!("profile.release.package.{name}"))
            .unwrap_or_else(|| panic!("no [profile.release.package.{name}] section"));
        assert!(
            lines.contains(&("opt-level".to_string(), "0".to_string())),
            "{name}: {lines:?}"
        );
    }
}
