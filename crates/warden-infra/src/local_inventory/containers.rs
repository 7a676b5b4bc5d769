//! Docker containers as Warden resources: `docker_container:<host>:<short id>`,
//! named as `docker ps` names them, children of the host they run on.

use serde_json::{Value, json};
use warden_protocol::{Resource, ResourceId, ResourceKind};

use crate::docker::ContainerSummary;

/// The resource for `container`, which runs on `host` (`host:<hostname>`).
pub fn container_resource(
    hostname: &str,
    host: &ResourceId,
    container: &ContainerSummary,
) -> Resource {
    let short_id = container.short_id();
    let id = ResourceId::scoped(ResourceKind::DockerContainer, hostname, short_id);
    let name = container.name().unwrap_or(short_id).to_string();
    let mut resource = Resource::new(id, name);
    resource.aliases = container
        .other_names()
        .into_iter()
        .map(str::to_string)
        .chain(std::iter::once(container.id.clone()))
        .filter(|alias| *alias != resource.name)
        .collect();
    resource.parent = Some(host.clone());
    resource.status = Some(container.state.clone());

    let attributes = &mut resource.attributes;
    attributes.insert("container_id".into(), json!(container.id));
    attributes.insert("image".into(), json!(container.image));
    attributes.insert("status_text".into(), json!(container.status));
    if !container.ports.is_empty() {
        let ports: Vec<String> = container.ports.iter().map(ToString::to_string).collect();
        attributes.insert("ports".into(), json!(ports));
    }
    if let Some(project) = container.compose_project() {
        attributes.insert("compose_project".into(), json!(project));
    }
    if let Some(service) = container.compose_service() {
        attributes.insert("compose_service".into(), json!(service));
    }
    // Bind mounts are where a container's config and data live on the host:
    // what "where is jellyfin's config?" needs.
    let binds: Vec<Value> = container
        .mounts
        .iter()
        .filter(|m| m.kind == "bind")
        .map(|m| {
            json!({
                "source": m.source,
                "destination": m.destination,
                "read_only": !m.read_write,
            })
        })
        .collect();
    if !binds.is_empty() {
        attributes.insert("bind_mounts".into(), Value::Array(binds));
    }
    let volumes: Vec<Value> = container
        .mounts
        .iter()
        .filter(|m| m.kind == "volume")
        .map(|m| {
            json!({
                "name": m.name,
                "source": m.source,
                "destination": m.destination,
                "read_only": !m.read_write,
            })
        })
        .collect();
    if !volumes.is_empty() {
        attributes.insert("volumes".into(), Value::Array(volumes));
    }
    resource
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORDED: &str = r#"[
      {"Id":"3f4e1c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
       "Names":["/homepage"],"Image":"ghcr.io/gethomepage/homepage:latest",
       "Ports":[{"IP":"0.0.0.0","PrivatePort":3000,"PublicPort":3000,"Type":"tcp"}],
       "Labels":{"com.docker.compose.project":"homepage","com.docker.compose.service":"web"},
       "State":"running","Status":"Up 2 hours",
       "Mounts":[{"Type":"bind","Source":"/srv/homepage/config","Destination":"/app/config","Mode":"rw","RW":true},
                 {"Type":"volume","Name":"homepage_data","Source":"/var/lib/docker/volumes/homepage_data/_data","Destination":"/data","RW":false}]},
      {"Id":"feedfacecafebeef00000000000000000000000000000000000000000000000000",
       "Names":["/web/db","/db"],"Image":"postgres:16","State":"exited",
       "Status":"Exited (0) 3 days ago","Ports":[],"Labels":{},"Mounts":[]}
    ]"#;

    fn resources() -> Vec<Resource> {
        // As the client makes them: bollard's decoding, then Warden's view.
        let list: Vec<ContainerSummary> =
            serde_json::from_str::<Vec<bollard::models::ContainerSummary>>(RECORDED)
                .unwrap()
                .into_iter()
                .filter_map(ContainerSummary::from_engine)
                .collect();
        let host = ResourceId::global(ResourceKind::Host, "media");
        list.iter()
            .map(|c| container_resource("media", &host, c))
            .collect()
    }

    #[test]
    fn a_compose_container_with_mounts() {
        let r = &resources()[0];
        assert_eq!(
            serde_json::to_value(r).unwrap(),
            json!({
                "id": "docker_container:media:3f4e1c2b9a8d",
                "name": "homepage",
                "aliases": ["3f4e1c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"],
                "parent": "host:media",
                "status": "running",
                "attributes": {
                    "container_id": "3f4e1c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
                    "image": "ghcr.io/gethomepage/homepage:latest",
                    "status_text": "Up 2 hours",
                    "ports": ["0.0.0.0:3000->3000/tcp"],
                    "compose_project": "homepage",
                    "compose_service": "web",
                    "bind_mounts": [
                        {"source": "/srv/homepage/config", "destination": "/app/config", "read_only": false}
                    ],
                    "volumes": [
                        {"name": "homepage_data", "source": "/var/lib/docker/volumes/homepage_data/_data",
                         "destination": "/data", "read_only": true}
                    ]
                }
            })
        );
        assert_eq!(r.id.validate(), Ok(()));
    }

    #[test]
    fn link_names_become_aliases() {
        let r = &resources()[1];
        assert_eq!(r.id.to_string(), "docker_container:media:feedfacecafe");
        assert_eq!(r.name, "db");
        assert_eq!(r.aliases[0], "web/db");
        assert_eq!(r.status.as_deref(), Some("exited"));
        assert!(r.is_called("DB"));
        assert!(!r.attributes.contains_key("ports"));
        assert!(!r.attributes.contains_key("compose_project"));
    }
}
