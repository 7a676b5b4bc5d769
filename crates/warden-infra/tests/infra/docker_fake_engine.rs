//! DockerClient against a fake engine: a UnixListener in a temporary
//! directory that answers each connection with scripted bytes, written in
//! pieces split at awkward places (inside a chunk-size line, between CR and
//! LF), slowly, too much, or not at all — the engines real ones can become.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use warden_infra::{DockerClient, DockerError};

/// How one connection is answered.
enum Answer {
    /// These pieces, with a pause between them.
    Pieces(Vec<Vec<u8>>),
    /// A response head, then `body` repeated `times` times (the connection
    /// may be closed by the client before the end).
    Repeated {
        head: String,
        body: Vec<u8>,
        times: usize,
    },
}

/// Serves one connection per answer, in order: reads the request head,
/// then writes the answer. Returns the request lines it received.
fn fake_engine(answers: Vec<Answer>) -> (tempfile::TempDir, PathBuf, JoinHandle<Vec<String>>) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("docker.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    let server = std::thread::spawn(move || {
        let mut requests = Vec::new();
        for answer in answers {
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
            requests.push(request_line);
            let mut writer = &stream;
            // A client that gave up closes its end: writes may fail.
            match answer {
                Answer::Pieces(pieces) => {
                    for piece in pieces {
                        if writer
                            .write_all(&piece)
                            .and_then(|()| writer.flush())
                            .is_err()
                        {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(15));
                    }
                }
                Answer::Repeated { head, body, times } => {
                    if writer.write_all(head.as_bytes()).is_ok() {
                        for _ in 0..times {
                            if writer.write_all(&body).is_err() {
                                break;
                            }
                        }
                    }
                }
            }
        }
        requests
    });
    (dir, socket, server)
}

fn pieces(parts: &[&str]) -> Answer {
    Answer::Pieces(parts.iter().map(|p| p.as_bytes().to_vec()).collect())
}

