//! A minimal Docker Engine API client: GET requests over the engine's unix
//! socket (`/var/run/docker.sock`, or `DOCKER_HOST=unix://…`), one
//! connection per request, every read and write bounded by a timeout.
//!
//! Read-only on purpose: this client lists and inspects. Changing containers
//! is a write and goes through the executor as a `docker …` command.

mod http;
mod model;

use std::io::BufReader;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::DeserializeOwned;

pub use model::{ContainerSummary, DockerVersion, MountPoint, PortBinding};

/// Where the engine listens when `DOCKER_HOST` says nothing else.
pub const DEFAULT_SOCKET: &str = "/var/run/docker.sock";

/// The largest response accepted (a listing of thousands of containers fits).
const MAX_RESPONSE_BODY: usize = 32 * 1024 * 1024;

/// Why a Docker API request produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum DockerError {
    /// No engine to talk to: the socket is missing, refuses connections, or
    /// this user may not open it. Discovery reports this and carries on.
    #[error("Docker is not available here: {reason} (socket {})", socket.display())]
    Unavailable { socket: PathBuf, reason: String },
    #[error(
        "Docker is not available here: DOCKER_HOST={value} is not a unix socket \
         (only unix:// is supported)"
    )]
    UnsupportedDockerHost { value: String },
    #[error("the Docker engine did not answer {path} within {timeout:?}")]
    TimedOut { path: String, timeout: Duration },
    #[error("Docker API request {path} failed: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// The engine answered with an error status and (usually) a message.
    #[error("Docker API error {status} on {path}: {message}")]
    Api {
        path: String,
        status: u16,
        message: String,
    },
    #[error("malformed response from the Docker engine to {path}: {reason}")]
    Protocol { path: String, reason: String },
    #[error("unexpected JSON from the Docker engine for {path}: {source}")]
    Decode {
        path: String,
        source: serde_json::Error,
    },
    #[error(
        "invalid Docker API path {path:?}: it must start with `/` and hold no spaces or control characters"
    )]
    InvalidPath { path: String },
}

/// A client for one engine socket. Holds no connection between requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DockerClient {
    socket: PathBuf,
    timeout: Duration,
}

impl DockerClient {
    /// A client for the engine at `socket`, with a 10 s timeout per read/write.
    pub fn new(socket: impl Into<PathBuf>) -> Self {
        DockerClient {
            socket: socket.into(),
            timeout: Duration::from_secs(10),
        }
    }

    /// The engine `DOCKER_HOST` names (only `unix://` is supported), else
    /// the default socket.
    pub fn from_env() -> Result<Self, DockerError> {
        let value = std::env::var("DOCKER_HOST").ok();
        DockerClient::from_docker_host(value.as_deref())
    }

    /// As [`DockerClient::from_env`], for a given `DOCKER_HOST` value.
    pub fn from_docker_host(value: Option<&str>) -> Result<Self, DockerError> {
        match value.map(str::trim) {
            None | Some("") => Ok(DockerClient::new(DEFAULT_SOCKET)),
            Some(value) => match value.strip_prefix("unix://") {
                Some(path) if !path.is_empty() => Ok(DockerClient::new(path)),
                Some(_) | None => Err(DockerError::UnsupportedDockerHost {
                    value: value.to_string(),
                }),
            },
        }
    }

    /// The limit on each socket read and write (not on the whole request).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// `GET /_ping`: whether the engine answers at all.
    pub fn ping(&self) -> Result<(), DockerError> {
        self.get("/_ping").map(|_| ())
    }

    /// `GET /version`.
    pub fn version(&self) -> Result<DockerVersion, DockerError> {
        self.get_json("/version")
    }

    /// `GET /containers/json?all=1`: every container, stopped ones included.
    pub fn list_containers(&self) -> Result<Vec<ContainerSummary>, DockerError> {
        self.get_json("/containers/json?all=1")
    }

    /// `GET path`, decoded from JSON.
    pub fn get_json<T: DeserializeOwned>(&self, path: &str) -> Result<T, DockerError> {
        let body = self.get(path)?;
        serde_json::from_slice(&body).map_err(|source| DockerError::Decode {
            path: path.to_string(),
            source,
        })
    }

