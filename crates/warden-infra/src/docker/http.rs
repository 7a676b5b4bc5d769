//! Just enough HTTP/1.1 for the Docker Engine API over its unix socket: one
//! GET per connection (`Connection: close`), and a response parser for the
//! three body framings the engine uses (`Content-Length`, chunked, and
//! read-to-close). Hand-written because a full HTTP client would be a heavy
//! dependency for a handful of GETs on a local socket.

use std::io::{BufRead, Read, Write};

/// The longest status or header line accepted.
const MAX_LINE: u64 = 16 * 1024;
/// The most header lines accepted in one response.
const MAX_HEADERS: usize = 128;

#[derive(Debug, thiserror::Error)]
pub(crate) enum HttpError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Malformed(String),
    #[error("response body larger than {limit} bytes")]
    TooLarge { limit: usize },
}

fn malformed(reason: impl Into<String>) -> HttpError {
    HttpError::Malformed(reason.into())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HttpResponse {
    pub status: u16,
    /// Header names lower-cased, values trimmed, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Writes a GET request for `path` (already validated by the caller).
pub(crate) fn write_get(out: &mut impl Write, path: &str) -> std::io::Result<()> {
    // `Host` is required by HTTP/1.1; the engine ignores its value.
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: docker\r\nUser-Agent: warden\r\n\
         Accept: application/json\r\nConnection: close\r\n\r\n"
    );
    out.write_all(request.as_bytes())?;
    out.flush()
}

/// Reads one response, its body capped at `max_body` bytes. Interim `1xx`
/// responses are skipped.
pub(crate) fn read_response(
    reader: &mut impl BufRead,
    max_body: usize,
) -> Result<HttpResponse, HttpError> {
    loop {
        let status = read_status_line(reader)?;
        let headers = read_headers(reader)?;
        if (100..200).contains(&status) {
            continue;
        }
        let mut response = HttpResponse {
            status,
            headers,
            body: Vec::new(),
        };
        response.body = read_body(reader, &response, max_body)?;
        return Ok(response);
    }
}

/// One line without its CRLF (or bare LF); an error at EOF.
fn read_line(reader: &mut impl BufRead, what: &str) -> Result<String, HttpError> {
    let mut line = Vec::new();
    reader
        .by_ref()
        .take(MAX_LINE)
        .read_until(b'\n', &mut line)?;
    if line.last() != Some(&b'\n') {
        return Err(if line.len() as u64 >= MAX_LINE {
            malformed(format!("{what} longer than {MAX_LINE} bytes"))
        } else {
            malformed(format!("connection closed while reading the {what}"))
        });
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line).map_err(|_| malformed(format!("{what} is not UTF-8")))
}

fn read_status_line(reader: &mut impl BufRead) -> Result<u16, HttpError> {
    let line = read_line(reader, "status line")?;
    // `HTTP/1.1 200 OK`: the reason phrase may be empty or hold spaces.
    if !line.starts_with("HTTP/1.") {
        return Err(malformed(format!("not an HTTP/1.x response: {line:?}")));
    }
    let code = line.split(' ').nth(1).unwrap_or("");
    match code.parse::<u16>() {
        Ok(status) if (100..=999).contains(&status) => Ok(status),
        _ => Err(malformed(format!("bad status code in {line:?}"))),
    }
}

fn read_headers(reader: &mut impl BufRead) -> Result<Vec<(String, String)>, HttpError> {
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader, "header line")?;
        if line.is_empty() {
            return Ok(headers);
        }
        if headers.len() == MAX_HEADERS {
            return Err(malformed(format!("more than {MAX_HEADERS} headers")));
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(malformed(format!("bad header line {line:?}")));
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
}

fn read_body(
    reader: &mut impl BufRead,
    response: &HttpResponse,
    max_body: usize,
) -> Result<Vec<u8>, HttpError> {
    let chunked = response
        .header("transfer-encoding")
        .is_some_and(|te| te.to_ascii_lowercase().contains("chunked"));
    if chunked {
        return read_chunked(reader, max_body);
    }
    if response.status == 204 || response.status == 304 {
        return Ok(Vec::new());
    }
    if let Some(length) = response.header("content-length") {
        let length: usize = length
            .parse()
            .map_err(|_| malformed(format!("bad Content-Length {length:?}")))?;
        if length > max_body {
            return Err(HttpError::TooLarge { limit: max_body });
        }
        let mut body = vec![0; length];
        reader
            .read_exact(&mut body)
            .map_err(|err| match err.kind() {
                std::io::ErrorKind::UnexpectedEof => {
                    malformed(format!("connection closed before {length} body bytes"))
                }
                _ => HttpError::Io(err),
            })?;
        return Ok(body);
    }
    // Neither framing: the body runs until the server closes the connection.
    let mut body = Vec::new();
    reader
        .by_ref()
        .take(max_body as u64 + 1)
        .read_to_end(&mut body)?;
    if body.len() > max_body {
        return Err(HttpError::TooLarge { limit: max_body });
    }
    Ok(body)
}

fn read_chunked(reader: &mut impl BufRead, max_body: usize) -> Result<Vec<u8>, HttpError> {
    let mut body = Vec::new();
    loop {
        let line = read_line(reader, "chunk size")?;
        // `1a3f;name=value`: extensions after `;` carry nothing we use.
        let size_text = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| malformed(format!("bad chunk size {line:?}")))?;
        if size == 0 {
            // Trailer fields, then the empty line that ends the message.
            while !read_line(reader, "trailer")?.is_empty() {}
            return Ok(body);
        }
        if body.len().saturating_add(size) > max_body {
            return Err(HttpError::TooLarge { limit: max_body });
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader
            .read_exact(&mut body[start..])
            .map_err(|err| match err.kind() {
                std::io::ErrorKind::UnexpectedEof => malformed("connection closed inside a chunk"),
                _ => HttpError::Io(err),
            })?;
        if !read_line(reader, "chunk end")?.is_empty() {
            return Err(malformed("chunk not followed by CRLF"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &[u8]) -> Result<HttpResponse, HttpError> {
        read_response(&mut std::io::BufReader::new(raw), 1024)
    }

    #[test]
    fn content_length_body() {
        let r = parse(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}trailing").unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.header("CONTENT-TYPE"), Some("application/json"));
        assert_eq!(r.body, b"{}");
    }

    #[test]
    fn chunked_body_with_extensions_and_trailers() {
        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
            3;ext=1\r\n[1,\r\nA\r\n2,3,4,5,6]\r\n0\r\nX-Trailer: y\r\n\r\n";
        assert_eq!(parse(raw).unwrap().body, b"[1,2,3,4,5,6]");
    }

    /// A reader that returns one byte per read: every possible split point.
    struct OneByteAtATime<'a>(&'a [u8]);

    impl Read for OneByteAtATime<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buf.first_mut()) {
                (Some((byte, rest)), Some(slot)) => {
                    *slot = *byte;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn chunked_body_read_one_byte_at_a_time() {
        let raw = b"HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n\
            5\r\nhello\r\n1\r\n \r\nC\r\nworld, again\r\n0\r\n\r\n";
        let mut reader = std::io::BufReader::new(OneByteAtATime(raw));
        let r = read_response(&mut reader, 1024).unwrap();
        assert_eq!(r.body, b"hello world, again");
    }

    #[test]
    fn body_until_close_and_no_body_statuses() {
        let r = parse(b"HTTP/1.0 200 OK\r\n\r\nOK").unwrap();
        assert_eq!(r.body, b"OK");
        let r = parse(b"HTTP/1.1 204 No Content\r\n\r\n").unwrap();
        assert!(r.body.is_empty());
    }

    #[test]
    fn interim_responses_are_skipped() {
        let r = parse(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
        )
        .unwrap();
        assert_eq!(r.status, 404);
    }

    #[test]
    fn bare_lf_line_endings_are_accepted() {
        let r = parse(b"HTTP/1.1 200 OK\nContent-Length: 1\n\nx").unwrap();
        assert_eq!(r.body, b"x");
    }

    #[test]
    fn malformed_responses_are_errors() {
        let cases: [(&[u8], &str); 8] = [
            (b"", "connection closed while reading the status line"),
            (b"SSH-2.0-OpenSSH\r\n", "not an HTTP/1.x response"),
            (b"HTTP/1.1 abc OK\r\n", "bad status code"),
            (b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "bad header line"),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
                "before 10 body bytes",
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
                "bad Content-Length",
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                "bad chunk size",
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
                "chunk not followed by CRLF",
            ),
        ];
        for (raw, expected) in cases {
            let err = parse(raw).unwrap_err().to_string();
            assert!(
                err.contains(expected),
                "{:?}: {err}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn bodies_are_capped() {
        let err = parse(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n").unwrap_err();
        assert!(matches!(err, HttpError::TooLarge { limit: 1024 }), "{err}");
        let mut raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for _ in 0..3 {
            raw.extend_from_slice(b"200\r\n");
            raw.extend_from_slice(&[b'x'; 0x200]);
            raw.extend_from_slice(b"\r\n");
        }
        assert!(matches!(parse(&raw), Err(HttpError::TooLarge { .. })));
        let mut raw = b"HTTP/1.1 200 OK\r\n\r\n".to_vec();
        raw.extend_from_slice(&[b'x'; 2000]);
        assert!(matches!(parse(&raw), Err(HttpError::TooLarge { .. })));
    }

    #[test]
    fn over_long_lines_are_refused() {
        let mut raw = b"HTTP/1.1 200 OK\r\nX: ".to_vec();
        raw.extend_from_slice(&vec![b'a'; 20_000]);
        let err = parse(&raw).unwrap_err().to_string();
        assert!(err.contains("longer than"), "{err}");
    }

    #[test]
    fn request_format() {
        let mut out = Vec::new();
        write_get(&mut out, "/containers/json?all=1").unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("GET /containers/json?all=1 HTTP/1.1\r\nHost: docker\r\n"));
        assert!(text.ends_with("Connection: close\r\n\r\n"));
    }
}
