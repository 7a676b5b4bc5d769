//! `/cluster/resources` → Warden resources. Pure: JSON in, typed entries and
//! [`Resource`]s out. Numbers as strings, 0/1 booleans and missing optional
//! keys are normal; an entry missing what identifies it is skipped and
//! reported, never fatal for the rest.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Map, Value, json};
use warden_protocol::{Resource, ResourceId, ResourceKind};

use super::client::ApiPath;
use super::values::{bool_field, float_field, split_tags, text_field, uint_field};

/// The two kinds of Proxmox guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GuestKind {
    Qemu,
    Lxc,
}

impl GuestKind {
    /// The API path segment (`qemu`, `lxc`).
    pub fn api_segment(self) -> &'static str {
        match self {
            GuestKind::Qemu => "qemu",
            GuestKind::Lxc => "lxc",
        }
    }

    pub fn resource_kind(self) -> ResourceKind {
        match self {
            GuestKind::Qemu => ResourceKind::Vm,
            GuestKind::Lxc => ResourceKind::Lxc,
        }
    }

    pub fn from_resource_kind(kind: ResourceKind) -> Option<Self> {
        match kind {
            ResourceKind::Vm => Some(GuestKind::Qemu),
            ResourceKind::Lxc => Some(GuestKind::Lxc),
            ResourceKind::Host
            | ResourceKind::Node
            | ResourceKind::DockerHost
            | ResourceKind::DockerContainer
            | ResourceKind::K8sCluster
            | ResourceKind::K8sNode
            | ResourceKind::K8sPod
            | ResourceKind::Storage => None,
        }
    }
}

/// A VM or container as `/cluster/resources` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GuestInfo {
    pub kind: GuestKind,
    pub node: String,
    pub vmid: u32,
    pub name: String,
    pub status: Option<String>,
    pub tags: Vec<String>,
    pub lock: Option<String>,
    pub template: bool,
    /// HA state when the guest is HA-managed (`started`, `stopped`, `error`, …).
    pub ha_state: Option<String>,
    pub pool: Option<String>,
    pub maxcpu: Option<f64>,
    pub maxmem: Option<u64>,
    pub maxdisk: Option<u64>,
    pub uptime: Option<u64>,
}

impl GuestInfo {
    /// `vm:{node}:{vmid}` or `lxc:{node}:{vmid}`.
    pub fn resource_id(&self) -> ResourceId {
        ResourceId::scoped(self.kind.resource_kind(), &self.node, self.vmid.to_string())
    }

    /// `/nodes/{node}/{qemu|lxc}/{vmid}`.
    pub fn api_path(&self) -> ApiPath {
        ApiPath::new([
            "nodes".to_string(),
            self.node.clone(),
            self.kind.api_segment().to_string(),
            self.vmid.to_string(),
        ])
    }
}

/// A cluster node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeInfo {
    pub name: String,
    /// `online`, `offline` or `unknown`.
    pub status: Option<String>,
    pub maxcpu: Option<f64>,
    pub maxmem: Option<u64>,
    pub uptime: Option<u64>,
}

impl NodeInfo {
    pub fn is_online(&self) -> bool {
        self.status.as_deref() == Some("online")
    }
}

/// A storage as seen from one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StorageInfo {
    pub node: String,
    pub storage: String,
    pub status: Option<String>,
    pub plugin_type: Option<String>,
    pub content: Vec<String>,
    pub shared: bool,
    pub used_bytes: Option<u64>,
    pub total_bytes: Option<u64>,
}

/// An entry left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedEntry {
    pub index: usize,
    pub id: Option<String>,
    pub reason: String,
}

/// What `/cluster/resources` held.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClusterResources {
    pub nodes: Vec<NodeInfo>,
    pub guests: Vec<GuestInfo>,
    pub storages: Vec<StorageInfo>,
    /// Entries with a type Warden does not model (pool, sdn, network, …).
    pub other_types: usize,
    pub skipped: Vec<SkippedEntry>,
}

