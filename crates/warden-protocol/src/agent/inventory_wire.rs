//! Resources in `inventory` frames, written as api.md shows them:
//! `{"id", "kind", "name", "aliases", "parent", "status", "host", "source",
//! "attributes"}` with `source` `"agent"`. Reading goes through
//! [`Resource`]'s own `Deserialize`, which ignores the derived fields.

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{Resource, ResourceId, ResourceKind};

#[derive(Serialize)]
struct ApiResource<'a> {
    id: &'a ResourceId,
    kind: ResourceKind,
    name: &'a str,
    aliases: &'a [String],
    parent: Option<&'a ResourceId>,
    status: Option<&'a str>,
    host: Option<&'a str>,
    source: &'static str,
    #[serde(skip_serializing_if = "Map::is_empty")]
    attributes: &'a Map<String, Value>,
}

impl<'a> From<&'a Resource> for ApiResource<'a> {
    fn from(resource: &'a Resource) -> Self {
        ApiResource {
            id: &resource.id,
            kind: resource.id.kind,
            name: &resource.name,
            aliases: &resource.aliases,
            parent: resource.parent.as_ref(),
            status: resource.status.as_deref(),
            host: resource.id.host(),
            source: "agent",
            attributes: &resource.attributes,
        }
    }
}

pub(crate) fn serialize_resources<S: Serializer>(
    resources: &[Resource],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(resources.iter().map(ApiResource::from))
}
