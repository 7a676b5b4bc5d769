//! The `[[proxmox]]` and `[proxmox_snapshots]` rows, against one real
//! `fakepve` shared by them: a guest `probe-vm` (tagged `prod` on demand),
//! its certificate, CA file and token.

use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;

use crate::one_program::keys::Row;
use crate::one_program::support::{Observed, Script, calls, says};
use warden_testkit::fixtures::fakepve::{FakeOptions, FakePve, TOKEN_ID, TOKEN_SECRET};

/// The fake cluster, on a runtime of its own (the rows are threads).
pub struct Cluster {
    runtime: tokio::runtime::Runtime,
    fake: FakePve,
    /// The guest added while the last refresh row ran.
    late: Mutex<Option<String>>,
    next_vmid: Mutex<u32>,
}

impl Cluster {
    pub fn start() -> Cluster {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let fake = runtime.block_on(async {
            let fake = FakePve::start(FakeOptions::default()).await;
            fake.add_vm(101, "probe-vm", "running").await;
            fake.control(json!({"op": "add_vm", "vmid": 102, "name": "tagged-vm",
                "status": "running", "config": {"tags": "prod"}}))
                .await;
            fake
        });
        Cluster {
            runtime,
            fake,
            late: Mutex::new(None),
            next_vmid: Mutex::new(500),
        }
    }

    /// A guest that did not exist before, named after its vmid.
    pub fn add_late_guest(&self) -> String {
        let vmid = {
            let mut next = self.next_vmid.lock().unwrap();
            *next += 1;
            *next
        };
        let name = format!("late-{vmid}");
        self.runtime
            .block_on(self.fake.add_vm(vmid, &name, "running"));
        *self.late.lock().unwrap() = Some(name.clone());
        name
    }

    pub fn late_guest(&self) -> Option<String> {
        self.late.lock().unwrap().clone()
    }
}

/// `text` with the fake's URL, fingerprint, CA file and token in place of
/// `{pve_url}`, `{pve_fingerprint}`, `{pve_ca}`, `{pve_token}`, `{pve_secret}`.
pub fn fill(text: &str, cluster: &Cluster) -> String {
    text.replace("{pve_url}", &cluster.fake.url)
        .replace("{pve_fingerprint}", &cluster.fake.fingerprint)
        .replace("{pve_ca}", &cluster.fake.ca_file.display().to_string())
        .replace("{pve_token}", TOKEN_ID)
        .replace("{pve_secret}", TOKEN_SECRET)
}

/// A cluster section with `line` added and lines starting with any of
/// `without` left out.
fn cluster_with(line: &str, without: &[&str]) -> String {
    let base = [
        "name = \"lab\"",
        "url = \"{pve_url}\"",
        "token_id = \"{pve_token}\"",
        "token_secret = \"{pve_secret}\"",
        "fingerprint = \"{pve_fingerprint}\"",
    ];
    let mut lines: Vec<String> = base
        .iter()
        .filter(|l| !without.iter().any(|w| l.starts_with(w)))
        .map(|l| l.to_string())
        .collect();
    if !line.is_empty() {
        lines.push(line.to_string());
    }
    format!("[[proxmox]]\n{}\n", lines.join("\n"))
}

fn listed(run: &Observed, name: &str) -> Result<(), String> {
    let text = run.done()["final_text"].as_str().unwrap_or_default();
    let outputs: String = run
        .of_type("tool_end")
        .iter()
        .filter_map(|e| e["output"].as_str())
        .collect();
    if text.contains(name) || outputs.contains(name) {
        Ok(())
    } else {
        Err(format!("`{name}` in the inventory, got: {text}"))
    }
}

fn not_listed(run: &Observed, name: &str) -> Result<(), String> {
    match listed(run, name) {
        Ok(()) => Err(format!(
            "`{name}` NOT in the inventory (the cluster is not readable)"
        )),
        Err(_) => Ok(()),
    }
}