/// Why the answer as a whole is unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("/cluster/resources did not answer a list (got {got})")]
pub struct NotAList {
    pub got: String,
}

/// Parses the `data` of `GET /cluster/resources`.
pub fn parse_cluster_resources(data: &Value) -> Result<ClusterResources, NotAList> {
    let Some(items) = data.as_array() else {
        let mut got = data.to_string();
        got.truncate(80);
        return Err(NotAList { got });
    };
    let mut out = ClusterResources::default();
    for (index, item) in items.iter().enumerate() {
        let skip = |reason: &str| SkippedEntry {
            index,
            id: text_field(item, "id"),
            reason: reason.to_string(),
        };
        let Some(kind) = text_field(item, "type") else {
            out.skipped.push(skip("no `type`"));
            continue;
        };
        match kind.as_str() {
            "node" => match text_field(item, "node").filter(|n| valid_node(n)) {
                Some(name) => out.nodes.push(NodeInfo {
                    name,
                    status: text_field(item, "status"),
                    maxcpu: float_field(item, "maxcpu"),
                    maxmem: uint_field(item, "maxmem"),
                    uptime: uint_field(item, "uptime"),
                }),
                None => out
                    .skipped
                    .push(skip("a node without a usable `node` name")),
            },
            "qemu" | "lxc" => match parse_guest(item, &kind) {
                Ok(guest) => out.guests.push(guest),
                Err(reason) => out.skipped.push(skip(reason)),
            },
            "storage" => {
                let node = text_field(item, "node").filter(|n| valid_node(n));
                let storage = text_field(item, "storage").filter(|s| valid_part(s));
                match (node, storage) {
                    (Some(node), Some(storage)) => out.storages.push(StorageInfo {
                        node,
                        storage,
                        status: text_field(item, "status"),
                        plugin_type: text_field(item, "plugintype"),
                        content: text_field(item, "content")
                            .map(|c| split_tags(&c))
                            .unwrap_or_default(),
                        shared: bool_field(item, "shared").unwrap_or(false),
                        used_bytes: uint_field(item, "disk"),
                        total_bytes: uint_field(item, "maxdisk"),
                    }),
                    _ => out
                        .skipped
                        .push(skip("a storage without `node` and `storage`")),
                }
            }
            _ => out.other_types += 1,
        }
    }
    Ok(out)
}

fn parse_guest(item: &Value, kind: &str) -> Result<GuestInfo, &'static str> {
    let kind = if kind == "qemu" {
        GuestKind::Qemu
    } else {
        GuestKind::Lxc
    };
    let vmid = uint_field(item, "vmid")
        .or_else(|| {
            // `id` is `qemu/101`: a vmid can be recovered from it.
            text_field(item, "id")
                .and_then(|id| id.rsplit_once('/').and_then(|(_, n)| n.parse().ok()))
        })
        .and_then(|n| u32::try_from(n).ok())
        .ok_or("a guest without a numeric `vmid`")?;
    let node = text_field(item, "node")
        .filter(|n| valid_node(n))
        .ok_or("a guest without a usable `node`")?;
    let name = text_field(item, "name")
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| match kind {
            GuestKind::Qemu => format!("VM {vmid}"),
            GuestKind::Lxc => format!("CT {vmid}"),
        });
    Ok(GuestInfo {
        kind,
        node,
        vmid,
        name,
        status: text_field(item, "status"),
        tags: text_field(item, "tags")
            .map(|t| split_tags(&t))
            .unwrap_or_default(),
        lock: text_field(item, "lock").filter(|l| !l.is_empty()),
        template: bool_field(item, "template").unwrap_or(false),
        ha_state: text_field(item, "hastate").filter(|s| !s.is_empty()),
        pool: text_field(item, "pool").filter(|p| !p.is_empty()),
        maxcpu: float_field(item, "maxcpu"),
        maxmem: uint_field(item, "maxmem"),
        maxdisk: uint_field(item, "maxdisk"),
        uptime: uint_field(item, "uptime"),
    })
}

