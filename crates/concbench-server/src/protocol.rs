//! The one wire protocol every design speaks, so every design sends the same response bytes.
//!
//! Two request forms share a connection parser (the first byte tells them apart):
//! * minimal HTTP/1.1 with keep-alive: `GET / HTTP/1.1` answers [`DEFAULT_BODY`];
//!   `GET /N` answers N bytes; `Connection: close` (or HTTP/1.0) closes after the response;
//! * Stevens's protocol (UNP vol. 1, ch. 30): the line `N\n` answers exactly N bytes, no header.
//!
//! `GET /crash` and the line `crash` make the worker that reads them fault for real (SIGSEGV),
//! when the server was started with crashes allowed (the crash scenario); otherwise they are
//! bad requests.

use std::io::Write;

/// The body of `GET /`: a tiny response, like scenario A's.
pub const DEFAULT_BODY: &[u8] = b"Hello, world\n";
/// The largest body a request may ask for (Stevens's clients ask for at most 16 KiB).
pub const MAX_BODY: usize = 1 << 20;
/// Requests longer than this without their end are refused (nothing here sends big headers).
pub const MAX_REQUEST: usize = 8192;

/// Body bytes of sized responses; a fixed pattern so nothing is generated per request.
static PATTERN: [u8; 16384] = [b'x'; 16384];

/// One parsed request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// HTTP: answer `body` bytes (`None` = [`DEFAULT_BODY`]); `close` after the response.
    Http { body: Option<usize>, close: bool },
    /// Stevens: answer exactly `bytes` bytes, no header.
    Stevens { bytes: usize },
    /// The crash request (only honoured when crashes are allowed).
    Crash,
}

impl Request {
    /// Whether the server closes the connection after answering.
    pub fn closes(&self) -> bool {
        matches!(self, Request::Http { close: true, .. })
    }
}

/// The result of looking for one request at the start of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parse {
    /// More bytes are needed.
    Incomplete,
    /// A request and how many bytes it took.
    Done(Request, usize),
    /// Not this protocol: the connection should be closed.
    Bad(&'static str),
}

/// Parse the first request in `buf`.
pub fn parse(buf: &[u8]) -> Parse {
    match buf.first() {
        None => Parse::Incomplete,
        Some(b) if b.is_ascii_uppercase() => parse_http(buf),
        Some(_) => parse_stevens(buf),
    }
}

fn parse_http(buf: &[u8]) -> Parse {
    let Some(end) = memchr::memmem::find(buf, b"\r\n\r\n") else {
        return too_long_or_incomplete(buf);
    };
    let head = &buf[..end];
    let line_end = memchr::memchr(b'\r', head).unwrap_or(head.len());
    let mut parts = head[..line_end].split(|&b| b == b' ');
    let (Some(method), Some(path), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Parse::Bad("malformed HTTP request line");
    };
    if method != b"GET" {
        return Parse::Bad("only GET is served");
    }
    let close = if version == b"HTTP/1.0" {
        !header_has(&head[line_end..], b"connection:", b"keep-alive")
    } else {
        header_has(&head[line_end..], b"connection:", b"close")
    };
    let request = match path {
        b"/" => Request::Http { body: None, close },
        b"/crash" => Request::Crash,
        p => match parse_size(&p[1..]) {
            Some(n) if p[0] == b'/' => Request::Http {
                body: Some(n),
                close,
            },
            _ => return Parse::Bad("unknown path (serve /, /N or /crash)"),
        },
    };
    Parse::Done(request, end + 4)
}

fn parse_stevens(buf: &[u8]) -> Parse {
    let Some(nl) = memchr::memchr(b'\n', buf) else {
        return if buf.len() > 32 {
            Parse::Bad("Stevens request line too long")
        } else {
            Parse::Incomplete
        };
    };
    let line = buf[..nl].strip_suffix(b"\r").unwrap_or(&buf[..nl]);
    if line == b"crash" {
        return Parse::Done(Request::Crash, nl + 1);
    }
    match parse_size(line) {
        Some(bytes) => Parse::Done(Request::Stevens { bytes }, nl + 1),
        None => Parse::Bad("Stevens request is not a number of bytes"),
    }
}

fn too_long_or_incomplete(buf: &[u8]) -> Parse {
    if buf.len() >= MAX_REQUEST {
        Parse::Bad("request too long")
    } else {
        Parse::Incomplete
    }
}

/// Decimal digits to a size no larger than [`MAX_BODY`].
fn parse_size(digits: &[u8]) -> Option<usize> {
    if digits.is_empty() || digits.len() > 7 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0usize, |n, d| n * 10 + usize::from(d - b'0'));
    (n <= MAX_BODY).then_some(n)
}

/// Whether a header named `name` (lowercase, with the colon) contains `token` (lowercase).
fn header_has(headers: &[u8], name: &[u8], token: &[u8]) -> bool {
    headers
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| l.len() >= name.len() && l[..name.len()].eq_ignore_ascii_case(name))
        .any(|l| {
            l[name.len()..]
                .windows(token.len())
                .any(|w| w.eq_ignore_ascii_case(token))
        })
}

