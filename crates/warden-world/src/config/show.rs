//! `warden config show`: every effective value and where it came from.

use super::{Config, Source};

impl Config {
    /// `warden config show`: every value, where it came from; keys masked.
    pub fn show(&self) -> String {
        let mut rows: Vec<(&str, String, &Source)> = vec![
            (
                "control_level",
                self.control_level.value.to_string(),
                &self.control_level.source,
            ),
            (
                "db",
                match &self.db.value {
                    Some(path) => path.display().to_string(),
                    None => crate::storage::default_database_path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|e| format!("no default location: {e}")),
                },
                &self.db.source,
            ),
            (
                "provider",
                self.provider
                    .value
                    .map_or("none (router only)".into(), |k| k.name().to_string()),
                &self.provider.source,
            ),
            (
                "base_url",
                self.base_url.value.clone().unwrap_or_else(|| {
                    self.provider.value.map_or("-".into(), |k| {
                        format!("{} (provider default)", k.default_base_url())
                    })
                }),
                &self.base_url.source,
            ),
            (
                "api_key",
                match &self.api_key.value {
                    Some(key) if !key.is_empty() => "set (hidden)".into(),
                    _ => "not set".into(),
                },
                &self.api_key.source,
            ),
            (
                "model",
                self.model
                    .value
                    .clone()
                    .unwrap_or_else(|| "chosen from the provider's model list".into()),
                &self.model.source,
            ),
            (
                "max_retries",
                self.max_retries.value.to_string(),
                &self.max_retries.source,
            ),
            (
                "idle_timeout",
                format!("{} s", self.idle_timeout.value.as_secs()),
                &self.idle_timeout.source,
            ),
            (
                "request_timeout",
                format!("{} s", self.request_timeout.value.as_secs()),
                &self.request_timeout.source,
            ),
            (
                "max_retry_after",
                format!("{} s", self.max_retry_after.value.as_secs()),
                &self.max_retry_after.source,
            ),
            (
                "max_reply_bytes",
                self.max_reply_bytes.value.to_string(),
                &self.max_reply_bytes.source,
            ),
            (
                "loop.max_model_calls",
                self.max_model_calls.value.to_string(),
                &self.max_model_calls.source,
            ),
            (
                "knowledge_ttl",
                format!("{} s", self.knowledge_ttl.value.as_secs()),
                &self.knowledge_ttl.source,
            ),
            (
                "approval_ttl",
                format!("{} s", self.approval_ttl.value.as_secs()),
                &self.approval_ttl.source,
            ),
            (
                "budget_tokens",
                self.budget_tokens
                    .value
                    .map_or("unlimited".into(), |n| n.to_string()),
                &self.budget_tokens.source,
            ),
            (
                "exec.timeout",
                format!("{} s", self.exec_timeout.value.as_secs()),
                &self.exec_timeout.source,
            ),
            (
                "exec.max_output_bytes",
                self.exec_max_output.value.to_string(),
                &self.exec_max_output.source,
            ),
        ];
        let file_source = self
            .file
            .clone()
            .map(Source::File)
            .unwrap_or(Source::Default);
        let pricing = if self.pricing.is_empty() {
            "none".to_string()
        } else {
            self.pricing.keys().cloned().collect::<Vec<_>>().join(", ")
        };
        rows.push(("pricing", pricing, &file_source));
        let snapshots = &self.snapshots.value;
        let per_tag: Vec<String> = snapshots
            .per_tag
            .iter()
            .map(|(tag, mode)| format!("{tag}={}", mode.as_str()))
            .collect();
        let snapshots = if per_tag.is_empty() {
            snapshots.default.as_str().to_string()
        } else {
            format!("{} ({})", snapshots.default.as_str(), per_tag.join(", "))
        };
        rows.push(("proxmox_snapshots", snapshots, &self.snapshots.source));
        let clusters = if self.proxmox.is_empty() {
            "none".to_string()
        } else {
            self.proxmox
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        rows.push(("proxmox", clusters, &file_source));
        let mut out = format!(
            "config file: {}\n",
            self.file
                .as_ref()
                .map_or("none found".into(), |p| p.display().to_string())
        );
        for (path, found) in &self.searched {
            let what = match found {
                super::Found::Read => "read",
                super::Found::Missing => "not found",
                super::Found::NotRead => "not read (an earlier file was)",
            };
            out.push_str(&format!("  searched {}: {what}\n", path.display()));
        }
        for (key, value, source) in rows {
            out.push_str(&format!("{key:<22} {value:<44} ({source})\n"));
        }
        for cluster in &self.proxmox {
            out.push_str(&proxmox_entry(cluster));
        }
        out
    }
}

/// One `[[proxmox]]` cluster: where, which token, how the certificate is
/// trusted, where the secret comes from (never the secret itself).
fn proxmox_entry(cluster: &warden_infra::proxmox::ProxmoxConfig) -> String {
    let secret = match (&cluster.token_secret_env, &cluster.token_secret) {
        (Some(variable), _) => format!("from env {variable}"),
        (None, Some(_)) => "in the file (hidden)".to_string(),
        (None, None) => "not set".to_string(),
    };
    let trust = match (&cluster.fingerprint, &cluster.ca_file, cluster.insecure) {
        (Some(fingerprint), _, _) => format!("pinned {fingerprint}"),
        (None, Some(ca), _) => format!("CA file {}", ca.display()),
        (None, None, true) => "INSECURE (any certificate)".to_string(),
        (None, None, false) => "public CAs".to_string(),
    };
    let refresh = cluster
        .refresh_interval_secs
        .unwrap_or(warden_infra::proxmox::DEFAULT_REFRESH_INTERVAL.as_secs());
    let status = match cluster.resolve() {
        Ok(_) => "ok".to_string(),
        Err(error) => format!("NOT USABLE: {error}"),
    };
    format!(
        "proxmox `{}`: {} token {} (secret {secret}), TLS {trust}, refresh every {refresh} s; {status}\n",
        cluster.name, cluster.url, cluster.token_id
    )
}
