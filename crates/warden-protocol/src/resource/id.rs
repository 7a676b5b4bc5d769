//! Canonical resource IDs: `{kind}:{uid}` for global kinds (`node:pve1`,
//! `host:web1`) and `{kind}:{host}:{provider_uid}` for scoped ones
//! (`lxc:pve1:141`, `docker_container:media-server:abc123`).
//!
//! Parsing rule: the kind ends at the first colon; for a scoped kind the host
//! ends at the second colon and the provider uid is *everything after it*, so
//! a uid may itself hold `:` or `/` (`k8s_pod:prod:default/api-0`,
//! `storage:pve1:local-zfs:vm-101-disk-0`). A global id's uid is everything
//! after the first colon. A host therefore never contains `:`, and no part may
//! be empty or contain whitespace or control characters, which is what makes
//! `Display` and `FromStr` exact inverses.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::kind::ResourceKind;

/// Why a string (or a set of parts) is not a canonical resource id. Every
/// variant names the offending text so a user or the model can fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum ResourceIdError {
    #[error("resource id is empty")]
    Empty,
    #[error("resource id `{id}` contains whitespace or a control character")]
    Whitespace { id: String },
    #[error("resource id `{id}` has no kind: expected `KIND:…` with KIND one of {kinds}", kinds = ResourceKind::names())]
    MissingKind { id: String },
    #[error("unknown resource kind `{kind}` in `{id}`: expected one of {kinds}", kinds = ResourceKind::names())]
    UnknownKind { id: String, kind: String },
    #[error("`{id}`: a {kind} id needs a host: `{kind}:HOST:ID`")]
    MissingHost { id: String, kind: ResourceKind },
    #[error("`{id}` has an empty host")]
    EmptyHost { id: String },
    #[error("`{id}` has an empty uid")]
    EmptyUid { id: String },
    #[error("a {kind} id is global and takes no host (got host `{host}`): `{kind}:ID`")]
    UnexpectedHost { kind: ResourceKind, host: String },
    #[error("host `{host}` contains `:`; only the uid may")]
    ColonInHost { host: String },
}

/// A resource's canonical identity. The fields are public for matching; build
/// ids with [`ResourceId::new`] (checked) or by parsing, so that `Display`
/// round-trips. Serialised as the canonical string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId {
    pub kind: ResourceKind,
    /// The host part of a scoped id; `None` for global kinds.
    pub host: Option<String>,
    pub uid: String,
}

fn is_bad_char(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

impl ResourceId {
    /// A global id (`node:pve1`). Unchecked: for literals known to be valid.
    pub fn global(kind: ResourceKind, uid: impl Into<String>) -> Self {
        ResourceId {
            kind,
            host: None,
            uid: uid.into(),
        }
    }

    /// A scoped id (`lxc:pve1:141`). Unchecked: for literals known to be valid.
    pub fn scoped(kind: ResourceKind, host: impl Into<String>, uid: impl Into<String>) -> Self {
        ResourceId {
            kind,
            host: Some(host.into()),
            uid: uid.into(),
        }
    }

    /// A checked id: the host is present exactly when the kind is scoped,
    /// and the parts would survive a `Display`/`FromStr` round trip.
    pub fn new(
        kind: ResourceKind,
        host: Option<String>,
        uid: impl Into<String>,
    ) -> Result<Self, ResourceIdError> {
        let id = ResourceId {
            kind,
            host,
            uid: uid.into(),
        };
        id.validate()?;
        Ok(id)
    }

    /// Checks the invariants that parsing guarantees (for ids built by hand).
    pub fn validate(&self) -> Result<(), ResourceIdError> {
        match (&self.host, self.kind.is_scoped()) {
            (Some(host), false) => {
                return Err(ResourceIdError::UnexpectedHost {
                    kind: self.kind,
                    host: host.clone(),
                });
            }
            (None, true) => {
                return Err(ResourceIdError::MissingHost {
                    id: self.to_string(),
                    kind: self.kind,
                });
            }
            (Some(host), true) => {
                if host.is_empty() {
                    return Err(ResourceIdError::EmptyHost {
                        id: self.to_string(),
                    });
                }
                if host.contains(':') {
                    return Err(ResourceIdError::ColonInHost { host: host.clone() });
                }
            }
            (None, false) => {}
        }
        if self.uid.is_empty() {
            return Err(ResourceIdError::EmptyUid {
                id: self.to_string(),
            });
        }
        let host = self.host.as_deref().unwrap_or("");
        if host.chars().chain(self.uid.chars()).any(is_bad_char) {
            return Err(ResourceIdError::Whitespace {
                id: self.to_string(),
            });
        }
        Ok(())
    }

    /// The host part (`pve1` in `lxc:pve1:141`); `None` for global ids.
    pub fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }
}