/// Append the response to `req` to `out` (a buffer reused across requests: no allocation once
/// it has grown to the largest response). [`Request::Crash`] has no response.
pub fn respond(req: Request, out: &mut Vec<u8>) {
    match req {
        Request::Http { body, close } => {
            let len = body.unwrap_or(DEFAULT_BODY.len());
            // Writing into a Vec cannot fail.
            let _ = write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nContent-Type: text/plain\r\n{}\r\n",
                if close { "Connection: close\r\n" } else { "" }
            );
            match body {
                None => out.extend_from_slice(DEFAULT_BODY),
                Some(n) => extend_pattern(out, n),
            }
        }
        Request::Stevens { bytes } => extend_pattern(out, bytes),
        Request::Crash => {}
    }
}

fn extend_pattern(out: &mut Vec<u8>, mut n: usize) {
    while n > 0 {
        let k = n.min(PATTERN.len());
        out.extend_from_slice(&PATTERN[..k]);
        n -= k;
    }
}

/// An input buffer of one connection: bytes read but not yet parsed.
pub struct InBuf {
    buf: Box<[u8]>,
    start: usize,
    end: usize,
}

impl Default for InBuf {
    fn default() -> Self {
        Self::new()
    }
}

impl InBuf {
    pub fn new() -> Self {
        Self {
            buf: vec![0; MAX_REQUEST].into_boxed_slice(),
            start: 0,
            end: 0,
        }
    }

    /// Where the next read goes (moves unparsed bytes to the front first).
    pub fn spare(&mut self) -> &mut [u8] {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        &mut self.buf[self.end..]
    }

    /// Record that `n` bytes were read into [`InBuf::spare`].
    pub fn filled(&mut self, n: usize) {
        self.end += n;
    }

    /// The next complete request, `Ok(None)` when more bytes are needed.
    pub fn next_request(&mut self) -> Result<Option<Request>, &'static str> {
        match parse(&self.buf[self.start..self.end]) {
            Parse::Incomplete if self.end - self.start >= self.buf.len() => Err("request too long"),
            Parse::Incomplete => Ok(None),
            Parse::Done(req, used) => {
                self.start += used;
                Ok(Some(req))
            }
            Parse::Bad(why) => Err(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(req: Request) -> Vec<u8> {
        let mut out = Vec::new();
        respond(req, &mut out);
        out
    }

    #[test]
    fn http_default_keepalive_and_close() {
        let p = parse(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET");
        assert_eq!(
            p,
            Parse::Done(
                Request::Http {
                    body: None,
                    close: false
                },
                27
            )
        );
        let p = parse(b"GET /4000 HTTP/1.1\r\nConnection: Close\r\n\r\n");
        assert!(matches!(
            p,
            Parse::Done(
                Request::Http {
                    body: Some(4000),
                    close: true
                },
                _
            )
        ));
        assert!(matches!(
            parse(b"GET / HTTP/1.0\r\n\r\n"),
            Parse::Done(Request::Http { close: true, .. }, _)
        ));
        assert_eq!(parse(b"GET / HTTP/1.1\r\nHost"), Parse::Incomplete);
        assert!(matches!(parse(b"POST / HTTP/1.1\r\n\r\n"), Parse::Bad(_)));
    }

    #[test]
    fn stevens_lines() {
        assert_eq!(
            parse(b"4000\n"),
            Parse::Done(Request::Stevens { bytes: 4000 }, 5)
        );
        assert_eq!(
            parse(b"12\r\n"),
            Parse::Done(Request::Stevens { bytes: 12 }, 4)
        );
        assert_eq!(parse(b"40"), Parse::Incomplete);
        assert_eq!(parse(b"crash\n"), Parse::Done(Request::Crash, 6));
        assert!(matches!(parse(b"99999999\n"), Parse::Bad(_)));
    }

    #[test]
    fn responses_have_the_promised_bytes() {
        let r = response(Request::Http {
            body: None,
            close: false,
        });
        assert_eq!(
            r,
            b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\nContent-Type: text/plain\r\n\r\nHello, world\n"
        );
        assert_eq!(response(Request::Stevens { bytes: 40000 }).len(), 40000);
        let r = response(Request::Http {
            body: Some(5),
            close: true,
        });
        assert!(r.ends_with(b"Connection: close\r\n\r\nxxxxx"));
    }

    #[test]
    fn inbuf_yields_pipelined_requests_and_keeps_partial_ones() {
        let mut b = InBuf::new();
        let data = b"1\n2\n3";
        b.spare()[..data.len()].copy_from_slice(data);
        b.filled(data.len());
        assert_eq!(b.next_request(), Ok(Some(Request::Stevens { bytes: 1 })));
        assert_eq!(b.next_request(), Ok(Some(Request::Stevens { bytes: 2 })));
        assert_eq!(b.next_request(), Ok(None));
        b.spare()[..1].copy_from_slice(b"\n");
        b.filled(1);
        assert_eq!(b.next_request(), Ok(Some(Request::Stevens { bytes: 3 })));
    }
}
