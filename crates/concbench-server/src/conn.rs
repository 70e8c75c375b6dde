//! One connection served by a blocking unit (process or thread): read, answer every complete
//! request, write, until the client closes. Stevens's `web_child`, with the shared protocol.

use crate::protocol::{respond, InBuf, Request};
use crate::{crash, Handler};
use std::io::{self, Read, Write};
use std::net::TcpStream;

/// Buffers a blocking unit reuses from one connection to the next (no allocation per request).
#[derive(Default)]
pub struct Buffers {
    pub input: InBuf,
    pub output: Vec<u8>,
}

/// Serve `stream` until the client closes it or sends something that is not the protocol.
pub fn serve(stream: &mut TcpStream, handler: &Handler, bufs: &mut Buffers) -> io::Result<()> {
    bufs.input = InBuf::new();
    loop {
        let n = match stream.read(bufs.input.spare()) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        bufs.input.filled(n);
        bufs.output.clear();
        let mut close = false;
        loop {
            match bufs.input.next_request() {
                Ok(Some(req)) => {
                    answer(req, handler, &mut bufs.output);
                    if req.closes() {
                        close = true;
                        break;
                    }
                }
                Ok(None) => break,
                Err(why) => return Err(io::Error::new(io::ErrorKind::InvalidData, why)),
            }
        }
        stream.write_all(&bufs.output)?;
        if close {
            return Ok(());
        }
    }
}

/// Append the answer to one request, working and blocking first if the handler says so.
fn answer(req: Request, handler: &Handler, out: &mut Vec<u8>) {
    if req == Request::Crash {
        crash::on_crash_request(handler);
        return;
    }
    crate::work::burn(handler.cpu);
    if let Some(d) = handler.blocking {
        std::thread::sleep(d);
    }
    respond(req, out);
}
