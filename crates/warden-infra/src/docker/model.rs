//! What Warden reads from the engine, as plain values: bollard's models
//! (every field optional, as the API allows) become these, with absent
//! and `null` fields empty, so the rest of Warden never handles `Option`s
//! that carry no meaning. A listed container without an id is skipped
//! (nothing could address it); one odd field never drops a container.
//! bollard decodes the engine's enumerations (a container's state, a port's
//! protocol) strictly: a value outside the API's list fails the listing as
//! [`super::DockerError::Decode`].

use std::collections::BTreeMap;
use std::fmt;

use bollard::models;

/// `GET /version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DockerVersion {
    pub version: String,
    pub api_version: String,
    pub os: String,
    pub arch: String,
    pub kernel_version: String,
}

impl From<models::SystemVersion> for DockerVersion {
    fn from(v: models::SystemVersion) -> Self {
        DockerVersion {
            version: v.version.unwrap_or_default(),
            api_version: v.api_version.unwrap_or_default(),
            os: v.os.unwrap_or_default(),
            arch: v.arch.unwrap_or_default(),
            kernel_version: v.kernel_version.unwrap_or_default(),
        }
    }
}

impl DockerVersion {
    /// From the headers the engine puts on every answer: `Server:
    /// Docker/20.10.24+dfsg1 (linux)` (Podman: `Libpod/4.3.1 (linux)`) and
    /// `Api-Version: 1.41`. The architecture and kernel stay empty; `None`
    /// when the server header is not `Name/version (os)`.
    pub fn from_headers(server: &str, api_version: &str) -> Option<Self> {
        let (_name, rest) = server.trim().split_once('/')?;
        let (version, os) = rest.split_once(' ')?;
        let os = os.trim().strip_prefix('(')?.strip_suffix(')')?;
        let api_version = api_version.trim();
        if version.is_empty() || api_version.is_empty() {
            return None;
        }
        Some(DockerVersion {
            version: version.to_string(),
            api_version: api_version.to_string(),
            os: os.to_string(),
            arch: String::new(),
            kernel_version: String::new(),
        })
    }
}

/// One entry of `GET /containers/json?all=true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerSummary {
    /// The full 64-hex id.
    pub id: String,
    /// As the engine reports them: with a leading `/` (`/homepage`).
    pub names: Vec<String>,
    pub image: String,
    /// `created`, `running`, `paused`, `restarting`, `removing`, `exited`, `dead`.
    pub state: String,
    /// Human text: `Up 2 hours`, `Exited (0) 3 days ago`.
    pub status: String,
    pub ports: Vec<PortBinding>,
    pub labels: BTreeMap<String, String>,
    pub mounts: Vec<MountPoint>,
}

impl ContainerSummary {
    /// The engine's entry, or `None` when it has no id.
    pub fn from_engine(c: models::ContainerSummary) -> Option<Self> {
        Some(ContainerSummary {
            id: c.id.filter(|id| !id.is_empty())?,
            names: c.names.unwrap_or_default(),
            image: c.image.unwrap_or_default(),
            state: c.state.map(|s| s.to_string()).unwrap_or_default(),
            status: c.status.unwrap_or_default(),
            ports: c
                .ports
                .unwrap_or_default()
                .into_iter()
                .map(PortBinding::from)
                .collect(),
            labels: c.labels.unwrap_or_default().into_iter().collect(),
            mounts: c
                .mounts
                .unwrap_or_default()
                .into_iter()
                .map(MountPoint::from)
                .collect(),
        })
    }

    /// The 12-hex short id `docker ps` shows.
    pub fn short_id(&self) -> &str {
        self.id.get(..12).unwrap_or(&self.id)
    }

    /// The container's own name without the leading `/`. Legacy links add
    /// names like `/web/db` (the container as seen from `web`); those are
    /// not its name, so the first name without an inner `/` wins.
    pub fn name(&self) -> Option<&str> {
        let trimmed = || self.names.iter().map(|n| n.trim_start_matches('/'));
        trimmed()
            .find(|n| !n.contains('/'))
            .or_else(|| trimmed().next())
    }

    /// The other names (legacy link aliases), without the leading `/`.
    pub fn other_names(&self) -> Vec<&str> {
        let own = self.name();
        self.names
            .iter()
            .map(|n| n.trim_start_matches('/'))
            .filter(|n| Some(*n) != own)
            .collect()
    }

