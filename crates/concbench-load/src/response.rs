//! Framing responses as bytes arrive, without allocating: HTTP/1.1 (status line, headers,
//! `Content-Length` body) or Stevens's fixed N bytes.
//!
//! Headers are located with memchr's `memmem` in the bytes just read; only a header split
//! across two reads is copied (into the connection's small carry buffer).

/// Where a connection is in the response it is reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Reading an HTTP header.
    Header,
    /// Skipping this many body bytes.
    Body(usize),
}

/// What a complete HTTP header said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub status_ok: bool,
    pub body: usize,
    pub close: bool,
}

/// Why a response could not be framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    NoLength,
    Chunked,
    TooLong,
    BadStatus,
}

/// Largest header accepted (nginx sends ~250 bytes).
pub const MAX_HEADER: usize = 16 * 1024;

/// Parse a complete header (`head` ends with `\r\n\r\n`).
pub fn parse_head(head: &[u8]) -> Result<Head, Malformed> {
    let status = head.get(9..12).ok_or(Malformed::BadStatus)?;
    if !head.starts_with(b"HTTP/1.") || !status.iter().all(u8::is_ascii_digit) {
        return Err(Malformed::BadStatus);
    }
    let mut body = None;
    let mut close = false;
    for line in head.split(|&b| b == b'\n').skip(1) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(v) = value_of(line, b"content-length:") {
            body = std::str::from_utf8(v)
                .ok()
                .and_then(|s| s.trim().parse().ok());
        } else if let Some(v) = value_of(line, b"transfer-encoding:") {
            if contains_ci(v, b"chunked") {
                return Err(Malformed::Chunked);
            }
        } else if let Some(v) = value_of(line, b"connection:") {
            close = contains_ci(v, b"close");
        }
    }
    Ok(Head {
        status_ok: status[0] == b'2',
        body: body.ok_or(Malformed::NoLength)?,
        close,
    })
}

fn value_of<'a>(line: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    (line.len() >= name.len() && line[..name.len()].eq_ignore_ascii_case(name))
        .then(|| &line[name.len()..])
}

fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// One event while consuming bytes: a response ended (with its header, for HTTP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `used` bytes consumed; the response is complete.
    Complete { used: usize, head: Option<Head> },
    /// All bytes consumed; the response continues.
    More,
}

/// Consume bytes of the current response from `data`. `carry` holds a header split across
/// reads. On `Complete`, the caller starts the next response's framing.
pub fn consume(
    framing: &mut Framing,
    carry: &mut Vec<u8>,
    head_seen: &mut Option<Head>,
    data: &[u8],
) -> Result<Step, Malformed> {
    match *framing {
        Framing::Body(remaining) => {
            let take = remaining.min(data.len());
            *framing = Framing::Body(remaining - take);
            if remaining == take {
                Ok(Step::Complete {
                    used: take,
                    head: head_seen.take(),
                })
            } else {
                Ok(Step::More)
            }
        }
        Framing::Header => {
            let (head, used) = match header_end(carry, data)? {
                None => return Ok(Step::More),
                Some(found) => found,
            };
            *head_seen = Some(head);
            carry.clear();
            *framing = Framing::Body(head.body);
            if head.body == 0 {
                return Ok(Step::Complete {
                    used,
                    head: head_seen.take(),
                });
            }
            match consume(framing, carry, head_seen, &data[used..])? {
                Step::Complete { used: more, head } => Ok(Step::Complete {
                    used: used + more,
                    head,
                }),
                Step::More => Ok(Step::More),
            }
        }
    }
}

/// The end of a header, searched with a finder built once: `memmem::find` builds one per call,
/// which showed as 0.6% of the load generator's CPU time (perf, 2026-11-28).
fn terminator() -> &'static memchr::memmem::Finder<'static> {
    static FINDER: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    FINDER.get_or_init(|| memchr::memmem::Finder::new(b"\r\n\r\n"))
}

/// Find the end of the header in `carry` + `data`; returns the parsed header and how many
/// bytes of `data` it took. Without the end yet, `data` is appended to `carry`.
fn header_end(carry: &mut Vec<u8>, data: &[u8]) -> Result<Option<(Head, usize)>, Malformed> {
    if carry.is_empty() {
        if let Some(i) = terminator().find(data) {
            return Ok(Some((parse_head(&data[..i + 4])?, i + 4)));
        }
    }
    let before = carry.len();
    carry.extend_from_slice(data);
    // The terminator may straddle the old and new bytes: search from 3 bytes back.
    let from = before.saturating_sub(3);
    match terminator().find(&carry[from..]) {
        Some(i) => {
            let end = from + i + 4;
            let head = parse_head(&carry[..end])?;
            Ok(Some((head, end - before)))
        }
        None if carry.len() > MAX_HEADER => Err(Malformed::TooLong),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESP: &[u8] = b"HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 5\r\n\r\nhello";

    fn feed_all(chunks: &[&[u8]]) -> Vec<Head> {
        let (mut f, mut carry, mut seen) = (Framing::Header, Vec::new(), None);
        let mut done = Vec::new();
        for c in chunks {
            let mut d: &[u8] = c;
            while !d.is_empty() {
                match consume(&mut f, &mut carry, &mut seen, d).unwrap() {
                    Step::Complete { used, head } => {
                        done.push(head.unwrap());
                        f = Framing::Header;
                        d = &d[used..];
                    }
                    Step::More => break,
                }
            }
        }
        done
    }

    #[test]
    fn frames_pipelined_and_split_responses() {
        let two = [RESP, RESP].concat();
        assert_eq!(feed_all(&[&two]).len(), 2);
        for split in 1..RESP.len() {
            let (a, b) = RESP.split_at(split);
            let heads = feed_all(&[a, b]);
            assert_eq!(heads.len(), 1, "split at {split}");
            assert_eq!(heads[0].body, 5);
        }
    }

    #[test]
    fn reads_status_length_and_close() {
        let h = parse_head(b"HTTP/1.1 503 No\r\ncontent-LENGTH: 7\r\nConnection: close\r\n\r\n")
            .unwrap();
        assert_eq!(
            h,
            Head {
                status_ok: false,
                body: 7,
                close: true
            }
        );
        assert_eq!(
            parse_head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"),
            Err(Malformed::Chunked)
        );
        assert_eq!(
            parse_head(b"HTTP/1.1 200 OK\r\n\r\n"),
            Err(Malformed::NoLength)
        );
        assert_eq!(parse_head(b"garbage\r\n\r\n"), Err(Malformed::BadStatus));
    }
}