fn snapshot_taken(run: &Observed) -> Result<(), String> {
    let needed = run.of_type("approval_needed");
    let approval = needed.first().ok_or("an approval asked")?;
    if approval["approval"]["snapshot"]["take"] == true {
        Ok(())
    } else {
        Err(format!(
            "a snapshot taken first, got {}",
            approval["approval"]["snapshot"]
        ))
    }
}

fn pve_row(
    key: &'static str,
    config: String,
    text: &'static str,
    check: impl Fn(&Observed) -> Result<(), String> + Send + Sync + 'static,
) -> Row {
    Row {
        key,
        config,
        script: Script::of(Vec::new()),
        text,
        env: Vec::new(),
        check: Box::new(move |run, _| check(run)),
    }
}

pub fn rows(_cluster: &Cluster) -> Vec<Row> {
    let mut rows = vec![
        pve_row("proxmox[].url", cluster_with("", &[]), "list vms", |run| {
            listed(run, "probe-vm")
        }),
        pve_row(
            "proxmox[].name",
            cluster_with("name = \"lab7\"", &["name"]),
            "list vms",
            |run| listed(run, "\"cluster\":\"lab7\""),
        ),
        pve_row(
            "proxmox[].token_id",
            cluster_with("token_id = \"warden@pve!nobody\"", &["token_id"]),
            "list vms",
            |run| not_listed(run, "probe-vm"),
        ),
        pve_row(
            "proxmox[].token_secret",
            cluster_with("token_secret = \"not-the-secret\"", &["token_secret"]),
            "list vms",
            |run| not_listed(run, "probe-vm"),
        ),
        pve_row(
            "proxmox[].fingerprint",
            cluster_with(
                "fingerprint = \"00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF\"",
                &["fingerprint"],
            ),
            "list vms",
            |run| not_listed(run, "probe-vm"),
        ),
        pve_row(
            "proxmox[].ca_file",
            cluster_with("ca_file = \"{pve_ca}\"", &["fingerprint"]),
            "list vms",
            |run| listed(run, "probe-vm"),
        ),
        pve_row(
            "proxmox[].insecure",
            cluster_with("insecure = true", &["fingerprint"]),
            "list vms",
            |run| listed(run, "probe-vm"),
        ),
        pve_row(
            "proxmox_snapshots.default",
            cluster_with("", &[]) + "\n[proxmox_snapshots]\ndefault = \"always\"\n",
            "stop probe-vm",
            snapshot_taken,
        ),
        pve_row(
            "proxmox_snapshots.per_tag",
            cluster_with("", &[])
                + "\n[proxmox_snapshots]\ndefault = \"never\"\nper_tag = { prod = \"always\" }\n",
            "stop tagged-vm",
            snapshot_taken,
        ),
    ];
    let mut from_env = pve_row(
        "proxmox[].token_secret_env",
        cluster_with("token_secret_env = \"ROW_PVE_SECRET\"", &["token_secret"]),
        "list vms",
        |run| listed(run, "probe-vm"),
    );
    from_env
        .env
        .push(("ROW_PVE_SECRET", TOKEN_SECRET.to_string()));
    rows.push(from_env);
    rows.push(refresh_row());
    rows
}

/// A guest added while the turn waits for the model shows in the same
/// turn only when the cluster is read again within a second.
fn refresh_row() -> Row {
    let mut script = Script::of(vec![
        calls("query", json!({"action": "list", "kind": "vm"})).delay_head(Duration::from_secs(4)),
        says("Listed."),
    ]);
    script.on_first_request = Some(std::sync::Arc::new(
        |context: &crate::one_program::keys::Context| {
            context.cluster().add_late_guest();
        },
    ));
    Row {
        key: "proxmox[].refresh_interval_secs",
        config: crate::one_program::keys::model_section()
            + &cluster_with("refresh_interval_secs = 1", &[]),
        script,
        text: "please look around for me",
        env: Vec::new(),
        check: Box::new(|run, context| {
            let late = context
                .cluster()
                .late_guest()
                .ok_or("a guest added during the turn")?;
            listed(run, &late)
        }),
    }
}