    /// `com.docker.compose.project`, when Compose started it.
    pub fn compose_project(&self) -> Option<&str> {
        self.labels
            .get("com.docker.compose.project")
            .map(String::as_str)
    }

    /// `com.docker.compose.service`, when Compose started it.
    pub fn compose_service(&self) -> Option<&str> {
        self.labels
            .get("com.docker.compose.service")
            .map(String::as_str)
    }
}

/// A container port and where it is published, if it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortBinding {
    pub ip: Option<String>,
    pub private_port: u16,
    pub public_port: Option<u16>,
    /// `tcp`, `udp`, `sctp`.
    pub protocol: String,
}

impl From<models::PortSummary> for PortBinding {
    fn from(p: models::PortSummary) -> Self {
        PortBinding {
            ip: p.ip.filter(|ip| !ip.is_empty()),
            private_port: p.private_port,
            public_port: p.public_port,
            protocol: p.typ.map(|t| t.to_string()).unwrap_or_default(),
        }
    }
}

impl fmt::Display for PortBinding {
    /// As `docker ps` writes it: `0.0.0.0:8080->80/tcp`, or `80/tcp` when
    /// the port is not published.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.ip, self.public_port) {
            (Some(ip), Some(public)) if ip.contains(':') => {
                write!(f, "[{ip}]:{public}->")?;
            }
            (Some(ip), Some(public)) => write!(f, "{ip}:{public}->")?,
            (None, Some(public)) => write!(f, "{public}->")?,
            (_, None) => {}
        }
        write!(f, "{}/{}", self.private_port, self.protocol)
    }
}

/// A volume or bind mount of a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountPoint {
    /// `bind`, `volume`, `tmpfs`, `npipe`.
    pub kind: String,
    /// The volume's name (volumes only).
    pub name: Option<String>,
    /// The path on the host.
    pub source: String,
    /// The path inside the container.
    pub destination: String,
    pub read_write: bool,
}

