//! DockerClient against a fake engine: a UnixListener in a temporary
//! directory that answers with scripted bytes, written in pieces split at
//! awkward places (inside a chunk-size line, between CR and LF) to prove the
//! parser does not depend on how reads happen to fall.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use warden_infra::{DockerClient, DockerError};

/// Serves one connection: reads the request head, then writes `pieces` with a
/// pause between them. Returns the request line it received.
fn fake_engine(pieces: Vec<Vec<u8>>) -> (tempfile::TempDir, PathBuf, JoinHandle<String>) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("docker.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(&stream);
        let mut request_line = String::new();
        reader.read_line(&mut request_line).unwrap();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        let mut writer = &stream;
        for piece in pieces {
            writer.write_all(&piece).unwrap();
            writer.flush().unwrap();
            std::thread::sleep(Duration::from_millis(15));
        }
        request_line
    });
    (dir, socket, server)
}

fn pieces(parts: &[&str]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.as_bytes().to_vec()).collect()
}

#[test]
fn chunked_response_split_at_odd_places() {
    let body = r#"[{"Id":"0123456789abcdef","Names":["/web"],"Image":"nginx","State":"running","Status":"Up 1 minute"}]"#;
    let (first, second) = body.split_at(40);
    let raw = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{first}\r\n{:x}\r\n{second}\r\n0\r\n\r\n",
        first.len(),
        second.len()
    );
    // Split inside the status line, inside a header, inside the first
    // chunk-size line, between a chunk's CR and LF, inside the second chunk's
    // data, and inside the final `0\r\n\r\n`.
    let first_size = raw.find("\r\n\r\n").unwrap() + 4;
    let first_end = raw.find(first).unwrap() + first.len();
    let second_start = raw.find(second).unwrap();
    let cuts = [
        5,
        30,
        first_size + 1,
        first_end + 1,
        second_start + 7,
        raw.len() - 3,
    ];
    assert_eq!(&raw[first_end..first_end + 2], "\r\n");
    let mut parts = Vec::new();
    let mut start = 0;
    for cut in cuts {
        parts.push(raw.as_bytes()[start..cut].to_vec());
        start = cut;
    }
    parts.push(raw.as_bytes()[start..].to_vec());
    let (_dir, socket, server) = fake_engine(parts);

    let containers = DockerClient::new(&socket).list_containers().unwrap();
    assert_eq!(
        server.join().unwrap(),
        "GET /containers/json?all=1 HTTP/1.1\r\n"
    );
    assert_eq!(containers.len(), 1);
    assert_eq!(containers[0].name(), Some("web"));
    assert_eq!(containers[0].state, "running");
}

#[test]
fn content_length_response() {
    let body = r#"{"Version":"27.0.1","ApiVersion":"1.46","Os":"linux","Arch":"arm64","KernelVersion":"6.6"}"#;
    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
    let (_dir, socket, server) = fake_engine(pieces(&[&head, &body[..10], &body[10..]]));
    let version = DockerClient::new(&socket).version().unwrap();
    assert_eq!(server.join().unwrap(), "GET /version HTTP/1.1\r\n");
    assert_eq!(version.version, "27.0.1");
    assert_eq!(version.arch, "arm64");
}

#[test]
fn error_status_carries_the_engine_message() {
    let body = r#"{"message":"client version 1.99 is too new"}"#;
    let raw = format!(
        "HTTP/1.1 400 Bad Request\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (_dir, socket, _server) = fake_engine(pieces(&[&raw]));
    let err = DockerClient::new(&socket).ping().unwrap_err();
    let DockerError::Api {
        status,
        message,
        path,
    } = &err
    else {
        panic!("expected an API error, got {err:?}");
    };
    assert_eq!(
        (*status, message.as_str(), path.as_str()),
        (400, "client version 1.99 is too new", "/_ping")
    );
    assert_eq!(
        err.to_string(),
        "Docker API error 400 on /_ping: client version 1.99 is too new"
    );
}

#[test]
fn garbage_is_a_protocol_error_and_bad_json_a_decode_error() {
    let (_dir, socket, _server) = fake_engine(pieces(&["SSH-2.0-OpenSSH_9.2\r\n"]));
    let err = DockerClient::new(&socket).ping().unwrap_err();
    assert!(matches!(err, DockerError::Protocol { .. }), "{err:?}");

    let (_dir, socket, _server) = fake_engine(pieces(&[
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n[1,2]",
    ]));
    let err = DockerClient::new(&socket).list_containers().unwrap_err();
    assert!(matches!(err, DockerError::Decode { .. }), "{err:?}");
}

#[test]
fn a_silent_engine_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("docker.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    let (done, client_done) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        // Accept, then say nothing until the client has given up.
        let (stream, _) = listener.accept().unwrap();
        client_done.recv().ok();
        drop(stream);
    });
    let started = Instant::now();
    let err = DockerClient::new(&socket)
        .with_timeout(Duration::from_millis(200))
        .ping()
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(matches!(err, DockerError::TimedOut { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("did not answer /_ping within 200ms"),
        "{err}"
    );
    done.send(()).unwrap();
    holder.join().unwrap();
}

#[test]
fn a_socket_nobody_listens_on_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("docker.sock");
    drop(UnixListener::bind(&socket).unwrap()); // the file stays, the listener is gone
    let err = DockerClient::new(&socket).ping().unwrap_err();
    assert!(matches!(err, DockerError::Unavailable { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("Docker is not available here: connection refused"),
        "{err}"
    );
}