impl fmt::Display for ResourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            Some(host) => write!(f, "{}:{}:{}", self.kind, host, self.uid),
            None => write!(f, "{}:{}", self.kind, self.uid),
        }
    }
}

impl FromStr for ResourceId {
    type Err = ResourceIdError;

    fn from_str(id: &str) -> Result<Self, Self::Err> {
        if id.is_empty() {
            return Err(ResourceIdError::Empty);
        }
        if id.chars().any(is_bad_char) {
            return Err(ResourceIdError::Whitespace { id: id.to_string() });
        }
        let Some((kind_text, rest)) = id.split_once(':') else {
            return Err(ResourceIdError::MissingKind { id: id.to_string() });
        };
        let kind: ResourceKind = kind_text
            .parse()
            .map_err(|_| ResourceIdError::UnknownKind {
                id: id.to_string(),
                kind: kind_text.to_string(),
            })?;
        if !kind.is_scoped() {
            if rest.is_empty() {
                return Err(ResourceIdError::EmptyUid { id: id.to_string() });
            }
            return Ok(ResourceId::global(kind, rest));
        }
        let Some((host, uid)) = rest.split_once(':') else {
            return Err(ResourceIdError::MissingHost {
                id: id.to_string(),
                kind,
            });
        };
        if host.is_empty() {
            return Err(ResourceIdError::EmptyHost { id: id.to_string() });
        }
        if uid.is_empty() {
            return Err(ResourceIdError::EmptyUid { id: id.to_string() });
        }
        Ok(ResourceId::scoped(kind, host, uid))
    }
}

