//! The Docker Engine API client, on [bollard]: the engine's unix socket
//! (`/var/run/docker.sock`, or `DOCKER_HOST=unix://…`), one connection per
//! request, every request bounded by a timeout and every answer by a size.
//! This machine's inventory and the agent's (both through
//! [`crate::LocalInventory`]) use this one client.
//!
//! Read-only on purpose: this client pings, reads the version, lists,
//! inspects and reads a container's statistics (the metrics sampler). Changing containers is a write and goes through the executor
//! as a `docker …` command; so does a container's `docker stats` (the
//! `metrics` tool), which runs on whichever host the container is on — this
//! one or an agent's — where this client cannot reach.
//!
//! - Async, sync callers: the client is async (bollard's futures need a
//!   tokio runtime with I/O and timers). Discovery stays synchronous: its
//!   callers run it on a blocking thread (`spawn_blocking`: the server, the
//!   agent), before any runtime exists, or through the core's synchronous
//!   `Inventory` port from async code. It runs the client's requests
//!   through [`crate::blocking`]: a single-threaded runtime of their own, on
//!   a short-lived thread of their own — sound from any thread (never a
//!   `block_on` on a runtime's thread, which panics), no runtime kept alive
//!   between discoveries, and the engine answers while discovery reads
//!   `/proc`. Async code awaits the client.
//! - Transport (module `transport`): bollard runs over Warden's own, on
//!   hyper's HTTP/1.1 client connection; it caps the bytes an engine may
//!   send (bollard would read any body whole into memory), tells "no
//!   engine here" ([`DockerError::Unavailable`]) from a request that failed,
//!   and keeps an answer's headers, where the engine names its version
//!   (discovery's one request: [`DockerClient::list_containers_and_version`]).
//! - API versions: bollard 0.21 sends its paths without the `/v1.xx`
//!   prefix (its URL join drops it), so the engine answers in its own API
//!   version, old or new, as it did for Warden's previous client; the models
//!   tolerate the fields older engines leave out. The fake-engine tests pin
//!   the request line, so an upgrade that starts sending a version (which an
//!   engine older than bollard's API refuses) is noticed.
//!
//! bollard is built with `default-features = false`: no TLS stack, no SSH,
//! no `hyperlocal`; it adds bollard and its generated models
//! (`bollard-stubs`) to the build, the HTTP parts (hyper, http) being the
//! workspace's own.

mod errors;
mod model;
mod transport;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bollard::errors::Error as BollardError;
use bollard::query_parameters::{ListContainersOptionsBuilder, StatsOptionsBuilder};
use futures_util::StreamExt;

pub use bollard::models::ContainerInspectResponse as ContainerInspect;
pub use bollard::models::ContainerStatsResponse as ContainerStats;
pub use errors::DockerError;
pub use model::{ContainerSummary, DockerVersion, MountPoint, PortBinding};
use transport::{EngineHeaders, UnixTransport};

/// Where the engine listens when `DOCKER_HOST` says nothing else.
pub const DEFAULT_SOCKET: &str = "/var/run/docker.sock";

/// The largest answer accepted, head and body (a listing of thousands of
/// containers fits).
const MAX_RESPONSE_BYTES: u64 = 32 * 1024 * 1024;

/// The limit on a whole request unless [`DockerClient::with_timeout`] says
/// otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// A client for one engine socket. Holds no connection between requests.
#[derive(Debug, Clone)]
pub struct DockerClient {
    socket: PathBuf,
    timeout: Duration,
    transport: UnixTransport,
}

/// Two clients are the same when they ask the same socket with the same
/// timeout.
impl PartialEq for DockerClient {
    fn eq(&self, other: &Self) -> bool {
        self.socket == other.socket && self.timeout == other.timeout
    }
}

impl Eq for DockerClient {}

impl DockerClient {
    /// A client for the engine at `socket`, with a 10 s limit per request.
    pub fn new(socket: impl Into<PathBuf>) -> Self {
        DockerClient::with_limits(socket.into(), DEFAULT_TIMEOUT)
    }