/// A node name usable as an id part: non-empty, no `:`, no whitespace.
fn valid_node(name: &str) -> bool {
    valid_part(name) && !name.contains(':')
}

fn valid_part(text: &str) -> bool {
    !text.is_empty() && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// The parsed entries as Warden resources (source `proxmox`), parents set:
/// a guest's and a storage's parent is its node. Guests get their vmid as an
/// alias, and each tag that no other guest carries (a shared tag would make
/// the name ambiguous).
pub fn to_resources(cluster: &str, parsed: &ClusterResources) -> Vec<Resource> {
    let mut tag_count: HashMap<&str, usize> = HashMap::new();
    for guest in &parsed.guests {
        for tag in &guest.tags {
            *tag_count.entry(tag.as_str()).or_default() += 1;
        }
    }
    let mut out =
        Vec::with_capacity(parsed.nodes.len() + parsed.guests.len() + parsed.storages.len());
    for node in &parsed.nodes {
        let mut resource = Resource::new(
            ResourceId::global(ResourceKind::Node, &node.name),
            &node.name,
        );
        resource.status = node.status.clone();
        resource.attributes = attributes(
            cluster,
            &[
                ("maxcpu", node.maxcpu.map(|v| json!(v))),
                ("maxmem", node.maxmem.map(|v| json!(v))),
                ("uptime", node.uptime.map(|v| json!(v))),
            ],
        );
        out.push(resource);
    }
    let offline: HashMap<&str, &str> = parsed
        .nodes
        .iter()
        .filter(|n| !n.is_online())
        .map(|n| (n.name.as_str(), n.status.as_deref().unwrap_or("unknown")))
        .collect();
    for guest in &parsed.guests {
        let mut resource = Resource::new(guest.resource_id(), &guest.name);
        let vmid = guest.vmid.to_string();
        resource.aliases.push(vmid);
        for tag in &guest.tags {
            let unique = tag_count.get(tag.as_str()) == Some(&1);
            if unique && !tag.eq_ignore_ascii_case(&guest.name) {
                resource.aliases.push(tag.clone());
            }
        }
        resource.parent = Some(ResourceId::global(ResourceKind::Node, &guest.node));
        resource.status = guest.status.clone();
        resource.attributes = attributes(
            cluster,
            &[
                ("vmid", Some(json!(guest.vmid))),
                ("node", Some(json!(guest.node))),
                ("tags", (!guest.tags.is_empty()).then(|| json!(guest.tags))),
                ("lock", guest.lock.as_ref().map(|v| json!(v))),
                ("template", guest.template.then_some(json!(true))),
                ("ha_state", guest.ha_state.as_ref().map(|v| json!(v))),
                ("pool", guest.pool.as_ref().map(|v| json!(v))),
                ("maxcpu", guest.maxcpu.map(|v| json!(v))),
                ("maxmem", guest.maxmem.map(|v| json!(v))),
                ("maxdisk", guest.maxdisk.map(|v| json!(v))),
                // Its node does not answer: the status is not current.
                (
                    "node_status",
                    offline.get(guest.node.as_str()).map(|s| json!(s)),
                ),
            ],
        );
        out.push(resource);
    }
    for storage in &parsed.storages {
        let id = ResourceId::scoped(ResourceKind::Storage, &storage.node, &storage.storage);
        let mut resource = Resource::new(id, &storage.storage);
        resource.parent = Some(ResourceId::global(ResourceKind::Node, &storage.node));
        resource.status = storage.status.clone();
        resource.attributes = attributes(
            cluster,
            &[
                (
                    "plugin_type",
                    storage.plugin_type.as_ref().map(|v| json!(v)),
                ),
                (
                    "content",
                    (!storage.content.is_empty()).then(|| json!(storage.content)),
                ),
                ("shared", storage.shared.then_some(json!(true))),
                ("used_bytes", storage.used_bytes.map(|v| json!(v))),
                ("total_bytes", storage.total_bytes.map(|v| json!(v))),
            ],
        );
        out.push(resource);
    }
    out
}

fn attributes(cluster: &str, fields: &[(&str, Option<Value>)]) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("cluster".into(), json!(cluster));
    for (key, value) in fields {
        if let Some(value) = value {
            map.insert((*key).to_string(), value.clone());
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Value {
        json!([
            {"id": "node/pve1", "type": "node", "node": "pve1", "status": "online", "maxcpu": 8, "maxmem": "34359738368", "uptime": 3600},
            {"id": "node/pve2", "type": "node", "node": "pve2", "status": "offline"},
            {"id": "qemu/101", "type": "qemu", "node": "pve1", "vmid": 101, "name": "jellyfin", "status": "running",
             "tags": "media;prod", "template": 0, "hastate": "started", "maxmem": 4294967296_u64},
            {"id": "lxc/141", "type": "lxc", "node": "pve1", "vmid": "141", "name": "homepage-docker", "status": "running",
             "tags": "homepage,prod", "lock": "backup", "template": "0"},
            {"id": "qemu/9000", "type": "qemu", "node": "pve2", "vmid": 9000, "name": "debian-tmpl", "status": "stopped", "template": 1},
            {"id": "qemu/102", "type": "qemu", "node": "pve1", "vmid": 102, "status": "stopped"},
            {"id": "storage/pve1/local-zfs", "type": "storage", "node": "pve1", "storage": "local-zfs",
             "status": "available", "plugintype": "zfspool", "content": "images,rootdir", "shared": 0, "disk": 10, "maxdisk": "100"},
            {"id": "pool/prod", "type": "pool", "pool": "prod"},
            {"id": "sdn/pve1/localnetwork", "type": "sdn", "node": "pve1"},
            {"id": "qemu/x", "type": "qemu", "node": "pve1"},
            {"id": "lxc/5", "type": "lxc", "vmid": 5},
            {"id": "?"}
        ])
    }

    #[test]
    fn entries_are_parsed_tolerantly() {
        let parsed = parse_cluster_resources(&sample()).unwrap();
        assert_eq!(parsed.nodes.len(), 2);
        assert_eq!(parsed.nodes[0].maxmem, Some(34359738368));
        assert!(parsed.nodes[0].is_online() && !parsed.nodes[1].is_online());
        assert_eq!(parsed.guests.len(), 4);
        let ct = &parsed.guests[1];
        assert_eq!(
            (ct.kind, ct.vmid, ct.lock.as_deref()),
            (GuestKind::Lxc, 141, Some("backup"))
        );
        assert_eq!(ct.tags, vec!["homepage", "prod"]);
        assert!(parsed.guests[2].template);
        assert_eq!(parsed.guests[0].ha_state.as_deref(), Some("started"));
        assert_eq!(parsed.guests[3].name, "VM 102");
        assert_eq!(parsed.storages.len(), 1);
        assert_eq!(parsed.storages[0].total_bytes, Some(100));
        assert_eq!(parsed.storages[0].content, vec!["images", "rootdir"]);
        assert_eq!(parsed.other_types, 2);
        let reasons: Vec<&str> = parsed.skipped.iter().map(|s| s.reason.as_str()).collect();
        assert_eq!(
            reasons,
            vec![
                "a guest without a numeric `vmid`",
                "a guest without a usable `node`",
                "no `type`"
            ]
        );
        assert_eq!(parsed.skipped[0].id.as_deref(), Some("qemu/x"));
    }

    #[test]
    fn resources_have_ids_parents_and_aliases() {
        let parsed = parse_cluster_resources(&sample()).unwrap();
        let resources = to_resources("homelab", &parsed);
        let get = |id: &str| resources.iter().find(|r| r.id.to_string() == id).unwrap();
        let node = get("node:pve1");
        assert_eq!(node.status.as_deref(), Some("online"));
        assert_eq!(node.parent, None);
        let vm = get("vm:pve1:101");
        assert_eq!(vm.name, "jellyfin");
        assert_eq!(vm.parent.as_ref().unwrap().to_string(), "node:pve1");
        // `media` is this guest's alone; `prod` is shared, so not an alias.
        assert_eq!(vm.aliases, vec!["101", "media"]);
        assert_eq!(vm.attributes["ha_state"], "started");
        assert_eq!(vm.attributes["cluster"], "homelab");
        let ct = get("lxc:pve1:141");
        // `homepage` is unique to it: "restart homepage" finds homepage-docker.
        assert!(ct.is_called("homepage"));
        assert_eq!(ct.attributes["lock"], "backup");
        assert_eq!(get("vm:pve2:9000").attributes["template"], true);
        // A guest on an offline node says so; one on an online node does not.
        assert_eq!(get("vm:pve2:9000").attributes["node_status"], "offline");
        assert!(!vm.attributes.contains_key("node_status"));
        let storage = get("storage:pve1:local-zfs");
        assert_eq!(storage.parent.as_ref().unwrap().to_string(), "node:pve1");
        for r in &resources {
            r.id.validate().unwrap();
        }
    }

    #[test]
    fn a_non_list_answer_is_an_error() {
        let err = parse_cluster_resources(&json!({"x": 1})).unwrap_err();
        assert!(err.to_string().contains("did not answer a list"));
    }

    fn loose_number() -> impl Strategy<Value = Value> {
        prop_oneof![
            (0u32..100_000).prop_map(|n| json!(n)),
            (0u32..100_000).prop_map(|n| json!(n.to_string())),
            Just(Value::Null),
        ]
    }

    fn guest_entry() -> impl Strategy<Value = Value> {
        (
            prop::sample::select(vec!["qemu", "lxc"]),
            prop::option::of("[a-z][a-z0-9-]{0,8}"),
            prop::option::of(100u32..1_000_000),
            prop::bool::ANY,
            prop::option::of(prop_oneof![
                Just(json!(0)),
                Just(json!(1)),
                Just(json!("1")),
                Just(json!(true))
            ]),
            prop::option::of("[a-z;, ]{0,12}"),
            loose_number(),
        )
            .prop_map(|(kind, node, vmid, vmid_as_text, template, tags, maxmem)| {
                let mut item = json!({"type": kind, "maxmem": maxmem});
                if let Some(node) = node {
                    item["node"] = json!(node);
                }
                if let Some(vmid) = vmid {
                    item["vmid"] = if vmid_as_text {
                        json!(vmid.to_string())
                    } else {
                        json!(vmid)
                    };
                }
                if let Some(template) = template {
                    item["template"] = template;
                }
                if let Some(tags) = tags {
                    item["tags"] = json!(tags);
                }
                item
            })
    }

    proptest! {
        /// Every entry is either a guest or skipped with a reason; every id
        /// made is valid and parents exist as ids of nodes.
        #[test]
        fn every_entry_is_accounted_for(items in prop::collection::vec(guest_entry(), 0..30)) {
            let data = Value::Array(items.clone());
            let parsed = parse_cluster_resources(&data).unwrap();
            prop_assert_eq!(parsed.guests.len() + parsed.skipped.len(), items.len());
            for resource in to_resources("c", &parsed) {
                prop_assert_eq!(resource.id.validate(), Ok(()));
                prop_assert_eq!(resource.parent.as_ref().map(|p| p.kind), Some(ResourceKind::Node));
                prop_assert_eq!(resource.id.to_string().parse::<ResourceId>(), Ok(resource.id.clone()));
            }
        }
    }
}
