//! The resource model (DESIGN "Resource model"): kinds, canonical ids, and
//! resources as inventory sources report them.

mod id;
mod kind;

pub use id::{ResourceId, ResourceIdError};
pub use kind::{ResourceKind, UnknownResourceKind};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A resource as an inventory source reports it. Empty and absent fields are
/// omitted on the wire, matching the scenario files' inventory entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    pub id: ResourceId,
    /// What people call it (`homepage-docker`); matched by names and @mentions.
    pub name: String,
    /// Other names that resolve to it (`homepage`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// What it runs on (`node:pve1` for `lxc:pve1:141`): the routing chain's
    /// next hop, and what context binding checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ResourceId>,
    /// Provider status (`running`, `stopped`, …), verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Provider-specific facts (IP, image, bind mounts, …).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub attributes: Map<String, Value>,
}

impl Resource {
    /// A resource with only an id and a name.
    pub fn new(id: ResourceId, name: impl Into<String>) -> Self {
        Resource {
            id,
            name: name.into(),
            aliases: Vec::new(),
            parent: None,
            status: None,
            attributes: Map::new(),
        }
    }

    /// Whether `name` is its name or one of its aliases (ASCII case-insensitive,
    /// since people type `Homepage` for `homepage`).
    pub fn is_called(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn minimal_resource_json() {
        let r = Resource::new(ResourceId::global(ResourceKind::Node, "pve1"), "pve1");
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v, json!({"id": "node:pve1", "name": "pve1"}));
        assert_eq!(serde_json::from_value::<Resource>(v).unwrap(), r);
    }

    #[test]
    fn full_resource_json() {
        let mut r = Resource::new(
            ResourceId::scoped(ResourceKind::Lxc, "pve1", "141"),
            "homepage-docker",
        );
        r.aliases = vec!["homepage".into()];
        r.parent = Some(ResourceId::global(ResourceKind::Node, "pve1"));
        r.status = Some("running".into());
        r.attributes.insert("ip".into(), json!("10.0.0.41"));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({
                "id": "lxc:pve1:141",
                "name": "homepage-docker",
                "aliases": ["homepage"],
                "parent": "node:pve1",
                "status": "running",
                "attributes": {"ip": "10.0.0.41"}
            })
        );
        assert_eq!(serde_json::from_value::<Resource>(v).unwrap(), r);
        assert!(r.is_called("Homepage"));
        assert!(r.is_called("homepage-docker"));
        assert!(!r.is_called("home"));
    }

    #[test]
    fn a_bad_id_in_an_inventory_names_the_problem() {
        let err = serde_json::from_value::<Resource>(json!({"id": "lxc:141", "name": "x"}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("needs a host"), "{err}");
    }
}
