//! Where the load goes: `http://HOST[:PORT]/PATH` (port 80 when none is given, as in any HTTP
//! client — and the caller tells the user so), loopback only unless the user says otherwise.
//!
//! A host name other than `localhost` is refused before it is resolved when remote targets are
//! not allowed: resolving it could itself send a DNS query off the machine.

use concbench_core::UsageError;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

/// A parsed target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub addr: SocketAddr,
    /// `HOST[:PORT]` as given, for the HTTP `Host` header.
    pub host_header: String,
    /// The path requested (`/` by default).
    pub path: String,
    /// The URL named no port, so HTTP's default, 80, was taken.
    pub port_assumed: bool,
}

/// HTTP's port, taken when a URL names none.
pub const DEFAULT_PORT: u16 = 80;

/// Parse `url` and check it is loopback unless `allow_remote`.
pub fn parse(url: &str, allow_remote: bool) -> anyhow::Result<Target> {
    let rest = url.strip_prefix("http://").ok_or_else(|| {
        UsageError::new(format!(
            "URL '{url}' must start with http:// (e.g. http://127.0.0.1:8080/)"
        ))
    })?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = split_host_port(authority).ok_or_else(|| {
        UsageError::new(format!(
            "URL '{url}' needs a host and a numeric port (or none, for 80), e.g. \
             http://127.0.0.1:8080/"
        ))
    })?;
    let addr = resolve(host, port.unwrap_or(DEFAULT_PORT), allow_remote)?;
    if !addr.ip().is_loopback() && !allow_remote {
        return Err(refused(url).into());
    }
    Ok(Target {
        addr,
        host_header: authority.to_string(),
        path: path.to_string(),
        port_assumed: port.is_none(),
    })
}

/// `HOST:PORT`, `[V6]:PORT`, or either without the port (`None`). `None` overall when the
/// host is empty or the port is not a number.
fn split_host_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, rest) = v6.split_once(']')?;
        match rest {
            "" => (h, None),
            _ => (h, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return None;
    }
    match port {
        Some(p) => Some((host, Some(p.parse().ok()?))),
        None => Some((host, None)),
    }
}

fn resolve(host: &str, port: u16, allow_remote: bool) -> anyhow::Result<SocketAddr> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, port));
    }
    if host != "localhost" && !allow_remote {
        return Err(refused(host).into());
    }
    (host, port)
        .to_socket_addrs()
        .map_err(|e| UsageError::new(format!("cannot resolve '{host}': {e}")))?
        .next()
        .ok_or_else(|| UsageError::new(format!("'{host}' resolves to no address")).into())
}

fn refused(what: &str) -> UsageError {
    UsageError::new(format!(
        "refusing to send load to '{what}': it is not a loopback address. Test servers on this \
         machine (127.0.0.1, [::1], localhost), or pass --allow-remote if you own the target"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_targets_parse() {
        let t = parse("http://127.0.0.1:8080/x", false).unwrap();
        assert_eq!(t.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(
            (t.host_header.as_str(), t.path.as_str()),
            ("127.0.0.1:8080", "/x")
        );
        assert_eq!(parse("http://[::1]:80", false).unwrap().path, "/");
        assert!(!parse("http://[::1]:80", false).unwrap().port_assumed);
        assert!(parse("http://localhost:9/", false)
            .unwrap()
            .addr
            .ip()
            .is_loopback());
    }

    #[test]
    fn remote_targets_are_refused_without_the_flag() {
        for url in [
            "http://10.0.0.1:80/",
            "http://example.org:80/",
            "http://8.8.8.8:53/",
        ] {
            let err = parse(url, false).unwrap_err();
            assert!(concbench_core::error::is_usage_error(&err), "{url}");
            assert!(err.to_string().contains("--allow-remote"), "{url}");
        }
        // An IP literal needs no resolution, so allowing it sends nothing anywhere.
        assert!(parse("http://10.0.0.1:80/", true).is_ok());
    }

    #[test]
    fn a_url_without_a_port_takes_port_80_and_says_so() {
        for (url, addr) in [
            ("http://127.0.0.1/x", "127.0.0.1:80"),
            ("http://127.0.0.1", "127.0.0.1:80"),
            ("http://[::1]/", "[::1]:80"),
        ] {
            let t = parse(url, false).unwrap();
            assert_eq!(t.addr, addr.parse().unwrap(), "{url}");
            assert!(t.port_assumed, "{url}");
        }
        assert!(!parse("http://127.0.0.1:8080/", false).unwrap().port_assumed);
    }

    #[test]
    fn malformed_urls_are_usage_errors() {
        for url in [
            "127.0.0.1:80",
            "http://127.0.0.1:x/",
            "http://:80/",
            "http:///",
            "http://[::1]x/",
        ] {
            assert!(concbench_core::error::is_usage_error(
                &parse(url, false).unwrap_err()
            ));
        }
    }
}