impl From<models::MountPoint> for MountPoint {
    fn from(m: models::MountPoint) -> Self {
        MountPoint {
            kind: m.typ.unwrap_or_default(),
            name: m.name.filter(|name| !name.is_empty()),
            source: m.source.unwrap_or_default(),
            destination: m.destination.unwrap_or_default(),
            read_write: m.rw.unwrap_or(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's JSON as bollard decodes it, then as Warden keeps it.
    fn listing(json: &str) -> Vec<ContainerSummary> {
        serde_json::from_str::<Vec<models::ContainerSummary>>(json)
            .unwrap()
            .into_iter()
            .filter_map(ContainerSummary::from_engine)
            .collect()
    }

    /// Recorded from `GET /containers/json?all=1` (engine 20.10), trimmed of
    /// fields Warden does not read; one Compose container, one bare one with
    /// nulls where old engines put them, one with a legacy link name.
    const CONTAINERS: &str = r#"[
      {"Id":"3f4e1c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
       "Names":["/homepage"],"Image":"ghcr.io/gethomepage/homepage:latest",
       "ImageID":"sha256:abc","Command":"docker-entrypoint.sh","Created":1700000000,
       "Ports":[{"IP":"0.0.0.0","PrivatePort":3000,"PublicPort":3000,"Type":"tcp"},
                {"IP":"::","PrivatePort":3000,"PublicPort":3000,"Type":"tcp"},
                {"PrivatePort":8080,"Type":"udp"}],
       "Labels":{"com.docker.compose.project":"homepage","com.docker.compose.service":"web"},
       "State":"running","Status":"Up 2 hours",
       "HostConfig":{"NetworkMode":"homepage_default"},
       "Mounts":[{"Type":"bind","Source":"/srv/homepage/config","Destination":"/app/config","Mode":"rw","RW":true,"Propagation":"rprivate"},
                 {"Type":"volume","Name":"homepage_data","Source":"/var/lib/docker/volumes/homepage_data/_data","Destination":"/data","Driver":"local","Mode":"z","RW":false,"Propagation":""}]},
      {"Id":"0123456789ab","Names":null,"Image":"busybox","State":"exited",
       "Status":"Exited (0) 3 days ago","Ports":null,"Labels":null,"Mounts":null},
      {"Id":"feedfacecafebeef00000000000000000000000000000000000000000000000000",
       "Names":["/web/db","/db"],"Image":"postgres:16","State":"running","Status":"Up 1 second",
       "Ports":[],"Labels":{},"Mounts":[]}
    ]"#;

    #[test]
    fn recorded_container_listing_parses() {
        let list = listing(CONTAINERS);
        assert_eq!(list.len(), 3);
        let homepage = &list[0];
        assert_eq!(homepage.short_id(), "3f4e1c2b9a8d");
        assert_eq!(homepage.name(), Some("homepage"));
        assert!(homepage.other_names().is_empty());
        assert_eq!(homepage.state, "running");
        assert_eq!(homepage.status, "Up 2 hours");
        assert_eq!(homepage.compose_project(), Some("homepage"));
        assert_eq!(homepage.compose_service(), Some("web"));
        let ports: Vec<String> = homepage.ports.iter().map(ToString::to_string).collect();
        assert_eq!(
            ports,
            ["0.0.0.0:3000->3000/tcp", "[::]:3000->3000/tcp", "8080/udp"]
        );
        assert_eq!(homepage.mounts[0].kind, "bind");
        assert_eq!(homepage.mounts[0].source, "/srv/homepage/config");
        assert_eq!(homepage.mounts[0].destination, "/app/config");
        assert!(homepage.mounts[0].read_write);
        assert_eq!(homepage.mounts[1].name.as_deref(), Some("homepage_data"));
        assert!(!homepage.mounts[1].read_write);

        let bare = &list[1];
        assert_eq!(bare.short_id(), "0123456789ab");
        assert_eq!(bare.name(), None);
        assert!(bare.ports.is_empty() && bare.labels.is_empty() && bare.mounts.is_empty());
        assert_eq!(bare.compose_project(), None);

        let db = &list[2];
        assert_eq!(db.name(), Some("db"));
        assert_eq!(db.other_names(), ["web/db"]);
    }

    #[test]
    fn short_ids_of_short_strings_do_not_panic() {
        let c = &listing(r#"[{"Id":"abc"}]"#)[0];
        assert_eq!(c.short_id(), "abc");
        assert_eq!(c.name(), None);
    }

    #[test]
    fn containers_without_an_id_are_skipped() {
        let list = listing(r#"[{"Names":["/ghost"]},{"Id":""},{"Id":"abc","Names":["/web"]}]"#);
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].name(), Some("web"));
    }

    /// bollard's enumerations are strict: a state outside the API's list is
    /// a decoding error for the listing (the client reports it as such).
    #[test]
    fn a_state_outside_the_api_fails_decoding() {
        let parsed = serde_json::from_str::<Vec<models::ContainerSummary>>(
            r#"[{"Id":"a","State":"hovering"}]"#,
        );
        assert!(parsed.is_err());
    }

    #[test]
    fn versions_from_the_headers_of_an_answer() {
        let docker = DockerVersion::from_headers("Docker/20.10.24+dfsg1 (linux)", "1.41").unwrap();
        assert_eq!(
            (
                docker.version.as_str(),
                docker.api_version.as_str(),
                docker.os.as_str()
            ),
            ("20.10.24+dfsg1", "1.41", "linux")
        );
        let podman = DockerVersion::from_headers("Libpod/4.3.1 (linux)", " 1.41 ").unwrap();
        assert_eq!(
            (podman.version.as_str(), podman.api_version.as_str()),
            ("4.3.1", "1.41")
        );
        for (server, api) in [
            ("Docker/27.0.1 (linux)", ""),
            ("nginx", "1.41"),
            ("Docker/27.0.1", "1.41"),
            ("Docker/ (linux)", "1.41"),
            ("Docker/27.0.1 linux", "1.41"),
        ] {
            assert_eq!(
                DockerVersion::from_headers(server, api),
                None,
                "{server:?} {api:?}"
            );
        }
    }

    #[test]
    fn recorded_version_parses() {
        let v: models::SystemVersion = serde_json::from_str(
            r#"{"Platform":{"Name":""},"Version":"20.10.24+dfsg1","ApiVersion":"1.41",
                "MinAPIVersion":"1.12","Os":"linux","Arch":"amd64","KernelVersion":"6.1.0"}"#,
        )
        .unwrap();
        let v = DockerVersion::from(v);
        assert_eq!(v.version, "20.10.24+dfsg1");
        assert_eq!(v.api_version, "1.41");
        assert_eq!(v.os, "linux");
    }
}