    /// `GET path`: the body of a 2xx response; any other status is
    /// [`DockerError::Api`] with the engine's message.
    pub fn get(&self, path: &str) -> Result<Vec<u8>, DockerError> {
        if !path.starts_with('/') || path.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(DockerError::InvalidPath {
                path: path.to_string(),
            });
        }
        let stream = self.connect()?;
        let io_error = |source: std::io::Error| match source.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                DockerError::TimedOut {
                    path: path.to_string(),
                    timeout: self.timeout,
                }
            }
            _ => DockerError::Io {
                path: path.to_string(),
                source,
            },
        };
        stream
            .set_read_timeout(Some(self.timeout))
            .and_then(|()| stream.set_write_timeout(Some(self.timeout)))
            .map_err(io_error)?;
        http::write_get(&mut &stream, path).map_err(io_error)?;
        let response = http::read_response(&mut BufReader::new(&stream), MAX_RESPONSE_BODY)
            .map_err(|err| match err {
                http::HttpError::Io(source) => io_error(source),
                http::HttpError::Malformed(reason) => DockerError::Protocol {
                    path: path.to_string(),
                    reason,
                },
                err @ http::HttpError::TooLarge { .. } => DockerError::Protocol {
                    path: path.to_string(),
                    reason: err.to_string(),
                },
            })?;
        if (200..300).contains(&response.status) {
            return Ok(response.body);
        }
        Err(DockerError::Api {
            path: path.to_string(),
            status: response.status,
            message: api_error_message(&response.body),
        })
    }

    fn connect(&self) -> Result<UnixStream, DockerError> {
        UnixStream::connect(&self.socket).map_err(|err| {
            let reason = match err.kind() {
                std::io::ErrorKind::NotFound => "the socket does not exist".to_string(),
                std::io::ErrorKind::PermissionDenied => {
                    "permission denied (is this user in the `docker` group?)".to_string()
                }
                std::io::ErrorKind::ConnectionRefused => {
                    "connection refused (is the Docker daemon running?)".to_string()
                }
                _ => err.to_string(),
            };
            DockerError::Unavailable {
                socket: self.socket.clone(),
                reason,
            }
        })
    }
}

/// The engine's `{"message": "…"}`, else the body itself (trimmed, bounded).
fn api_error_message(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct ApiError {
        message: String,
    }
    if let Ok(error) = serde_json::from_slice::<ApiError>(body) {
        return error.message;
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.char_indices().nth(500) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None if text.is_empty() => "(no message)".to_string(),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docker_host_values() {
        let default = DockerClient::from_docker_host(None).unwrap();
        assert_eq!(default.socket(), Path::new(DEFAULT_SOCKET));
        assert_eq!(DockerClient::from_docker_host(Some("")).unwrap(), default);
        let custom =
            DockerClient::from_docker_host(Some("unix:///run/user/1000/docker.sock")).unwrap();
        assert_eq!(custom.socket(), Path::new("/run/user/1000/docker.sock"));
        for bad in ["tcp://10.0.0.5:2375", "unix://", "ssh://me@box"] {
            let err = DockerClient::from_docker_host(Some(bad)).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("Docker is not available here: DOCKER_HOST="),
                "{err}"
            );
        }
    }

    #[test]
    fn api_error_messages() {
        assert_eq!(
            api_error_message(br#"{"message":"No such container: x"}"#),
            "No such container: x"
        );
        assert_eq!(api_error_message(b"  page not found\n"), "page not found");
        assert_eq!(api_error_message(b""), "(no message)");
        let long = "é".repeat(600);
        let message = api_error_message(long.as_bytes());
        assert_eq!(message.chars().count(), 501);
    }

    #[test]
    fn bad_paths_are_refused_before_connecting() {
        let client = DockerClient::new("/nonexistent/docker.sock");
        for path in ["containers/json", "/x HTTP/1.1\r\nEvil: 1", "/a b"] {
            let err = client.get(path).unwrap_err();
            assert!(matches!(err, DockerError::InvalidPath { .. }), "{err}");
        }
    }

    #[test]
    fn a_missing_socket_is_unavailable() {
        let dir = tempfile::tempdir().unwrap();
        let client = DockerClient::new(dir.path().join("docker.sock"));
        let err = client.ping().unwrap_err();
        assert!(matches!(err, DockerError::Unavailable { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("Docker is not available here: the socket does not exist"),
            "{err}"
        );
    }
}