    fn with_limits(socket: PathBuf, timeout: Duration) -> Self {
        DockerClient {
            transport: UnixTransport::new(socket.clone(), MAX_RESPONSE_BYTES, timeout),
            socket,
            timeout,
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

    /// The limit on each whole request: connecting, the answer, its body.
    pub fn with_timeout(self, timeout: Duration) -> Self {
        DockerClient::with_limits(self.socket, timeout)
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// `GET /_ping`: whether the engine answers at all.
    pub async fn ping(&self) -> Result<(), DockerError> {
        self.request("/_ping", |docker| async move { docker.ping().await })
            .await
            .map(|_| ())
    }

    /// `GET /version`.
    pub async fn version(&self) -> Result<DockerVersion, DockerError> {
        self.request("/version", |docker| async move { docker.version().await })
            .await
            .map(DockerVersion::from)
    }

    /// `GET /containers/json?all=true`: every container, stopped ones
    /// included.
    pub async fn list_containers(&self) -> Result<Vec<ContainerSummary>, DockerError> {
        Ok(self.list_containers_and_version().await?.0)
    }

    /// `GET /containers/json?all=true`, and the engine's version as the
    /// answer's headers give it (`Server: Docker/27.0.1 (linux)`,
    /// `Api-Version: 1.46`; `None` when they do not): discovery's one
    /// request. `GET /version` would cost the engine far more — it asks
    /// containerd and runs `runc` and `docker-init` to answer (5–7 ms here,
    /// against 0.3 ms for the listing).
    pub async fn list_containers_and_version(
        &self,
    ) -> Result<(Vec<ContainerSummary>, Option<DockerVersion>), DockerError> {
        let options = ListContainersOptionsBuilder::new().all(true).build();
        let (listed, headers) = self
            .request_with_headers("/containers/json", |docker| async move {
                docker.list_containers(Some(options)).await
            })
            .await;
        let containers = listed?
            .into_iter()
            .filter_map(ContainerSummary::from_engine)
            .collect();
        let version = headers.and_then(|headers| {
            DockerVersion::from_headers(headers.server.as_deref()?, headers.api_version.as_deref()?)
        });
        Ok((containers, version))
    }

    /// `GET /containers/{container}/json`, the container named by its name
    /// (with or without the leading `/`) or its id, full or short.
    pub async fn inspect_container(
        &self,
        container: &str,
    ) -> Result<ContainerInspect, DockerError> {
        let container = container.strip_prefix('/').unwrap_or(container);
        let path = format!("/containers/{container}/json");
        if !is_container_reference(container) {
            return Err(DockerError::InvalidRequest {
                path,
                reason: "not a container name or id".into(),
            });
        }
        self.request(&path, |docker| async move {
            docker.inspect_container(container, None).await
        })
        .await
    }

    /// `GET /containers/{id}/stats?stream=false&one-shot=true`: one
    /// reading of a container's counters, at once (without `one-shot` the
    /// engine waits a second for a second reading; engines older than API
    /// 1.41 do so anyway). The metrics sampler's fallback when the
    /// container's control group is out of sight.
    pub async fn container_stats(&self, container: &str) -> Result<ContainerStats, DockerError> {
        let path = format!("/containers/{container}/stats");
        if !is_container_reference(container) {
            return Err(DockerError::InvalidRequest {
                path,
                reason: "not a container name or id".into(),
            });
        }
        let options = StatsOptionsBuilder::new()
            .stream(false)
            .one_shot(true)
            .build();
        let answer = self
            .request(&path, |docker| async move {
                docker
                    .stats(container, Some(options))
                    .next()
                    .await
                    .transpose()
            })
            .await?;
        answer.ok_or_else(|| DockerError::Decode {
            path,
            reason: "the engine sent no statistics".into(),
        })
    }

    /// Runs `call` against the engine within the timeout.
    async fn request<T, F, Fut>(&self, path: &str, call: F) -> Result<T, DockerError>
    where
        F: FnOnce(bollard::Docker) -> Fut,
        Fut: Future<Output = Result<T, BollardError>>,
    {
        self.request_with_headers(path, call).await.0
    }

    /// As [`DockerClient::request`], with the engine's headers in its
    /// answer (an error status has them too).
    async fn request_with_headers<T, F, Fut>(
        &self,
        path: &str,
        call: F,
    ) -> (Result<T, DockerError>, Option<EngineHeaders>)
    where
        F: FnOnce(bollard::Docker) -> Fut,
        Fut: Future<Output = Result<T, BollardError>>,
    {
        let sorted = |error| DockerError::from_bollard(error, path, &self.socket, self.timeout);
        let transport = self.transport.for_one_request();
        // bollard's client is a handle (the transport, behind an `Arc`, and
        // settings): one is made per request.
        let docker = match transport::connect(&transport) {
            Ok(docker) => docker,
            Err(error) => return (Err(sorted(error)), None),
        };
        let answer = match tokio::time::timeout(self.timeout, call(docker)).await {
            Ok(answer) => answer.map_err(sorted),
            Err(_elapsed) => Err(DockerError::TimedOut {
                path: path.to_string(),
                timeout: self.timeout,
            }),
        };
        (answer, transport.engine_headers())
    }
}

/// A name (`[A-Za-z0-9][A-Za-z0-9_.-]*`) or an id: nothing that could
/// change the request's path (`/`, `..`, `?`, `%`).
fn is_container_reference(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
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
    fn container_references() {
        for good in ["web", "homepage-web-1", "db_2", "a.b", "3f4e1c2b9a8d", "W"] {
            assert!(is_container_reference(good), "{good}");
        }
        for bad in [
            "",
            "-x",
            ".x",
            "../images/json",
            "a/b",
            "a?b",
            "a%2F",
            "a b",
            "ä",
        ] {
            assert!(!is_container_reference(bad), "{bad}");
        }
    }

    #[tokio::test]
    async fn bad_container_references_are_refused_before_connecting() {
        let client = DockerClient::new("/nonexistent/docker.sock");
        for reference in ["../../images/json", "/x?all=1", "a b", ""] {
            let err = client.inspect_container(reference).await.unwrap_err();
            assert!(matches!(err, DockerError::InvalidRequest { .. }), "{err}");
        }
    }

    #[tokio::test]
    async fn a_missing_socket_is_unavailable() {
        let dir = tempfile::tempdir().unwrap();
        let client = DockerClient::new(dir.path().join("docker.sock"));
        let err = client.ping().await.unwrap_err();
        assert!(matches!(err, DockerError::Unavailable { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("Docker is not available here: the socket does not exist"),
            "{err}"
        );
    }

    #[test]
    fn a_timeout_is_kept_and_the_socket_with_it() {
        let client = DockerClient::new("/run/docker.sock").with_timeout(Duration::from_millis(250));
        assert_eq!(client.timeout(), Duration::from_millis(250));
        assert_eq!(client.socket(), Path::new("/run/docker.sock"));
        assert_eq!(
            client.transport.connection_limit,
            Duration::from_millis(250)
        );
    }
}
