//! Why a Docker request produced no answer, in Warden's terms: bollard's
//! errors (and the transport's, carried inside them) sorted into what a
//! caller acts on — no engine here, no answer in time, the engine said no,
//! the answer made no sense.

use std::error::Error as StdError;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bollard::errors::Error as BollardError;

use super::transport::{ConnectFailed, TooLarge};

/// The longest engine message kept in [`DockerError::Api`].
const MAX_MESSAGE_CHARS: usize = 500;

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
    /// The whole request (connecting, the answer and its body) took longer
    /// than the client's timeout.
    #[error("the Docker engine did not answer {path} within {timeout:?}")]
    TimedOut { path: String, timeout: Duration },
    /// The connection failed after it was made (reset, closed mid-write).
    #[error("Docker API request {path} failed: {source}")]
    Io { path: String, source: io::Error },
    /// The engine answered with an error status and (usually) a message.
    #[error("Docker API error {status} on {path}: {message}")]
    Api {
        path: String,
        status: u16,
        message: String,
    },
    /// Not HTTP, cut short, or larger than the client accepts.
    #[error("malformed response from the Docker engine to {path}: {reason}")]
    Protocol { path: String, reason: String },
    /// HTTP, but not the JSON the API describes.
    #[error("unexpected JSON from the Docker engine for {path}: {reason}")]
    Decode { path: String, reason: String },
    /// Refused before connecting: the request could not be written
    /// (a container reference that is not a name or an id).
    #[error("invalid Docker request {path}: {reason}")]
    InvalidRequest { path: String, reason: String },
    /// No thread or runtime could be started to run the request from
    /// synchronous code ([`crate::blocking`]).
    #[error("cannot run a Docker request here: {source}")]
    Runtime { source: io::Error },
}

impl DockerError {
    /// Sorts bollard's error for the request to `path` on `socket`.
    pub(super) fn from_bollard(
        error: BollardError,
        path: &str,
        socket: &Path,
        timeout: Duration,
    ) -> DockerError {
        let path = path.to_string();
        match error {
            BollardError::DockerResponseServerError {
                status_code,
                message,
            } => DockerError::Api {
                path,
                status: status_code,
                message: bounded_message(&message),
            },
            BollardError::JsonDataError { message, .. } => DockerError::Decode {
                path,
                reason: message,
            },
            BollardError::JsonSerdeError { err } => DockerError::Decode {
                path,
                reason: err.to_string(),
            },
            BollardError::RequestTimeoutError => DockerError::TimedOut { path, timeout },
            BollardError::IOError { err } => {
                if let Some(ConnectFailed(cause)) = err
                    .get_ref()
                    .and_then(|inner| inner.downcast_ref::<ConnectFailed>())
                {
                    return DockerError::Unavailable {
                        socket: socket.to_path_buf(),
                        reason: unavailable_reason(cause),
                    };
                }
                from_connection_error(&err, path)
            }
            BollardError::HyperResponseError { err } => from_connection_error(&err, path),
            // The rest are bollard failing to build the request (URL,
            // query, headers): nothing was sent.
            other => DockerError::InvalidRequest {
                path,
                reason: other.to_string(),
            },
        }
    }
}