impl Serialize for ResourceId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ResourceId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn examples_parse() {
        let id: ResourceId = "lxc:pve1:141".parse().unwrap();
        assert_eq!(id, ResourceId::scoped(ResourceKind::Lxc, "pve1", "141"));
        assert_eq!(id.host(), Some("pve1"));
        let id: ResourceId = "node:pve1".parse().unwrap();
        assert_eq!(id, ResourceId::global(ResourceKind::Node, "pve1"));
        assert_eq!(id.host(), None);
        let id: ResourceId = "host:web1".parse().unwrap();
        assert_eq!(id, ResourceId::global(ResourceKind::Host, "web1"));
        let id: ResourceId = "k8s_pod:prod:default/api-0".parse().unwrap();
        assert_eq!(id.host(), Some("prod"));
        assert_eq!(id.uid, "default/api-0");
        let id: ResourceId = "docker_container:media-server:abc:123".parse().unwrap();
        assert_eq!(id.uid, "abc:123");
        // A global uid keeps its colons too.
        let id: ResourceId = "host:fe80::1".parse().unwrap();
        assert_eq!(id, ResourceId::global(ResourceKind::Host, "fe80::1"));
    }

    #[test]
    fn errors_name_the_problem() {
        let cases = [
            ("", "resource id is empty"),
            ("pve1", "resource id `pve1` has no kind"),
            ("box:pve1", "unknown resource kind `box` in `box:pve1`"),
            ("LXC:pve1:141", "unknown resource kind `LXC`"),
            ("lxc:141", "`lxc:141`: a lxc id needs a host: `lxc:HOST:ID`"),
            ("lxc::141", "`lxc::141` has an empty host"),
            ("lxc:pve1:", "`lxc:pve1:` has an empty uid"),
            ("node:", "`node:` has an empty uid"),
            (
                "node:pve 1",
                "resource id `node:pve 1` contains whitespace or a control character",
            ),
            (" node:pve1", "contains whitespace"),
            ("node:pve1\n", "contains whitespace"),
        ];
        for (text, expected) in cases {
            let err = text.parse::<ResourceId>().unwrap_err().to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
        let err = "vmm:pve1:101"
            .parse::<ResourceId>()
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected one of host, node, vm, lxc"), "{err}");
    }

    #[test]
    fn typed_errors() {
        assert_eq!(
            "lxc:141".parse::<ResourceId>(),
            Err(ResourceIdError::MissingHost {
                id: "lxc:141".into(),
                kind: ResourceKind::Lxc
            })
        );
        assert_eq!(
            "box:1".parse::<ResourceId>(),
            Err(ResourceIdError::UnknownKind {
                id: "box:1".into(),
                kind: "box".into()
            })
        );
    }

    #[test]
    fn checked_construction() {
        assert_eq!(
            ResourceId::new(ResourceKind::Lxc, Some("pve1".into()), "141"),
            Ok(ResourceId::scoped(ResourceKind::Lxc, "pve1", "141"))
        );
        let cases = [
            (
                ResourceKind::Node,
                Some("x"),
                "pve1",
                "is global and takes no host",
            ),
            (ResourceKind::Vm, None, "101", "needs a host"),
            (ResourceKind::Vm, Some(""), "101", "empty host"),
            (
                ResourceKind::Vm,
                Some("a:b"),
                "101",
                "host `a:b` contains `:`",
            ),
            (ResourceKind::Vm, Some("pve1"), "", "empty uid"),
            (ResourceKind::Host, None, "web 1", "whitespace"),
            (ResourceKind::Vm, Some("pve\t1"), "101", "whitespace"),
        ];
        for (kind, host, uid, expected) in cases {
            let err = ResourceId::new(kind, host.map(str::to_string), uid)
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{kind} {host:?} {uid}: {err}");
        }
    }

    #[test]
    fn serde_uses_the_canonical_string() {
        let id = ResourceId::scoped(ResourceKind::Vm, "pve1", "101");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"vm:pve1:101\"");
        assert_eq!(
            serde_json::from_str::<ResourceId>("\"vm:pve1:101\"").unwrap(),
            id
        );
        let err = serde_json::from_str::<ResourceId>("\"vm:101\"").unwrap_err();
        assert!(err.to_string().contains("needs a host"), "{err}");
        assert!(serde_json::from_str::<ResourceId>("101").is_err());
    }

    #[test]
    fn errors_serialise() {
        let err = ResourceIdError::EmptyHost {
            id: "lxc::1".into(),
        };
        let v = serde_json::to_value(&err).unwrap();
        assert_eq!(v, serde_json::json!({"EmptyHost": {"id": "lxc::1"}}));
        assert_eq!(serde_json::from_value::<ResourceIdError>(v).unwrap(), err);
    }

    /// A host part: anything but `:`, whitespace and control characters.
    fn host_part() -> impl Strategy<Value = String> {
        "[^:\\s\\p{Cc}]{1,12}"
    }

    /// A uid: like a host, but colons and slashes are welcome.
    fn uid_part() -> impl Strategy<Value = String> {
        "[^\\s\\p{Cc}]{1,24}"
    }

    fn any_valid_id() -> impl Strategy<Value = ResourceId> {
        (
            prop::sample::select(ResourceKind::ALL.to_vec()),
            host_part(),
            uid_part(),
        )
            .prop_map(|(kind, host, uid)| {
                if kind.is_scoped() {
                    ResourceId::scoped(kind, host, uid)
                } else {
                    ResourceId::global(kind, uid)
                }
            })
    }

    proptest! {
        #[test]
        fn display_parse_round_trip(id in any_valid_id()) {
            prop_assert_eq!(id.validate(), Ok(()));
            prop_assert_eq!(id.to_string().parse::<ResourceId>(), Ok(id.clone()));
            let json = serde_json::to_string(&id).unwrap();
            prop_assert_eq!(serde_json::from_str::<ResourceId>(&json).unwrap(), id);
        }

        #[test]
        fn parsing_is_total_and_canonical(text in "\\PC{0,30}|[a-z_0-9]{2,16}:[^\\s]{0,10}(:[^\\s]{0,10})?") {
            // Never panics; whatever parses displays back to the same text.
            if let Ok(id) = text.parse::<ResourceId>() {
                prop_assert_eq!(id.to_string(), text);
                prop_assert_eq!(id.validate(), Ok(()));
            }
        }
    }
}