/// A complete `200 OK` with a JSON body.
fn ok_json(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn chunked_response_split_at_odd_places() {
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
    let (_dir, socket, server) = fake_engine(vec![Answer::Pieces(parts)]);

    let containers = DockerClient::new(&socket).list_containers().await.unwrap();
    assert_eq!(
        server.join().unwrap(),
        ["GET /containers/json?all=true&size=false HTTP/1.1\r\n"]
    );
    assert_eq!(containers.len(), 1);
    assert_eq!(containers[0].name(), Some("web"));
    assert_eq!(containers[0].state, "running");
}

#[tokio::test]
async fn content_length_response() {
    let body = r#"{"Version":"27.0.1","ApiVersion":"1.46","Os":"linux","Arch":"arm64","KernelVersion":"6.6"}"#;
    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
    let (_dir, socket, server) = fake_engine(vec![pieces(&[&head, &body[..10], &body[10..]])]);
    let version = DockerClient::new(&socket).version().await.unwrap();
    assert_eq!(server.join().unwrap(), ["GET /version HTTP/1.1\r\n"]);
    assert_eq!(version.version, "27.0.1");
    assert_eq!(version.arch, "arm64");
}

#[tokio::test]
async fn error_status_carries_the_engine_message() {
    let body = r#"{"message":"client version 1.99 is too new"}"#;
    let raw = format!(
        "HTTP/1.1 400 Bad Request\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (_dir, socket, server) = fake_engine(vec![pieces(&[&raw])]);
    let err = DockerClient::new(&socket).ping().await.unwrap_err();
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
    assert_eq!(server.join().unwrap(), ["GET /_ping HTTP/1.1\r\n"]);
}

/// bollard sends unversioned paths, which every engine answers in its own
/// API version (a path with a version newer than the engine's is refused).
/// Pinned here: a bollard that starts sending `/v1.xx/` shows up as this
/// test failing, not as "client version too new" on older engines.
#[tokio::test]
async fn requests_carry_no_api_version() {
    let version = r#"{"Version":"20.10.24","ApiVersion":"1.41","Os":"linux"}"#;
    let (_dir, socket, server) = fake_engine(vec![
        pieces(&[&ok_json(version)]),
        pieces(&[&ok_json("[]")]),
        pieces(&["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK"]),
        pieces(&[&ok_json(r#"{"Id":"abc","State":{"Running":true}}"#)]),
    ]);
    let client = DockerClient::new(&socket);
    assert_eq!(client.version().await.unwrap().api_version, "1.41");
    assert!(client.list_containers().await.unwrap().is_empty());
    client.ping().await.unwrap();
    let inspected = client.inspect_container("/web").await.unwrap();
    assert_eq!(inspected.id.as_deref(), Some("abc"));
    assert_eq!(
        server.join().unwrap(),
        [
            "GET /version HTTP/1.1\r\n",
            "GET /containers/json?all=true&size=false HTTP/1.1\r\n",
            "GET /_ping HTTP/1.1\r\n",
            "GET /containers/web/json HTTP/1.1\r\n",
        ]
    );
}

/// The listing's answer names the engine in its headers; an engine that
/// does not (or not as `Name/version (os)`) leaves the version unknown.
#[tokio::test]
async fn the_version_comes_with_the_listing_when_the_headers_say() {
    let listing = r#"[{"Id":"abc","Names":["/web"],"State":"running"}]"#;
    let named = format!(
        "HTTP/1.1 200 OK\r\nServer: Docker/27.3.1 (linux)\r\nApi-Version: 1.47\r\nContent-Length: {}\r\n\r\n{listing}",
        listing.len()
    );
    let (_dir, socket, server) = fake_engine(vec![pieces(&[&named]), pieces(&[&ok_json(listing)])]);
    let client = DockerClient::new(&socket);
    let (containers, version) = client.list_containers_and_version().await.unwrap();
    assert_eq!(containers[0].name(), Some("web"));
    let version = version.unwrap();
    assert_eq!(
        (version.version.as_str(), version.api_version.as_str()),
        ("27.3.1", "1.47")
    );
    let (containers, version) = client.list_containers_and_version().await.unwrap();
    assert_eq!((containers.len(), version), (1, None));
    assert_eq!(
        server.join().unwrap(),
        ["GET /containers/json?all=true&size=false HTTP/1.1\r\n"; 2]
    );
}

#[tokio::test]
async fn garbage_is_a_protocol_error_and_bad_json_a_decode_error() {
    let (_dir, socket, _server) = fake_engine(vec![pieces(&["SSH-2.0-OpenSSH_9.2\r\n"])]);
    let err = DockerClient::new(&socket).ping().await.unwrap_err();
    assert!(matches!(err, DockerError::Protocol { .. }), "{err:?}");

    let (_dir, socket, _server) = fake_engine(vec![pieces(&[&ok_json("[1,2]")])]);
    let err = DockerClient::new(&socket)
        .list_containers()
        .await
        .unwrap_err();
    assert!(matches!(err, DockerError::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("/containers/json"), "{err}");
}

#[tokio::test]
async fn an_answer_cut_short_is_a_protocol_error() {
    let (_dir, socket, _server) = fake_engine(vec![pieces(&[
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n[{\"Id\":",
    ])]);
    let err = DockerClient::new(&socket)
        .list_containers()
        .await
        .unwrap_err();
    assert!(matches!(err, DockerError::Protocol { .. }), "{err:?}");
}

/// More than 32 MiB is refused once that much has arrived, whatever the
/// framing said, and the client does not wait for the rest.
#[tokio::test]
async fn a_huge_answer_is_refused_at_the_cap() {
    let chunk = vec![b' '; 1024 * 1024];
    let framed = {
        let mut framed = format!("{:x}\r\n", chunk.len()).into_bytes();
        framed.extend_from_slice(&chunk);
        framed.extend_from_slice(b"\r\n");
        framed
    };
    let (_dir, socket, _server) = fake_engine(vec![
        Answer::Repeated {
            head: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".into(),
            body: framed,
            times: 40,
        },
        Answer::Repeated {
            head: "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n".into(),
            body: chunk,
            times: 40,
        },
    ]);
    let client = DockerClient::new(&socket);
    for _ in 0..2 {
        let started = Instant::now();
        let err = client.list_containers().await.unwrap_err();
        assert!(matches!(err, DockerError::Protocol { .. }), "{err:?}");
        assert!(
            err.to_string().contains("larger than 33554432 bytes"),
            "{err}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}

#[tokio::test]
async fn a_silent_engine_times_out() {
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
        .await
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

/// An engine that keeps sending, a little at a time, never finishes within
/// the timeout: the limit is on the whole request, not on each read.
#[tokio::test]
async fn a_dribbling_engine_times_out() {
    let mut parts = vec!["HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".to_string()];
    parts.extend(std::iter::repeat_n(" ".to_string(), 99));
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let (_dir, socket, _server) = fake_engine(vec![pieces(&parts)]);
    let started = Instant::now();
    let err = DockerClient::new(&socket)
        .with_timeout(Duration::from_millis(300))
        .version()
        .await
        .unwrap_err();
    assert!(matches!(err, DockerError::TimedOut { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[tokio::test]
async fn a_socket_nobody_listens_on_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("docker.sock");
    drop(UnixListener::bind(&socket).unwrap()); // the file stays, the listener is gone
    let err = DockerClient::new(&socket).ping().await.unwrap_err();
    assert!(matches!(err, DockerError::Unavailable { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("Docker is not available here: connection refused"),
        "{err}"
    );
}

/// Sync code (discovery) asks through `run_blocking`, here from inside a
/// runtime's worker, where blocking on a runtime of its own would panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_callers_get_the_same_answers_from_any_thread() {
    let version = r#"{"Version":"27.0.1","ApiVersion":"1.46"}"#;
    let (_dir, socket, _server) = fake_engine(vec![pieces(&[&ok_json(version)])]);
    let client = DockerClient::new(&socket);
    let answer = warden_infra::blocking::run_blocking(client.version()).unwrap();
    assert_eq!(answer.unwrap().version, "27.0.1");
}

fn inventory_of(socket: &std::path::Path) -> warden_infra::LocalInventory {
    warden_infra::LocalInventory::with_options(warden_infra::InventoryOptions {
        docker: warden_infra::DockerDiscovery::Client(DockerClient::new(socket)),
        hostname: Some("fakehost".into()),
        ..warden_infra::InventoryOptions::default()
    })
}

/// Discovery asks once: the listing, whose headers give the version.
#[test]
fn discovery_takes_the_version_from_the_listing() {
    let listing =
        r#"[{"Id":"0123456789abcdef","Names":["/web"],"Image":"nginx","State":"running"}]"#;
    let named = format!(
        "HTTP/1.1 200 OK\r\nServer: Docker/27.3.1 (linux)\r\nApi-Version: 1.47\r\nContent-Length: {}\r\n\r\n{listing}",
        listing.len()
    );
    let (_dir, socket, server) = fake_engine(vec![pieces(&[&named])]);
    let resources = inventory_of(&socket).resources();
    assert_eq!(server.join().unwrap().len(), 1);
    let host = &resources[0];
    assert_eq!(
        host.attributes["docker"],
        serde_json::json!({"version": "27.3.1", "api_version": "1.47"})
    );
    assert!(!host.attributes.contains_key("inventory_notes"), "{host:?}");
    assert_eq!(
        resources[1].id.to_string(),
        "docker_container:fakehost:0123456789ab"
    );
}

/// An engine that refuses the listing is still there: its version is
/// reported, with a note on what failed.
#[test]
fn a_refused_listing_is_a_note_beside_the_version() {
    let refusal = r#"{"message":"boom"}"#;
    let refused = format!(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: {}\r\n\r\n{refusal}",
        refusal.len()
    );
    let version = r#"{"Version":"20.10.24","ApiVersion":"1.41"}"#;
    let (_dir, socket, server) =
        fake_engine(vec![pieces(&[&refused]), pieces(&[&ok_json(version)])]);
    let resources = inventory_of(&socket).resources();
    assert_eq!(
        server.join().unwrap(),
        [
            "GET /containers/json?all=true&size=false HTTP/1.1\r\n",
            "GET /version HTTP/1.1\r\n"
        ]
    );
    assert_eq!(resources.len(), 1);
    let host = &resources[0];
    assert_eq!(host.attributes["docker"]["version"], "20.10.24");
    assert_eq!(
        host.attributes["inventory_notes"],
        serde_json::json!([
            "docker: listing containers failed: Docker API error 500 on /containers/json: boom"
        ])
    );
}
