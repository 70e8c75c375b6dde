//! Tracepoints as tracefs describes them: an id (the perf event's `config`) and a format that
//! says where each field lies in a raw record. Formats change between kernels (fields move), so
//! offsets are always read from the running kernel's `format` file, never assumed.

use super::Unavailable;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where tracefs is mounted on current systems, then the old debugfs location.
pub const TRACEFS_ROOTS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// One field of a tracepoint's raw record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub offset: usize,
    pub size: usize,
}

/// A tracepoint's id and field layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracepoint {
    pub id: u64,
    pub fields: BTreeMap<String, Field>,
}

impl Tracepoint {
    /// Read `events/<system>/<name>/{id,format}` under the first tracefs root that has it.
    pub fn lookup(system: &str, name: &str) -> Result<Tracepoint, Unavailable> {
        let dir = TRACEFS_ROOTS
            .iter()
            .map(|root| Path::new(root).join("events").join(system).join(name))
            .find(|d| d.join("id").exists())
            .ok_or_else(|| not_found(system, name))?;
        Tracepoint::read(&dir)
    }

    /// Read a tracepoint directory (`id` and `format`).
    pub fn read(dir: &Path) -> Result<Tracepoint, Unavailable> {
        let read = |file: &str| {
            std::fs::read_to_string(dir.join(file)).map_err(|e| {
                Unavailable(format!(
                    "scheduler tracepoints: cannot read {} ({e}); run as root",
                    dir.join(file).display()
                ))
            })
        };
        let id = read("id")?
            .trim()
            .parse()
            .map_err(|_| Unavailable(format!("bad tracepoint id in {}", dir.display())))?;
        Ok(Tracepoint {
            id,
            fields: parse_format(&read("format")?),
        })
    }

    /// The field `name`, or why the record cannot be decoded.
    pub fn field(&self, name: &str) -> Result<Field, Unavailable> {
        self.fields.get(name).copied().ok_or_else(|| {
            Unavailable(format!(
                "scheduler tracepoints: this kernel's format has no field {name}"
            ))
        })
    }
}

fn not_found(system: &str, name: &str) -> Unavailable {
    let mounted = TRACEFS_ROOTS
        .iter()
        .any(|r| PathBuf::from(r).join("events").is_dir());
    Unavailable(if mounted {
        format!("scheduler tracepoints: {system}:{name} is not in tracefs (or not readable: run as root)")
    } else {
        "scheduler tracepoints: tracefs is not mounted (as root: `mount -t tracefs nodev \
         /sys/kernel/tracing`, which `perf` also does)"
            .to_string()
    })
}

/// The fields of a tracefs `format` file: `field:<type> <name>[N];\toffset:O;\tsize:S;...`.
pub fn parse_format(text: &str) -> BTreeMap<String, Field> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some(decl) = line.trim().strip_prefix("field:") else {
            continue;
        };
        let mut parts = decl.split(';').map(str::trim);
        let Some(name) = parts
            .next()
            .and_then(|d| d.split_whitespace().last())
            .map(|n| n.split('[').next().unwrap_or(n))
        else {
            continue;
        };
        let number = |key: &str| {
            parts
                .clone()
                .find_map(|p| p.strip_prefix(key))
                .and_then(|v| v.parse::<usize>().ok())
        };
        if let (Some(offset), Some(size)) = (number("offset:"), number("size:")) {
            out.insert(name.to_string(), Field { offset, size });
        }
    }
    out
}

/// A signed integer field of a raw record (4 or 8 bytes, native endian).
pub fn read_int(raw: &[u8], field: Field) -> Option<i64> {
    let bytes = raw.get(field.offset..field.offset + field.size)?;
    match field.size {
        4 => Some(i32::from_ne_bytes(bytes.try_into().ok()?) as i64),
        8 => Some(i64::from_ne_bytes(bytes.try_into().ok()?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `events/sched/sched_switch/format` of Linux 6.18 (the development VM).
    pub const SCHED_SWITCH_FORMAT: &str =
        include_str!("../../tests/fixtures/tracefs/sched_switch.format");

    #[test]
    fn the_recorded_sched_switch_format_gives_its_pid_fields() {
        let f = parse_format(SCHED_SWITCH_FORMAT);
        assert_eq!(
            f["prev_pid"],
            Field {
                offset: 24,
                size: 4
            }
        );
        assert_eq!(
            f["next_pid"],
            Field {
                offset: 56,
                size: 4
            }
        );
        assert_eq!(
            f["prev_comm"],
            Field {
                offset: 8,
                size: 16
            }
        );
        assert_eq!(f["common_pid"], Field { offset: 4, size: 4 });
    }

    #[test]
    fn integers_are_read_at_their_offsets() {
        let mut raw = vec![0u8; 64];
        raw[24..28].copy_from_slice(&1234i32.to_ne_bytes());
        let f = Field {
            offset: 24,
            size: 4,
        };
        assert_eq!(read_int(&raw, f), Some(1234));
        assert_eq!(read_int(&raw[..20], f), None);
        assert_eq!(read_int(&raw, Field { offset: 0, size: 3 }), None);
    }

    #[test]
    fn an_unreadable_tracepoint_says_why() {
        let dir = std::env::temp_dir().join(format!("concbench-tp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let why = Tracepoint::read(&dir).unwrap_err();
        assert!(
            why.0.starts_with("scheduler tracepoints: cannot read"),
            "{why}"
        );
        std::fs::write(dir.join("id"), "372\n").unwrap();
        std::fs::write(dir.join("format"), SCHED_SWITCH_FORMAT).unwrap();
        let tp = Tracepoint::read(&dir).unwrap();
        assert_eq!(tp.id, 372);
        let missing = tp.field("no_such_field").unwrap_err();
        assert!(missing.0.contains("no field no_such_field"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
        let absent = not_found("sched", "no_such_event");
        assert!(absent.0.starts_with("scheduler tracepoints: "), "{absent}");
    }
}
