//! Where a history lives: an SQLite file (the embedded default) or a PostgreSQL database named
//! by a `postgresql://` URL (`--db`, `CONCBENCH_DB`).

use std::fmt;
use std::path::{Path, PathBuf};

/// A history store's address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// An SQLite database file (created on first write).
    File(PathBuf),
    /// A PostgreSQL connection URL (`postgresql://user@host:port/db?...`).
    Postgres(String),
}

/// The URL schemes libpq accepts for a connection URI.
const POSTGRES_SCHEMES: [&str; 2] = ["postgresql://", "postgres://"];

impl Location {
    /// A PostgreSQL URL when `text` starts with `postgresql://` or `postgres://`, else a file.
    pub fn parse(text: &str) -> Location {
        if POSTGRES_SCHEMES.iter().any(|s| text.starts_with(s)) {
            Location::Postgres(text.to_string())
        } else {
            Location::File(PathBuf::from(text))
        }
    }

    /// The file, for an SQLite store.
    pub fn as_file(&self) -> Option<&Path> {
        match self {
            Location::File(p) => Some(p),
            Location::Postgres(_) => None,
        }
    }

    /// Printable, with a URL's password replaced by `***` (messages end up in CI logs).
    /// Named like `Path::display` so code that printed the file path prints any location.
    pub fn display(&self) -> &Self {
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File(p) => write!(f, "{}", p.display()),
            Location::Postgres(url) => f.write_str(&redact_password(url)),
        }
    }
}

/// `scheme://user:secret@host/...` -> `scheme://user:***@host/...`; a `password=` query
/// parameter is hidden the same way.
fn redact_password(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some(("password", _)) => "password=***".to_string(),
                    _ => kv.to_string(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_postgres_and_everything_else_is_a_file() {
        assert_eq!(
            Location::parse("postgresql://u@h/db"),
            Location::Postgres("postgresql://u@h/db".into())
        );
        assert!(matches!(
            Location::parse("postgres://h/db"),
            Location::Postgres(_)
        ));
        assert_eq!(
            Location::parse("runs/history.sqlite"),
            Location::File("runs/history.sqlite".into())
        );
    }

    #[test]
    fn passwords_never_print() {
        let shown = Location::parse("postgresql://ann:s3cret@db.example:5433/runs?sslmode=disable")
            .to_string();
        assert_eq!(
            shown,
            "postgresql://ann:***@db.example:5433/runs?sslmode=disable"
        );
        let shown = Location::parse("postgresql://db/runs?user=ann&password=s3cret").to_string();
        assert_eq!(shown, "postgresql://db/runs?user=ann&password=***");
        assert_eq!(
            Location::parse("postgresql://ann@db/runs").to_string(),
            "postgresql://ann@db/runs"
        );
    }
}