/// What went wrong on a connection that was made: the size cap, an I/O
/// error, or an answer hyper could not read as HTTP.
fn from_connection_error(error: &(dyn StdError + 'static), path: String) -> DockerError {
    let mut io_kind = None;
    let mut cause: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(current) = cause {
        if let Some(io) = current.downcast_ref::<io::Error>() {
            if let Some(too_large) = io.get_ref().and_then(|e| e.downcast_ref::<TooLarge>()) {
                return DockerError::Protocol {
                    path,
                    reason: too_large.to_string(),
                };
            }
            io_kind.get_or_insert(io.kind());
        }
        if let Some(too_large) = current.downcast_ref::<TooLarge>() {
            return DockerError::Protocol {
                path,
                reason: too_large.to_string(),
            };
        }
        cause = current.source();
    }
    let reason = chain(error);
    match io_kind {
        // The engine closed the connection before the answer was whole.
        Some(io::ErrorKind::UnexpectedEof) | None => DockerError::Protocol { path, reason },
        Some(kind) => DockerError::Io {
            path,
            source: io::Error::new(kind, reason),
        },
    }
}

/// `outer: inner: innermost`, each part once (hyper's messages are short
/// and their causes carry the detail).
fn chain(error: &(dyn StdError + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(current) = cause {
        let part = current.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        cause = current.source();
    }
    text
}

fn unavailable_reason(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::NotFound => "the socket does not exist".to_string(),
        io::ErrorKind::PermissionDenied => {
            "permission denied (is this user in the `docker` group?)".to_string()
        }
        io::ErrorKind::ConnectionRefused => {
            "connection refused (is the Docker daemon running?)".to_string()
        }
        _ => error.to_string(),
    }
}

/// The engine's message, trimmed and bounded; `(no message)` when empty.
fn bounded_message(message: &str) -> String {
    let text = message.trim();
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None if text.is_empty() => "(no message)".to_string(),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(error: BollardError) -> DockerError {
        DockerError::from_bollard(
            error,
            "/_ping",
            Path::new("/run/docker.sock"),
            Duration::from_secs(3),
        )
    }

    #[test]
    fn engine_messages_are_trimmed_and_bounded() {
        assert_eq!(
            bounded_message("No such container: x"),
            "No such container: x"
        );
        assert_eq!(bounded_message("  page not found\n"), "page not found");
        assert_eq!(bounded_message(""), "(no message)");
        let long = "é".repeat(600);
        assert_eq!(bounded_message(&long).chars().count(), 501);
    }

    #[test]
    fn connection_failures_are_unavailable() {
        let cases = [
            (io::ErrorKind::NotFound, "the socket does not exist"),
            (io::ErrorKind::ConnectionRefused, "connection refused"),
            (io::ErrorKind::PermissionDenied, "permission denied"),
        ];
        for (kind, reason) in cases {
            let failed = io::Error::new(kind, ConnectFailed(io::Error::from(kind)));
            let error = sorted(BollardError::IOError { err: failed });
            assert!(
                matches!(error, DockerError::Unavailable { .. }),
                "{error:?}"
            );
            assert!(
                error
                    .to_string()
                    .starts_with(&format!("Docker is not available here: {reason}")),
                "{error}"
            );
        }
        // Any other I/O error happened on a connection that was made.
        let reset = io::Error::from(io::ErrorKind::ConnectionReset);
        let error = sorted(BollardError::IOError { err: reset });
        assert!(matches!(error, DockerError::Io { .. }), "{error:?}");
    }

    #[test]
    fn each_bollard_error_has_its_meaning() {
        let api = sorted(BollardError::DockerResponseServerError {
            status_code: 404,
            message: " No such container: x ".into(),
        });
        assert_eq!(
            api.to_string(),
            "Docker API error 404 on /_ping: No such container: x"
        );
        let timed_out = sorted(BollardError::RequestTimeoutError);
        assert_eq!(
            timed_out.to_string(),
            "the Docker engine did not answer /_ping within 3s"
        );
        let decode = sorted(BollardError::JsonDataError {
            message: "invalid type: integer `1`, expected struct".into(),
            column: 2,
        });
        assert!(matches!(decode, DockerError::Decode { .. }), "{decode:?}");
        let too_large = sorted(BollardError::IOError {
            err: io::Error::other(TooLarge { limit: 10 }),
        });
        assert_eq!(
            too_large.to_string(),
            "malformed response from the Docker engine to /_ping: \
             the engine's answer is larger than 10 bytes"
        );
        let request = sorted(BollardError::HttpHeaderNotFoundError("x".into()));
        assert!(
            matches!(request, DockerError::InvalidRequest { .. }),
            "{request:?}"
        );
    }
}
