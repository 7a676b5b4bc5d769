//! The server's HTTP/1.1, by hand on std threads: one thread per
//! connection, one request per connection (`Connection: close`). By hand
//! because the misbehaviours need it (a body cut mid-chunk, no framing at
//! all, a head held back); on threads because a provider under test may
//! block its runtime's workers, and the model must never wait for them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Wire;
use super::recorded::Recorded;
use super::reply::{Framing, Reply};

/// How long a `then_forever` reply goes on if the client never hangs up.
const FOREVER_LIMIT: Duration = Duration::from_secs(60);

/// Why writing a reply stopped early.
pub(super) enum WriteStop {
    /// The client closed the connection while a `then_forever` reply went on.
    HungUp,
    Failed,
}

impl From<std::io::Error> for WriteStop {
    fn from(_: std::io::Error) -> Self {
        WriteStop::Failed
    }
}

pub(super) fn read_request(connection: &TcpStream, wire: Wire) -> Option<Recorded> {
    let mut reader = BufReader::new(connection.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut words = line.split_whitespace();
    let method = words.next()?.to_string();
    let target = words.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    Some(Recorded {
        wire,
        method,
        target,
        headers,
        raw_body,
        body,
    })
}

fn write_piece(connection: &mut TcpStream, framing: Framing, piece: &[u8]) -> std::io::Result<()> {
    match framing {
        Framing::Chunked => {
            connection.write_all(format!("{:x}\r\n", piece.len()).as_bytes())?;
            connection.write_all(piece)?;
            connection.write_all(b"\r\n")?;
        }
        Framing::Close | Framing::Length => connection.write_all(piece)?,
    }
    connection.flush()
}

pub(super) fn write_reply(mut connection: TcpStream, reply: &Reply) -> Result<(), WriteStop> {
    if let Some(delay) = reply.delay_head {
        std::thread::sleep(delay);
    }
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    // With a length, every piece is made up front (made pieces included).
    let made: Option<Vec<Vec<u8>>> = match reply.framing {
        Framing::Chunked => {
            head.push_str("Transfer-Encoding: chunked\r\n");
            None
        }
        Framing::Length => {
            let pieces: Vec<Vec<u8>> = reply.pieces.iter().map(|p| p.bytes()).collect();
            let length: usize = pieces.iter().map(Vec::len).sum();
            head.push_str(&format!("Content-Length: {length}\r\n"));
            Some(pieces)
        }
        Framing::Close => None,
    };
    head.push_str("Connection: close\r\n\r\n");
    connection.write_all(head.as_bytes())?;
    connection.flush()?;
    for (i, piece) in reply.pieces.iter().enumerate() {
        if !piece.wait.is_zero() {
            std::thread::sleep(piece.wait);
        }
        let bytes = match &made {
            Some(made) => made[i].clone(),
            None => piece.bytes(),
        };
        if bytes.is_empty() {
            continue;
        }
        write_piece(&mut connection, reply.framing, &bytes)?;
        if !reply.pause.is_zero() {
            std::thread::sleep(reply.pause);
        }
    }
    if let Some((piece, every)) = &reply.forever {
        let started = Instant::now();
        while started.elapsed() < FOREVER_LIMIT {
            if write_piece(&mut connection, reply.framing, piece).is_err() {
                return Err(WriteStop::HungUp);
            }
            std::thread::sleep(*every);
        }
    }
    if let Some(stall) = reply.stall {
        std::thread::sleep(stall);
        return Ok(()); // dropped without ending the body properly
    }
    if reply.framing == Framing::Chunked {
        connection.write_all(b"0\r\n\r\n")?;
    }
    connection.flush()?;
    connection.shutdown(Shutdown::Write)?;
    Ok(())
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}
