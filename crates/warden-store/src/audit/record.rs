//! One audit record as stored, served and exported, and how its hash is
//! computed: `hash = SHA-256(prev_hash ‖ canonical JSON of every other field)`
//! (hex), the canonical JSON having its keys sorted and no whitespace. The
//! same code checks records read from the database and from an export.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use warden_protocol::AuditRecord;

/// The hash before the first record.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What records written before schema version 3 name as their actor.
pub(crate) const LEGACY_ACTOR: &str = "unknown";

/// A record in the chain. Serialised, this is the API's `AuditRecord`
/// (`seq`, `at`, the record's fields, `hash`) plus `prev_hash`, and, for
/// records written before schema version 3, `legacy_record`: the exact
/// text their older hash covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// 1, 2, 3, … without gaps.
    pub seq: u64,
    /// RFC 3339 UTC with milliseconds: `2026-11-23T10:00:00.123Z`.
    pub at: String,
    #[serde(flatten)]
    pub record: AuditRecord,
    pub prev_hash: String,
    pub hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_record: Option<String>,
}

/// Why one record does not check out on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EntryFault {
    /// Its hash is not the hash of its contents.
    HashMismatch,
    /// A pre-version-3 record whose fields differ from the text its hash covers.
    LegacyFieldsDiffer,
    /// A pre-version-3 record whose covered text is not a record.
    LegacyUnreadable(String),
}

/// `at_ms` (milliseconds since the Unix epoch) as the `at` every record shows
/// and hashes.
pub fn format_at(at_ms: i64) -> Result<String, jiff::Error> {
    let at = jiff::Timestamp::from_millisecond(at_ms)?;
    Ok(format!("{at:.3}"))
}

/// JSON with object keys sorted and no whitespace (one implementation,
/// shared with grant signatures).
pub(crate) use warden_protocol::canonical_json;

fn sha256_hex(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The hash of a record at `seq`, written `at`, following `prev_hash`.
pub(crate) fn record_hash(prev_hash: &str, seq: u64, at: &str, record: &AuditRecord) -> String {
    let mut fields = match serde_json::to_value(record) {
        Ok(Value::Object(map)) => map,
        // A struct of strings and integers always serialises to an object.
        _ => serde_json::Map::new(),
    };
    fields.insert("seq".into(), Value::from(seq));
    fields.insert("at".into(), Value::from(at));
    let canonical = canonical_json(&Value::Object(fields));
    sha256_hex(&[prev_hash.as_bytes(), canonical.as_bytes()])
}

/// The hash records written before schema version 3 carry: the previous
/// hash, a newline and the record's JSON text (seq and time not covered).
fn legacy_hash(prev_hash: &str, text: &str) -> String {
    sha256_hex(&[prev_hash.as_bytes(), b"\n", text.as_bytes()])
}

/// A pre-version-3 record as its text was written.
#[derive(Deserialize)]
struct LegacyRecord {
    session_id: String,
    tool: String,
    target: Option<String>,
    decision: String,
    code: Option<String>,
    summary: String,
    duration_ms: u64,
}

/// The fields a pre-version-3 record's text holds, as a current record.
pub(crate) fn legacy_fields(text: &str) -> Result<AuditRecord, String> {
    let old: LegacyRecord = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(AuditRecord {
        session_id: old.session_id,
        actor: LEGACY_ACTOR.to_string(),
        tool: old.tool,
        target: old.target,
        decision: old.decision,
        code: old.code,
        command: old.summary,
        reason: None,
        duration_ms: old.duration_ms,
    })
}

impl AuditEntry {
    /// The hash this record should carry, given its `prev_hash`.
    pub(crate) fn expected_hash(&self) -> String {
        match &self.legacy_record {
            Some(text) => legacy_hash(&self.prev_hash, text),
            None => record_hash(&self.prev_hash, self.seq, &self.at, &self.record),
        }
    }

    /// Whether the record is what its hash says (its place in the chain
    /// is checked by the caller).
    pub(crate) fn check(&self) -> Result<(), EntryFault> {
        if self.expected_hash() != self.hash {
            return Err(EntryFault::HashMismatch);
        }
        if let Some(text) = &self.legacy_record {
            let fields = legacy_fields(text).map_err(EntryFault::LegacyUnreadable)?;
            if fields != self.record {
                return Err(EntryFault::LegacyFieldsDiffer);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record() -> AuditRecord {
        AuditRecord {
            session_id: "s".into(),
            actor: "assistant".into(),
            tool: "read".into(),
            target: Some("host:web1".into()),
            decision: "executed".into(),
            code: None,
            command: "uptime".into(),
            reason: None,
            duration_ms: 3,
        }
    }

    #[test]
    fn times_have_milliseconds_in_utc() {
        assert_eq!(format_at(0).unwrap(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            format_at(1_795_000_000_123).unwrap(),
            "2026-11-18T11:06:40.123Z"
        );
        assert!(format_at(i64::MAX).is_err());
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let value = json!({"b": 1, "a": {"d": [true, null, "x\"y"], "c": 2.5}});
        assert_eq!(
            canonical_json(&value),
            r#"{"a":{"c":2.5,"d":[true,null,"x\"y"]},"b":1}"#
        );
    }

    #[test]
    fn the_hash_covers_every_field_seq_and_time() {
        let base = record_hash(GENESIS_HASH, 1, "1970-01-01T00:00:00.000Z", &record());
        // Pinned: a third party recomputes it from the exported line.
        let canonical = r#"{"actor":"assistant","at":"1970-01-01T00:00:00.000Z","code":null,"command":"uptime","decision":"executed","duration_ms":3,"reason":null,"seq":1,"session_id":"s","target":"host:web1","tool":"read"}"#;
        assert_eq!(
            base,
            sha256_hex(&[GENESIS_HASH.as_bytes(), canonical.as_bytes()])
        );
        assert_ne!(
            base,
            record_hash(GENESIS_HASH, 2, "1970-01-01T00:00:00.000Z", &record())
        );
        assert_ne!(
            base,
            record_hash(GENESIS_HASH, 1, "1970-01-01T00:00:00.001Z", &record())
        );
        let edits: [fn(&mut AuditRecord); 9] = [
            |r| r.session_id.push('x'),
            |r| r.actor.push('x'),
            |r| r.tool.push('x'),
            |r| r.target = None,
            |r| r.decision.push('x'),
            |r| r.code = Some("X".into()),
            |r| r.command.push('x'),
            |r| r.reason = Some(String::new()),
            |r| r.duration_ms += 1,
        ];
        for edit in edits {
            let mut changed = record();
            edit(&mut changed);
            assert_ne!(
                base,
                record_hash(GENESIS_HASH, 1, "1970-01-01T00:00:00.000Z", &changed),
                "{changed:?}"
            );
        }
    }

    #[test]
    fn entries_serialise_as_the_api_record_plus_prev_hash() {
        let entry = AuditEntry {
            seq: 1,
            at: "1970-01-01T00:00:00.000Z".into(),
            record: record(),
            prev_hash: GENESIS_HASH.into(),
            hash: "h".into(),
            legacy_record: None,
        };
        let value = serde_json::to_value(&entry).unwrap();
        assert_eq!(
            value,
            json!({
                "seq": 1, "at": "1970-01-01T00:00:00.000Z", "session_id": "s",
                "actor": "assistant", "tool": "read", "target": "host:web1",
                "decision": "executed", "code": null, "command": "uptime",
                "reason": null, "duration_ms": 3, "prev_hash": GENESIS_HASH, "hash": "h"
            })
        );
        assert_eq!(serde_json::from_value::<AuditEntry>(value).unwrap(), entry);
    }
}
